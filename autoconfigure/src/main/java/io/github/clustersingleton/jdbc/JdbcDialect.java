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
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.StoreClockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The statements of the lease table on one database platform, read from the
 * {@code <platform>/*.sql} resources next to this class (see {@link JdbcStatement}) with
 * the table name filled in. What differs per platform beyond the SQL (how an acquisition
 * learns whether it won, how times are bound) is left to the subclasses.
 * <p>
 * Every time comparison uses the database's clock; Java only sends durations (as
 * milliseconds) and cron slots.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
abstract sealed class JdbcDialect permits PostgreSqlDialect, MySqlDialect, H2Dialect {

	protected final String table;

	protected final JdbcStatement acquire;

	protected final JdbcStatement selectState;

	protected final JdbcStatement renew;

	private final JdbcStatement release;

	private final JdbcStatement describe;

	private final JdbcStatement forceRelease;

	private final JdbcStatement probe;

	private volatile Duration renewalTimeout = Duration.ZERO;

	private volatile StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

	/**
	 * Create a new dialect.
	 * @param table the validated table name
	 * @param platform the directory of the platform's statements
	 * @param sharedPlatform the directory of the statements this platform shares with
	 * another one (all but {@code acquire}), or the same as {@code platform}
	 */
	JdbcDialect(String table, String platform, String sharedPlatform) {
		this(table, JdbcStatement.load(platform, "acquire", table, false), sharedPlatform);
	}

	/**
	 * Create a new dialect with an acquisition statement of its own.
	 * @param table the validated table name
	 * @param acquire the acquisition statement
	 * @param sharedPlatform the directory of the other statements
	 */
	JdbcDialect(String table, JdbcStatement acquire, String sharedPlatform) {
		this.table = table;
		this.acquire = acquire;
		this.selectState = JdbcStatement.load(sharedPlatform, "select-state", table, false);
		this.renew = JdbcStatement.load(sharedPlatform, "renew", table, true);
		this.release = JdbcStatement.load(sharedPlatform, "release", table, false);
		this.describe = JdbcStatement.load(sharedPlatform, "describe", table, false);
		this.forceRelease = JdbcStatement.load(sharedPlatform, "force-release", table, false);
		this.probe = JdbcStatement.load(sharedPlatform, "probe", table, false);
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

	void setRenewalTimeout(Duration renewalTimeout) {
		this.renewalTimeout = renewalTimeout;
	}

	void setStoreClockObserver(StoreClockObserver storeClockObserver) {
		this.storeClockObserver = storeClockObserver;
	}

	/**
	 * Tell the observer the database's time read in a round trip.
	 * @param resultSet a row with a {@code store_time} column
	 * @throws SQLException on a driver error
	 */
	protected final void observeStoreTime(ResultSet resultSet) throws SQLException {
		Instant storeTime = getInstant(resultSet, "store_time");
		if (storeTime != null) {
			try {
				this.storeClockObserver.storeTimeObserved(storeTime);
			}
			catch (RuntimeException ex) {
				// an observer must not turn a good round trip into a failure
			}
		}
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
	 * Return the parameters of {@code acquire.sql}.
	 * @param request the request
	 * @return the parameters
	 */
	protected final MapSqlParameterSource acquireParameters(LeaseRequest request) {
		return new MapSqlParameterSource().addValue("name", request.jobName())
			.addValue("owner", request.owner())
			.addValue("leaseToken", request.leaseToken())
			.addValue("ttlMillis", request.ttl().toMillis())
			.addValue("slot", instant(request.slot()))
			.addValue("slotToleranceMillis", request.slotTolerance().toMillis());
	}

	/**
	 * Read the outcome of an acquisition from a row of {@code select-state.sql} (or a
	 * {@code RETURNING} clause with the same columns): acquired when it carries the
	 * request's lease token, else why not.
	 * @param request the request
	 * @param resultSet the row, positioned on it
	 * @return the result
	 * @throws SQLException on a driver error
	 */
	protected final AcquireResult outcome(LeaseRequest request, ResultSet resultSet) throws SQLException {
		observeStoreTime(resultSet);
		if (request.leaseToken().equals(resultSet.getString("lease_token"))) {
			return AcquireResult.acquired(resultSet.getLong("fencing_token"));
		}
		return AcquireResult.notAcquired(request, resultSet.getString("owner"), getInstant(resultSet, "last_slot"),
				getInstant(resultSet, "store_time"));
	}

	/**
	 * Read the row of a job and the database's time after an acquisition
	 * ({@code select-state.sql}), and tell the outcome from it.
	 * @param connection an auto-commit connection
	 * @param request the request
	 * @return the result
	 * @throws SQLException on a database error
	 */
	protected final AcquireResult readOutcome(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = this.selectState.prepare(connection,
				new MapSqlParameterSource("name", request.jobName())); ResultSet resultSet = statement.executeQuery()) {
			if (!resultSet.next()) {
				return AcquireResult.notAcquired(request, null, null);
			}
			return outcome(request, resultSet);
		}
	}

	/**
	 * Bind an instant, or SQL {@code NULL}, in the type of the time columns.
	 * @param instant the instant
	 * @return the parameter value
	 */
	abstract SqlParameterValue instant(@Nullable Instant instant);

	/**
	 * Read a time column as an instant.
	 * @param resultSet the result set
	 * @param column the column label
	 * @return the instant, or {@code null}
	 * @throws SQLException on a driver error
	 */
	abstract @Nullable Instant getInstant(ResultSet resultSet, String column) throws SQLException;

	/**
	 * Renew leases in one statement (plus, on platforms without {@code RETURNING}, one
	 * SELECT when not all of them were renewed).
	 * @param connection an auto-commit connection
	 * @param leases at most 1000 leases with distinct lease tokens
	 * @param ttl the new time to live
	 * @return the lease tokens that were renewed
	 * @throws SQLException on a database error
	 */
	abstract Set<String> renew(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException;

	/**
	 * Return the parameters of {@code renew.sql} and {@code select-live.sql}.
	 * @param leases the leases
	 * @param ttl the new time to live
	 * @return the parameters
	 */
	protected static MapSqlParameterSource renewParameters(List<HeldLease> leases, Duration ttl) {
		return new MapSqlParameterSource().addValue("ttlMillis", ttl.toMillis())
			.addValue("names", leases.stream().map(HeldLease::jobName).toList())
			.addValue("leaseTokens", leases.stream().map(HeldLease::leaseToken).toList());
	}

	/**
	 * Renew leases, bounded by the renewal timeout: a renewal that hangs (a database that
	 * stopped answering, a connection into a black hole during a failover) gives up in
	 * time for the watchdog's next tick to try again on another connection. The bound is
	 * the connection's network timeout, put back as it was afterwards, and each
	 * statement's query timeout (whole seconds, JDBC's unit, rounded up).
	 * @param connection an auto-commit connection
	 * @param leases at most 1000 leases with distinct lease tokens
	 * @param ttl the new time to live
	 * @return the lease tokens that were renewed
	 * @throws SQLException on a database error, including a timeout
	 */
	final Set<String> renewBounded(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException {
		Duration timeout = this.renewalTimeout;
		if (timeout.isZero() || !boundsRenewals()) {
			return renew(connection, leases, ttl);
		}
		Integer previous;
		try {
			previous = connection.getNetworkTimeout();
			connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		}
		catch (SQLFeatureNotSupportedException ex) {
			previous = null;
		}
		try {
			return renew(connection, leases, ttl);
		}
		finally {
			if (previous != null) {
				try {
					connection.setNetworkTimeout(Runnable::run, previous);
				}
				catch (SQLException ex) {
					// a connection the timeout broke: the pool discards it
				}
			}
		}
	}

	/**
	 * Prepare a renewal statement with the renewal timeout as its query timeout.
	 * @param connection the connection
	 * @param statement the statement
	 * @param parameters its parameters
	 * @return the prepared statement
	 * @throws SQLException on a driver error
	 */
	protected final PreparedStatement prepareRenewal(Connection connection, JdbcStatement statement,
			MapSqlParameterSource parameters) throws SQLException {
		PreparedStatement prepared = statement.prepare(connection, parameters);
		Duration timeout = this.renewalTimeout;
		if (!timeout.isZero() && boundsRenewals()) {
			long seconds = timeout.toSeconds() + ((timeout.toNanosPart() > 0) ? 1 : 0);
			prepared.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, seconds)));
		}
		return prepared;
	}

	/**
	 * Return whether renewals get a timeout on this platform; an embedded database has no
	 * network to time out.
	 * @return {@code true} unless embedded
	 */
	protected boolean boundsRenewals() {
		return true;
	}

	/**
	 * Read the {@code lease_token} column of every row a query returns, keeping only the
	 * tokens of the given leases, and the database's time when the rows carry it.
	 * @param statement the query
	 * @param leases the leases
	 * @return the tokens
	 * @throws SQLException on a database error
	 */
	protected final Set<String> readTokens(PreparedStatement statement, List<HeldLease> leases) throws SQLException {
		Set<String> ours = tokens(leases);
		Set<String> found = new HashSet<>();
		try (ResultSet resultSet = statement.executeQuery()) {
			boolean timeRead = resultSet.getMetaData().getColumnCount() < 2;
			while (resultSet.next()) {
				String token = resultSet.getString(1);
				if (ours.contains(token)) {
					found.add(token);
				}
				if (!timeRead) {
					observeStoreTime(resultSet);
					timeRead = true;
				}
			}
		}
		return found;
	}

	protected static Set<String> tokens(List<HeldLease> leases) {
		Set<String> tokens = new HashSet<>(leases.size() * 2);
		for (HeldLease lease : leases) {
			tokens.add(lease.leaseToken());
		}
		return tokens;
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
		MapSqlParameterSource parameters = new MapSqlParameterSource()
			.addValue("lockAtLeastForMillis", lockAtLeastFor.toMillis())
			.addValue("releasedToken", releasedToken(lease.leaseToken()))
			.addValue("name", lease.jobName())
			.addValue("leaseToken", lease.leaseToken());
		try (PreparedStatement statement = this.release.prepare(connection, parameters)) {
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
		try (PreparedStatement statement = this.describe.prepare(connection,
				new MapSqlParameterSource("name", jobName)); ResultSet resultSet = statement.executeQuery()) {
			if (!resultSet.next()) {
				return Optional.empty();
			}
			return Optional.of(new LeaseInfo(jobName, resultSet.getString("owner"), resultSet.getInt("live") == 1,
					getInstant(resultSet, "acquired_at"), getInstant(resultSet, "expires_at"),
					resultSet.getLong("fencing_token"), getInstant(resultSet, "last_slot")));
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
		try (PreparedStatement statement = this.forceRelease.prepare(connection,
				new MapSqlParameterSource("name", jobName))) {
			return statement.executeUpdate() > 0;
		}
	}

	/**
	 * Run a query on the table that returns nothing, so that a missing table shows.
	 * @param connection a connection
	 * @throws SQLException on a database error
	 */
	void probe(Connection connection) throws SQLException {
		try (PreparedStatement statement = this.probe.prepare(connection, new MapSqlParameterSource())) {
			statement.executeQuery().close();
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
	 * Return an instant as an {@link OffsetDateTime} in UTC, for {@code TIMESTAMP WITH
	 * TIME ZONE} columns.
	 * @param instant the instant
	 * @return the parameter value
	 */
	protected static SqlParameterValue offsetDateTime(@Nullable Instant instant) {
		return new SqlParameterValue(Types.TIMESTAMP_WITH_TIMEZONE,
				(instant != null) ? OffsetDateTime.ofInstant(toMicros(instant), ZoneOffset.UTC) : null);
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
	 * Return an instant as a {@link LocalDateTime} in UTC, for {@code DATETIME} columns
	 * that hold UTC.
	 * @param instant the instant
	 * @return the parameter value
	 */
	protected static SqlParameterValue utcLocalDateTime(@Nullable Instant instant) {
		return new SqlParameterValue(Types.TIMESTAMP,
				(instant != null) ? LocalDateTime.ofInstant(toMicros(instant), ZoneOffset.UTC) : null);
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
