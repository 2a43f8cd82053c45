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
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
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

	/**
	 * The columns of the job's current run on the lease table, added in 0.2.0.
	 */
	static final List<String> RUN_COLUMNS = List.of("run_slot", "attempt", "run_state", "retry_at", "recover_at");

	protected final String table;

	protected final String runTable;

	protected final JdbcStatement acquire;

	protected final JdbcStatement acquireRun;

	protected final JdbcStatement recover;

	protected final JdbcStatement startRun;

	protected final JdbcStatement selectState;

	protected final JdbcStatement renew;

	private final JdbcStatement release;

	private final JdbcStatement describe;

	private final JdbcStatement forceRelease;

	private final JdbcStatement probe;

	private final JdbcStatement releaseRun;

	private final JdbcStatement findPending;

	private final JdbcStatement columns;

	private final JdbcStatement runProbe;

	private final JdbcStatement runRecord;

	private final JdbcStatement runTrim;

	private final JdbcStatement runMarkLost;

	private final JdbcStatement runHistory;

	private final JdbcStatement runLastSuccess;

	private volatile Duration renewalTimeout = Duration.ZERO;

	private volatile StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

	/**
	 * Create a new dialect.
	 * @param table the validated table name
	 * @param platform the directory of the platform's statements
	 * @param sharedPlatform the directory of the statements this platform shares with
	 * another one (all but {@code acquire}), or the same as {@code platform}
	 */
	JdbcDialect(String table, String runTable, String platform, String sharedPlatform) {
		this(table, runTable, JdbcStatement.load(platform, "acquire", table, false),
				JdbcStatement.load(platform, "acquire-run", table, false), sharedPlatform);
	}

	/**
	 * Create a new dialect with an acquisition statement of its own.
	 * @param table the validated table name
	 * @param runTable the validated name of the run table
	 * @param acquire the acquisition statement
	 * @param acquireRun the acquisition statement of a claim with a slot or an active
	 * policy
	 * @param sharedPlatform the directory of the other statements
	 */
	JdbcDialect(String table, String runTable, JdbcStatement acquire, JdbcStatement acquireRun, String sharedPlatform) {
		this.table = table;
		this.runTable = runTable;
		this.acquire = acquire;
		this.acquireRun = acquireRun;
		this.recover = JdbcStatement.load(sharedPlatform, "recover", table, false);
		this.startRun = JdbcStatement.load(sharedPlatform, "start-run", table, false);
		this.releaseRun = JdbcStatement.load(sharedPlatform, "release-run", table, false);
		this.findPending = JdbcStatement.load(sharedPlatform, "find-pending", table, true);
		this.columns = JdbcStatement.load(sharedPlatform, "columns", table, false);
		this.runProbe = JdbcStatement.load(sharedPlatform, "run-probe", table, runTable, false);
		this.runRecord = JdbcStatement.load(sharedPlatform, "run-record", table, runTable, false);
		this.runTrim = JdbcStatement.load(sharedPlatform, "run-trim", table, runTable, false);
		this.runMarkLost = JdbcStatement.load(sharedPlatform, "run-mark-lost", table, runTable, false);
		this.runHistory = JdbcStatement.load(sharedPlatform, "run-history", table, runTable, false);
		this.runLastSuccess = JdbcStatement.load(sharedPlatform, "run-last-success", table, runTable, true);
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
		return of(platform, table, JdbcPlatform.DEFAULT_RUN_TABLE_NAME);
	}

	/**
	 * Return the dialect of a platform.
	 * @param platform the platform
	 * @param table the validated table name
	 * @param runTable the validated name of the run table
	 * @return the dialect
	 */
	static JdbcDialect of(JdbcPlatform platform, String table, String runTable) {
		return switch (platform) {
			case POSTGRESQL -> new PostgreSqlDialect(table, runTable);
			case MARIADB -> new MariaDbDialect(table, runTable);
			case MYSQL -> new MySqlDialect(table, runTable);
			case H2 -> new H2Dialect(table, runTable);
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
	 * Claim a lease: a {@link LeaseRequest#recovery() recovery claim} with
	 * {@code recover.sql}, any other with {@link #tryAcquire}.
	 * @param connection an auto-commit connection
	 * @param request the request
	 * @return the result
	 * @throws SQLException on a database error
	 */
	final AcquireResult claim(Connection connection, LeaseRequest request) throws SQLException {
		return request.recovery() ? recover(connection, request) : tryAcquire(connection, request);
	}

	/**
	 * Return the acquisition statement of a first claim: {@code acquire-run.sql} for a
	 * claim that records a run (one with a slot, whatever its policy, or one with an
	 * active policy), {@code acquire.sql} as ever for a slotless claim without an active
	 * policy.
	 * @param request the request
	 * @return the statement
	 */
	protected final JdbcStatement acquireStatement(LeaseRequest request) {
		return recordsRun(request) ? this.acquireRun : this.acquire;
	}

	/**
	 * Return whether a claim uses the run-aware statements: a claim with a slot always
	 * sets the run columns (a new run unless its active policy finds work pending), and a
	 * claim with an active policy reports the row's run.
	 * @param request the request
	 * @return whether the claim is run-aware
	 */
	private static boolean recordsRun(LeaseRequest request) {
		return request.policy().isActive() || request.slot() != null;
	}

	/**
	 * Return the parameters of {@code acquire.sql}, {@code acquire-run.sql} and
	 * {@code recover.sql}.
	 * @param request the request
	 * @return the parameters
	 */
	protected final MapSqlParameterSource acquireParameters(LeaseRequest request) {
		MapSqlParameterSource parameters = new MapSqlParameterSource().addValue("name", request.jobName())
			.addValue("owner", request.owner())
			.addValue("leaseToken", request.leaseToken())
			.addValue("ttlMillis", request.ttl().toMillis())
			.addValue("slot", instant(request.slot()))
			.addValue("slotToleranceMillis", request.slotTolerance().toMillis());
		ClaimPolicy policy = request.policy();
		if (recordsRun(request)) {
			// ClaimPolicy.NONE finds nothing pending: a claim of a slot starts a new run
			parameters.addValue("recoverLost", policy.recoverLost() ? 1 : 0)
				.addValue("recoverFailed", policy.recoverFailed() ? 1 : 0)
				.addValue("maxAttempts", policy.maxAttempts())
				.addValue("catchUp", policy.catchUp() ? 1 : 0)
				.addValue("previousSlot", instant(request.previousSlot()))
				.addValue("graceMillis", request.recoveryGrace().toMillis());
		}
		return parameters;
	}

	/**
	 * Return the result of a claim that won, from the row as the claim left it: with the
	 * last slot and the current run for a job with an active policy.
	 * @param request the request
	 * @param resultSet the row, positioned on it
	 * @return the result
	 * @throws SQLException on a driver error
	 */
	protected final AcquireResult acquired(LeaseRequest request, ResultSet resultSet) throws SQLException {
		long fencingToken = resultSet.getLong("fencing_token");
		if (!request.policy().isActive()) {
			return AcquireResult.acquired(fencingToken);
		}
		return AcquireResult.acquired(fencingToken, getInstant(resultSet, "last_slot"), run(resultSet));
	}

	/**
	 * Read the current run of a row, {@code null} when it records none.
	 * @param resultSet the row, positioned on it
	 * @return the run
	 * @throws SQLException on a driver error
	 */
	protected final @Nullable SlotRun run(ResultSet resultSet) throws SQLException {
		Instant slot = getInstant(resultSet, "run_slot");
		int attempt = resultSet.getInt("attempt");
		String state = resultSet.getString("run_state");
		if (slot == null || attempt < 1 || state == null) {
			return null;
		}
		return new SlotRun(slot, attempt, RunState.fromValue(state));
	}

	/**
	 * Make a recovery claim with {@code recover.sql}, which returns the row when it
	 * changed it (PostgreSQL's {@code RETURNING}, H2's {@code FINAL TABLE}): taken over
	 * when it carries our lease token, only marked otherwise.
	 * @param connection an auto-commit connection
	 * @param request the recovery claim
	 * @return the result
	 * @throws SQLException on a database error
	 */
	AcquireResult recover(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = this.recover.prepare(connection, acquireParameters(request));
				ResultSet resultSet = statement.executeQuery()) {
			if (resultSet.next()) {
				observeStoreTime(resultSet);
				// a row that does not carry our token was only marked (a run still
				// recorded as running, taken over after the grace)
				if (request.leaseToken().equals(resultSet.getString("lease_token"))) {
					return acquired(request, resultSet);
				}
			}
		}
		return AcquireResult.nothingPending();
	}

	/**
	 * Return the parameters of {@code start-run.sql}.
	 * @param lease the held lease
	 * @param slot the slot of the run that starts
	 * @param attempt its attempt
	 * @return the parameters
	 */
	protected final MapSqlParameterSource startRunParameters(HeldLease lease, Instant slot, int attempt) {
		return new MapSqlParameterSource().addValue("name", lease.jobName())
			.addValue("leaseToken", lease.leaseToken())
			.addValue("slot", instant(slot))
			.addValue("attempt", attempt);
	}

	/**
	 * Start another run under a held lease with {@code start-run.sql}, which returns the
	 * new fencing token when it changed the row.
	 * @param connection an auto-commit connection
	 * @param lease the held lease
	 * @param slot the slot of the run that starts
	 * @param attempt its attempt
	 * @return the new fencing token, or empty when the lease is no longer held
	 * @throws SQLException on a database error
	 */
	OptionalLong startRun(Connection connection, HeldLease lease, Instant slot, int attempt) throws SQLException {
		try (PreparedStatement statement = this.startRun.prepare(connection, startRunParameters(lease, slot, attempt));
				ResultSet resultSet = statement.executeQuery()) {
			return resultSet.next() ? OptionalLong.of(resultSet.getLong("fencing_token")) : OptionalLong.empty();
		}
	}

	/**
	 * Return the jobs with pending work, from one {@code find-pending.sql} query (per
	 * 1000 jobs) that reads the expired rows with a run and the database's verdict on
	 * their retry times; the policies are applied here.
	 * @param connection an auto-commit connection
	 * @param policies the jobs and their policies
	 * @return the jobs with pending work
	 * @throws SQLException on a database error
	 */
	Set<String> findPending(Connection connection, Map<String, ClaimPolicy> policies) throws SQLException {
		List<String> names = new ArrayList<>(policies.keySet());
		Set<String> pending = new HashSet<>();
		for (int from = 0; from < names.size(); from += JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT) {
			List<String> chunk = names.subList(from,
					Math.min(from + JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT, names.size()));
			try (PreparedStatement statement = this.findPending.prepare(connection,
					new MapSqlParameterSource("names", chunk)); ResultSet resultSet = statement.executeQuery()) {
				while (resultSet.next()) {
					String name = resultSet.getString("name");
					ClaimPolicy policy = policies.get(name);
					SlotRun run = run(resultSet);
					if (policy != null && run != null && isPending(policy, run, getInstant(resultSet, "last_slot"),
							resultSet.getInt("retry_due") == 1)) {
						pending.add(name);
					}
				}
			}
		}
		return pending;
	}

	/**
	 * Return whether an expired row has work pending for a recovery claim: the predicate
	 * of {@code recover.sql}.
	 * @param policy the job's policy
	 * @param run the row's current run
	 * @param lastSlot the row's last slot
	 * @param retryDue whether the row's retry time has come (store clock)
	 * @return whether work is pending
	 */
	static boolean isPending(ClaimPolicy policy, SlotRun run, @Nullable Instant lastSlot, boolean retryDue) {
		return policy.isPending(run, lastSlot, retryDue, null);
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
			return acquired(request, resultSet);
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
	 * the connection's network timeout, put back as it was afterwards, and, on platforms
	 * that have one, each statement's {@link #renewalQueryTimeoutSeconds() query
	 * timeout}, which always comes later.
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
			connection.setNetworkTimeout(Runnable::run, renewalNetworkTimeoutMillis());
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
	 * Prepare a renewal statement with its {@link #renewalQueryTimeoutSeconds() query
	 * timeout}, if any.
	 * @param connection the connection
	 * @param statement the statement
	 * @param parameters its parameters
	 * @return the prepared statement
	 * @throws SQLException on a driver error
	 */
	protected final PreparedStatement prepareRenewal(Connection connection, JdbcStatement statement,
			MapSqlParameterSource parameters) throws SQLException {
		PreparedStatement prepared = statement.prepare(connection, parameters);
		int seconds = renewalQueryTimeoutSeconds();
		if (seconds > 0) {
			prepared.setQueryTimeout(seconds);
		}
		return prepared;
	}

	/**
	 * Return the network timeout of a renewal round trip: the renewal timeout in
	 * milliseconds (at least one, as zero would mean none).
	 * @return the network timeout in milliseconds
	 */
	final int renewalNetworkTimeoutMillis() {
		return (int) Math.min(Integer.MAX_VALUE, Math.max(1, this.renewalTimeout.toMillis()));
	}

	/**
	 * Return the query timeout of each renewal statement in whole seconds, or zero for
	 * none. A renewal that gets no answer in time must end by the network timeout, never
	 * by a cancel that reaches the server first: the driver then reports an I/O error and
	 * the renewal counts as failed (its outcome unknown), whereas a server can answer a
	 * cancelled commit with success when the commit was only waiting for a replica (see
	 * {@code PostgreSqlDialect}). So the query timeout is strictly longer than the
	 * network timeout, for every renewal timeout: the whole seconds of the network
	 * timeout plus one (a renewal timeout of 1 s gets 2 s, 7.5 s gets 8 s). It only
	 * bounds a statement when the driver cannot set a network timeout.
	 * @return the query timeout in seconds, zero for none
	 */
	int renewalQueryTimeoutSeconds() {
		if (this.renewalTimeout.isZero() || !boundsRenewals()) {
			return 0;
		}
		return (int) Math.min(Integer.MAX_VALUE, renewalNetworkTimeoutMillis() / 1000L + 1);
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
		return release(connection, lease, lockAtLeastFor, RunCompletion.none());
	}

	/**
	 * Record how a run ended with {@code release-run.sql}, by the run's lease token, even
	 * after its lease expired, and release the lease if it is still live; or only release
	 * it ({@code release.sql}) when the completion has no state. The run fields change
	 * only while the row's fencing token is still the run's
	 * ({@link HeldLease#fencingToken()}): once a later run started under the same lease
	 * token, that start has ended this run, and the completion records nothing more.
	 * @param connection an auto-commit connection
	 * @param lease the lease of the run
	 * @param lockAtLeastFor how long after acquisition the lease must be kept
	 * @param completion how the run ended
	 * @return whether the row still carried the run's token (the completion was
	 * recorded); without a state, whether the lease was still ours
	 * @throws SQLException on a database error
	 */
	boolean release(Connection connection, HeldLease lease, Duration lockAtLeastFor, RunCompletion completion)
			throws SQLException {
		MapSqlParameterSource parameters = new MapSqlParameterSource()
			.addValue("lockAtLeastForMillis", lockAtLeastFor.toMillis())
			.addValue("releasedToken", releasedToken(lease.leaseToken()))
			.addValue("name", lease.jobName())
			.addValue("leaseToken", lease.leaseToken());
		JdbcStatement release = this.release;
		RunState state = completion.state();
		if (state != null) {
			release = this.releaseRun;
			parameters.addValue("runState", state.value())
				.addValue("retryDelayMillis", completion.retryDelay().toMillis())
				.addValue("fencingToken", lease.fencingToken());
		}
		try (PreparedStatement statement = release.prepare(connection, parameters)) {
			if (statement.executeUpdate() > 0) {
				return true;
			}
		}
		// a driver that counts the rows an UPDATE changed rather than those it matched
		// (MySQL Connector/J and MariaDB Connector/J with useAffectedRows=true) counts
		// none for a repeated completion, which matches the row and leaves it as it is:
		// the completion is superseded only when the row no longer carries the run's
		// token (tokens are never handed out again, so a row that carries it now did so
		// when the UPDATE ran)
		return state != null && carriesRunToken(connection, lease);
	}

	private boolean carriesRunToken(Connection connection, HeldLease lease) throws SQLException {
		try (PreparedStatement statement = this.selectState.prepare(connection,
				new MapSqlParameterSource("name", lease.jobName())); ResultSet resultSet = statement.executeQuery()) {
			if (!resultSet.next()) {
				return false;
			}
			String token = resultSet.getString("lease_token");
			return lease.leaseToken().equals(token) || releasedToken(lease.leaseToken()).equals(token);
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
	 * Run a query on the run table that returns nothing, so that a missing table shows.
	 * @param connection a connection
	 * @throws SQLException on a database error
	 */
	void probeRunTable(Connection connection) throws SQLException {
		try (PreparedStatement statement = this.runProbe.prepare(connection, new MapSqlParameterSource())) {
			statement.executeQuery().close();
		}
	}

	/**
	 * Return the run columns the lease table lacks (a table created before 0.2.0).
	 * @param connection a connection
	 * @return the missing columns, in {@link #RUN_COLUMNS} order
	 * @throws SQLException on a database error
	 */
	List<String> missingRunColumns(Connection connection) throws SQLException {
		Set<String> present = new HashSet<>();
		try (PreparedStatement statement = this.columns.prepare(connection, new MapSqlParameterSource());
				ResultSet resultSet = statement.executeQuery()) {
			ResultSetMetaData metaData = resultSet.getMetaData();
			for (int i = 1; i <= metaData.getColumnCount(); i++) {
				present.add(metaData.getColumnLabel(i).toLowerCase(Locale.ROOT));
			}
		}
		return RUN_COLUMNS.stream().filter((column) -> !present.contains(column)).toList();
	}

	/**
	 * Return the statement that adds a run column to the lease table.
	 * @param column one of {@link #RUN_COLUMNS}
	 * @return the {@code ALTER TABLE} statement
	 */
	String addColumnStatement(String column) {
		String type = switch (column) {
			case "run_slot", "retry_at", "recover_at" -> timestampType();
			case "attempt" -> "INT";
			case "run_state" -> "VARCHAR(16)";
			default -> throw new IllegalArgumentException("Unknown run column '" + column + "'");
		};
		return "ALTER TABLE " + this.table + " ADD COLUMN " + column + " " + type;
	}

	/**
	 * Return the SQL type of the time columns.
	 * @return the type
	 */
	abstract String timestampType();

	/**
	 * Insert or replace a run record, then keep the newest {@code maxRuns} of its job.
	 * @param connection an auto-commit connection
	 * @param run the record
	 * @param maxRuns how many records of the job to keep
	 * @throws SQLException on a database error
	 */
	void recordRun(Connection connection, RunRecord run, int maxRuns) throws SQLException {
		MapSqlParameterSource parameters = new MapSqlParameterSource().addValue("name", run.jobName())
			.addValue("fencingToken", run.fencingToken())
			.addValue("slot", instant(run.slot()))
			.addValue("attempt", run.attempt())
			.addValue("owner", run.owner())
			.addValue("trigger", run.trigger().name())
			.addValue("state", run.state().value())
			.addValue("startedAt", instant(run.startedAt()))
			.addValue("finishedAt", instant(run.finishedAt()))
			.addValue("error", new SqlParameterValue(Types.VARCHAR, run.error()));
		try (PreparedStatement statement = this.runRecord.prepare(connection, parameters)) {
			statement.executeUpdate();
		}
		try (PreparedStatement statement = this.runTrim.prepare(connection,
				new MapSqlParameterSource("name", run.jobName()).addValue("maxRuns", maxRuns))) {
			statement.executeUpdate();
		}
	}

	/**
	 * Mark every run of a job with a lower fencing token than the given one that is still
	 * recorded as running as lost.
	 * @param connection an auto-commit connection
	 * @param jobName the job name
	 * @param fencingToken the fencing token of the claim that took the job over
	 * @throws SQLException on a database error
	 */
	void markRunLost(Connection connection, String jobName, long fencingToken) throws SQLException {
		try (PreparedStatement statement = this.runMarkLost.prepare(connection,
				new MapSqlParameterSource("name", jobName).addValue("fencingToken", fencingToken))) {
			statement.executeUpdate();
		}
	}

	/**
	 * Return the newest run records of a job, newest first.
	 * @param connection an auto-commit connection
	 * @param jobName the job name
	 * @param limit the most records to return
	 * @return the records
	 * @throws SQLException on a database error
	 */
	List<RunRecord> runHistory(Connection connection, String jobName, int limit) throws SQLException {
		List<RunRecord> history = new ArrayList<>();
		try (PreparedStatement statement = this.runHistory.prepare(connection,
				new MapSqlParameterSource("name", jobName).addValue("limit", limit));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				Instant startedAt = getInstant(resultSet, "started_at");
				history.add(new RunRecord(resultSet.getString("name"), getInstant(resultSet, "slot"),
						resultSet.getInt("attempt"), resultSet.getLong("fencing_token"), resultSet.getString("owner"),
						RunTrigger.valueOf(resultSet.getString("run_trigger")),
						RunState.fromValue(resultSet.getString("state")),
						(startedAt != null) ? startedAt : Instant.EPOCH, getInstant(resultSet, "finished_at"),
						resultSet.getString("error")));
			}
		}
		return history;
	}

	/**
	 * Return the end of each job's latest successful run.
	 * @param connection an auto-commit connection
	 * @param jobNames the jobs
	 * @return the end times by job
	 * @throws SQLException on a database error
	 */
	Map<String, Instant> lastSuccess(Connection connection, Collection<String> jobNames) throws SQLException {
		Map<String, Instant> lastSuccess = new LinkedHashMap<>();
		List<String> names = List.copyOf(new LinkedHashSet<>(jobNames));
		for (int from = 0; from < names.size(); from += JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT) {
			List<String> chunk = names.subList(from,
					Math.min(from + JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT, names.size()));
			try (PreparedStatement statement = this.runLastSuccess.prepare(connection,
					new MapSqlParameterSource("names", chunk)); ResultSet resultSet = statement.executeQuery()) {
				while (resultSet.next()) {
					Instant finishedAt = getInstant(resultSet, "finished_at");
					if (finishedAt != null) {
						lastSuccess.put(resultSet.getString("name"), finishedAt);
					}
				}
			}
		}
		return lastSuccess;
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
