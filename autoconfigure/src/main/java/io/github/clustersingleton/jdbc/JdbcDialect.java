/*
 * Copyright 2026 the original author or authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.clustersingleton.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the lease table on one database platform, built once per table name. The
 * statements that are the same everywhere but for the clock and the interval syntax live
 * here; acquisition, the one operation whose best form differs per platform, is left to
 * the subclasses.
 * <p>
 * Every time comparison uses the database's clock ({@link #now()}); Java only sends
 * durations (as milliseconds) and cron slots.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
abstract sealed class JdbcDialect permits PostgreSqlDialect, MySqlDialect, H2Dialect {

	/**
	 * The columns {@link #describe} reads, in order.
	 */
	private static final String DESCRIBE_COLUMNS = "owner, acquired_at, expires_at, last_slot, fencing_token";

	protected final String table;

	private final String now;

	private final String plusMillisTemplate;

	private final String selectStateSql;

	private final String renewPrefix;

	private final String renewSuffix;

	private final String selectLivePrefix;

	private final String selectLiveSuffix;

	private final String releaseSql;

	private final String describeSql;

	private final String forceReleaseSql;

	private final String probeSql;

	/**
	 * Create a new dialect.
	 * @param table the validated table name
	 * @param now the SQL expression of the database's current time in the type of the
	 * time columns
	 * @param plusMillisTemplate a {@link String#formatted} template that adds a number of
	 * milliseconds, bound as one {@code ?} parameter, to the timestamp expression
	 * {@code %s}
	 */
	private volatile int queryTimeoutSeconds;

	void setQueryTimeoutSeconds(int queryTimeoutSeconds) {
		this.queryTimeoutSeconds = queryTimeoutSeconds;
	}

	/**
	 * Prepare a statement on the hot path (acquire, release, describe): no query timeout,
	 * since drivers charge for one on every statement (PgJDBC arms a timer, H2 runs a
	 * {@code SET QUERY_TIMEOUT}); the DataSource's own timeouts bound these.
	 */
	PreparedStatement prepare(Connection connection, String sql) throws SQLException {
		return connection.prepareStatement(sql);
	}

	/**
	 * Prepare a renewal statement with the configured query timeout: a renewal that hangs
	 * must not hold up the next ones for longer than a lease lives.
	 */
	PreparedStatement prepareWithTimeout(Connection connection, String sql) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		if (this.queryTimeoutSeconds > 0 && !(this instanceof H2Dialect)) {
			statement.setQueryTimeout(this.queryTimeoutSeconds);
		}
		return statement;
	}

	JdbcDialect(String table, String now, String plusMillisTemplate) {
		this.table = table;
		this.now = now;
		this.plusMillisTemplate = plusMillisTemplate;
		this.selectStateSql = "SELECT owner, last_slot FROM " + table + " WHERE name = ?";
		this.renewPrefix = "UPDATE " + table + " SET expires_at = " + plusMillis(now) + " WHERE ";
		this.renewSuffix = " AND expires_at > " + now;
		this.selectLivePrefix = "SELECT lease_token FROM " + table + " WHERE ";
		this.selectLiveSuffix = this.renewSuffix;
		// a released lease no longer carries its token: a renewal sent before the
		// release that reaches the row after it (or waited for its row lock) cannot
		// extend it again
		this.releaseSql = "UPDATE " + table + " SET expires_at = GREATEST(" + plusMillis("acquired_at") + ", " + now
				+ "), lease_token = ? WHERE name = ? AND lease_token = ? AND expires_at > " + now;
		this.describeSql = "SELECT " + DESCRIBE_COLUMNS + ", CASE WHEN expires_at > " + now
				+ " THEN 1 ELSE 0 END AS live FROM " + table + " WHERE name = ?";
		this.forceReleaseSql = "UPDATE " + table + " SET expires_at = " + now + " WHERE name = ? AND expires_at > "
				+ now;
		this.probeSql = "SELECT 1 FROM " + table + " WHERE 1 = 0";
	}

	/**
	 * Return the token a released lease is left with: never one an acquisition hands out
	 * (those are 32 hex digits), and at most the column's 64 characters.
	 */
	static String releasedToken(String leaseToken) {
		String released = "released:" + leaseToken;
		return (released.length() <= 64) ? released : released.substring(0, 64);
	}

	/**
	 * Return the dialect of a platform.
	 * @param platform the platform
	 * @param table the validated table name
	 * @return the dialect
	 */
	static JdbcDialect of(JdbcPlatform platform, String table) {
		return switch (platform) {
			case POSTGRESQL -> new PostgreSqlDialect(table);
			case MARIADB -> new MariaDbDialect(table);
			case MYSQL -> new MySqlDialect(table);
			case H2 -> new H2Dialect(table);
		};
	}

	/**
	 * Return the SQL expression of the database's current time.
	 * @return the expression
	 */
	final String now() {
		return this.now;
	}

	/**
	 * Return the SQL expression that adds a number of milliseconds, bound as one
	 * {@code ?} parameter, to a timestamp expression.
	 * @param timestamp the timestamp expression
	 * @return the expression
	 */
	final String plusMillis(String timestamp) {
		return this.plusMillisTemplate.formatted(timestamp);
	}

	/**
	 * Try to acquire a lease, atomically.
	 * @param connection an auto-commit connection
	 * @param request the request
	 * @return the result
	 * @throws SQLException on a database error
	 */
	abstract AcquireResult tryAcquire(Connection connection, LeaseRequest request) throws SQLException;

	/**
	 * Bind an instant, or SQL {@code NULL}, in the type of the time columns.
	 * @param statement the statement
	 * @param index the parameter index
	 * @param instant the instant
	 * @throws SQLException on a driver error
	 */
	abstract void setInstant(PreparedStatement statement, int index, @Nullable Instant instant) throws SQLException;

	/**
	 * Read a time column as an instant.
	 * @param resultSet the result set
	 * @param column the column label
	 * @return the instant, or {@code null}
	 * @throws SQLException on a driver error
	 */
	abstract @Nullable Instant getInstant(ResultSet resultSet, String column) throws SQLException;

	/**
	 * Renew leases in one statement (plus, on some platforms, one SELECT when not all of
	 * them were renewed).
	 * @param connection an auto-commit connection
	 * @param leases at most 1000 leases with distinct lease tokens
	 * @param ttl the new time to live
	 * @return the lease tokens that were renewed
	 * @throws SQLException on a database error
	 */
	Set<String> renew(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException {
		int updated;
		try (PreparedStatement statement = prepareWithTimeout(connection, renewSql(leases.size(), ""))) {
			statement.setLong(1, ttl.toMillis());
			bindNamesAndTokens(statement, 2, leases);
			updated = statement.executeUpdate();
		}
		if (updated == leases.size()) {
			return tokens(leases);
		}
		// Some leases are gone: ask which of ours are still live (and so were renewed)
		String sql = this.selectLivePrefix + inLists(leases.size()) + this.selectLiveSuffix;
		try (PreparedStatement statement = prepare(connection, sql)) {
			bindNamesAndTokens(statement, 1, leases);
			return readTokens(statement, leases);
		}
	}

	/**
	 * Return the SQL of a renewal of {@code count} leases.
	 * @param count the number of leases
	 * @param returning what to append, such as a {@code RETURNING} clause
	 * @return the SQL
	 */
	protected final String renewSql(int count, String returning) {
		return this.renewPrefix + inLists(count) + this.renewSuffix + returning;
	}

	/**
	 * Bind the names and then the tokens of leases, the parameters of
	 * {@link #inLists(int)}.
	 * @param statement the statement
	 * @param firstIndex the index of the first parameter
	 * @param leases the leases
	 * @throws SQLException on a driver error
	 */
	protected static void bindNamesAndTokens(PreparedStatement statement, int firstIndex, List<HeldLease> leases)
			throws SQLException {
		int index = firstIndex;
		for (HeldLease lease : leases) {
			statement.setString(index++, lease.jobName());
		}
		for (HeldLease lease : leases) {
			statement.setString(index++, lease.leaseToken());
		}
	}

	/**
	 * Read the {@code lease_token} column of every row a query returns, keeping only the
	 * tokens of the given leases.
	 * @param statement the query
	 * @param leases the leases
	 * @return the tokens
	 * @throws SQLException on a database error
	 */
	protected static Set<String> readTokens(PreparedStatement statement, List<HeldLease> leases) throws SQLException {
		Set<String> ours = tokens(leases);
		Set<String> found = new HashSet<>();
		try (ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				String token = resultSet.getString(1);
				if (ours.contains(token)) {
					found.add(token);
				}
			}
		}
		return found;
	}

	private static Set<String> tokens(List<HeldLease> leases) {
		Set<String> tokens = new HashSet<>(leases.size() * 2);
		for (HeldLease lease : leases) {
			tokens.add(lease.leaseToken());
		}
		return tokens;
	}

	/**
	 * Return {@code name IN (?, ...) AND lease_token IN (?, ...)} for {@code count}
	 * leases. Lease tokens are random per acquisition, so a row whose token is in the
	 * list is the row of that token's job: the two lists select exactly our leases.
	 * @param count the number of leases
	 * @return the SQL condition
	 */
	private static String inLists(int count) {
		String placeholders = String.join(", ", Collections.nCopies(count, "?"));
		return "name IN (" + placeholders + ") AND lease_token IN (" + placeholders + ")";
	}

	/**
	 * Release a lease if it is still ours and live: expire it now, or at acquisition plus
	 * {@code lockAtLeastFor} if that is later. The row stays, with its fencing token and
	 * last slot.
	 * @param connection an auto-commit connection
	 * @param lease the lease
	 * @param lockAtLeastFor how long after acquisition the lease must be kept
	 * @return whether the lease was still ours
	 * @throws SQLException on a database error
	 */
	boolean release(Connection connection, HeldLease lease, Duration lockAtLeastFor) throws SQLException {
		try (PreparedStatement statement = prepare(connection, this.releaseSql)) {
			statement.setLong(1, lockAtLeastFor.toMillis());
			statement.setString(2, releasedToken(lease.leaseToken()));
			statement.setString(3, lease.jobName());
			statement.setString(4, lease.leaseToken());
			return statement.executeUpdate() > 0;
		}
	}

	/**
	 * Read the state of a job's lease.
	 * @param connection an auto-commit connection
	 * @param jobName the job name
	 * @return the state, or empty when there is no row
	 * @throws SQLException on a database error
	 */
	Optional<LeaseInfo> describe(Connection connection, String jobName) throws SQLException {
		try (PreparedStatement statement = prepare(connection, this.describeSql)) {
			statement.setString(1, jobName);
			try (ResultSet resultSet = statement.executeQuery()) {
				if (!resultSet.next()) {
					return Optional.empty();
				}
				return Optional.of(new LeaseInfo(jobName, resultSet.getString("owner"), resultSet.getInt("live") == 1,
						getInstant(resultSet, "acquired_at"), getInstant(resultSet, "expires_at"),
						resultSet.getLong("fencing_token"), getInstant(resultSet, "last_slot")));
			}
		}
	}

	/**
	 * Expire a live lease now, whoever holds it.
	 * @param connection an auto-commit connection
	 * @param jobName the job name
	 * @return whether a live lease was expired
	 * @throws SQLException on a database error
	 */
	boolean forceRelease(Connection connection, String jobName) throws SQLException {
		try (PreparedStatement statement = prepare(connection, this.forceReleaseSql)) {
			statement.setString(1, jobName);
			return statement.executeUpdate() > 0;
		}
	}

	/**
	 * Run a query on the table that returns nothing, so that a missing table shows.
	 * @param connection a connection
	 * @throws SQLException on a database error
	 */
	void probe(Connection connection) throws SQLException {
		try (PreparedStatement statement = prepare(connection, this.probeSql)) {
			statement.executeQuery().close();
		}
	}

	/**
	 * Return the SQL of {@link #probe}.
	 * @return the SQL
	 */
	final String probeSql() {
		return this.probeSql;
	}

	/**
	 * Classify a failed acquisition from the stored row.
	 * @param connection an auto-commit connection
	 * @param request the failed request
	 * @return {@code HELD} or {@code SLOT_DONE}
	 * @throws SQLException on a database error
	 */
	protected final AcquireResult classifyFailure(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = prepare(connection, this.selectStateSql)) {
			statement.setString(1, request.jobName());
			try (ResultSet resultSet = statement.executeQuery()) {
				if (!resultSet.next()) {
					return AcquireResult.notAcquired(request, null, null);
				}
				return AcquireResult.notAcquired(request, resultSet.getString("owner"),
						getInstant(resultSet, "last_slot"));
			}
		}
	}

	/**
	 * Round an instant down to the microsecond precision of every supported database, so
	 * that a slot compares equal to what the database stored for it.
	 * @param instant the instant
	 * @return the truncated instant
	 */
	protected static Instant toMicros(Instant instant) {
		return instant.truncatedTo(ChronoUnit.MICROS);
	}

	/**
	 * Bind an instant as an {@link OffsetDateTime} in UTC, for {@code TIMESTAMP WITH
	 * TIME ZONE} columns.
	 * @param statement the statement
	 * @param index the parameter index
	 * @param instant the instant
	 * @throws SQLException on a driver error
	 */
	protected static void setOffsetDateTime(PreparedStatement statement, int index, @Nullable Instant instant)
			throws SQLException {
		if (instant == null) {
			statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
		}
		else {
			statement.setObject(index, OffsetDateTime.ofInstant(toMicros(instant), ZoneOffset.UTC));
		}
	}

	/**
	 * Read a {@code TIMESTAMP WITH TIME ZONE} column.
	 * @param resultSet the result set
	 * @param column the column label
	 * @return the instant, or {@code null}
	 * @throws SQLException on a driver error
	 */
	protected static @Nullable Instant getOffsetDateTime(ResultSet resultSet, String column) throws SQLException {
		OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	/**
	 * Bind an instant as a {@link LocalDateTime} in UTC, for {@code DATETIME} columns
	 * that hold UTC.
	 * @param statement the statement
	 * @param index the parameter index
	 * @param instant the instant
	 * @throws SQLException on a driver error
	 */
	protected static void setUtcLocalDateTime(PreparedStatement statement, int index, @Nullable Instant instant)
			throws SQLException {
		if (instant == null) {
			statement.setNull(index, Types.TIMESTAMP);
		}
		else {
			statement.setObject(index, LocalDateTime.ofInstant(toMicros(instant), ZoneOffset.UTC));
		}
	}

	/**
	 * Read a {@code DATETIME} column that holds UTC.
	 * @param resultSet the result set
	 * @param column the column label
	 * @return the instant, or {@code null}
	 * @throws SQLException on a driver error
	 */
	protected static @Nullable Instant getUtcLocalDateTime(ResultSet resultSet, String column) throws SQLException {
		LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
		return (value != null) ? value.toInstant(ZoneOffset.UTC) : null;
	}

}
