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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.StoreClockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The statements of the lease table on one database platform, read from the
 * {@code <platform>/*.sql} resources next to this class (see {@link JdbcStatement}) with
 * the table name filled in. What differs per platform beyond the SQL (how an acquisition
 * learns whether it won, how a renewal learns which leases it renewed) is left to the
 * subclasses; how times are bound is the platform's {@link TimeBinding}, how a renewal is
 * bounded its {@link RenewalTimeout}.
 * <p>
 * Every time comparison uses the database's clock; Java only sends durations (as
 * milliseconds) and cron slots.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
abstract sealed class LeaseStatements permits PostgreSqlLeaseStatements, MySqlLeaseStatements, H2LeaseStatements {

	protected final TimeBinding time;

	protected final RenewalTimeout renewalTimeout;

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

	protected final LeaseParameters parameters;

	protected final LeaseRows rows;

	/**
	 * Create the statements of a platform.
	 * @param table the validated table name
	 * @param platform the directory of the platform's statements
	 * @param time how the platform binds and reads times
	 * @param renewalTimeout how the platform bounds a renewal
	 */
	LeaseStatements(String table, String platform, TimeBinding time, RenewalTimeout renewalTimeout) {
		this(table, JdbcStatement.load(platform, "acquire", table, false),
				JdbcStatement.load(platform, "acquire-run", table, false), platform, time, renewalTimeout);
	}

	/**
	 * Create the statements of a platform with an acquisition statement of its own.
	 * @param table the validated table name
	 * @param acquire the acquisition statement
	 * @param acquireRun the acquisition statement of a claim with a slot or an active
	 * policy
	 * @param sharedPlatform the directory of the other statements
	 * @param time how the platform binds and reads times
	 * @param renewalTimeout how the platform bounds a renewal
	 */
	LeaseStatements(String table, JdbcStatement acquire, JdbcStatement acquireRun, String sharedPlatform,
			TimeBinding time, RenewalTimeout renewalTimeout) {
		this.time = time;
		this.renewalTimeout = renewalTimeout;
		this.parameters = new LeaseParameters(time);
		this.rows = new LeaseRows(time);
		this.acquire = acquire;
		this.acquireRun = acquireRun;
		this.recover = JdbcStatement.load(sharedPlatform, "recover", table, false);
		this.startRun = JdbcStatement.load(sharedPlatform, "start-run", table, false);
		this.releaseRun = JdbcStatement.load(sharedPlatform, "release-run", table, false);
		this.findPending = JdbcStatement.load(sharedPlatform, "find-pending", table, true);
		this.selectState = JdbcStatement.load(sharedPlatform, "select-state", table, false);
		this.renew = JdbcStatement.load(sharedPlatform, "renew", table, true);
		this.release = JdbcStatement.load(sharedPlatform, "release", table, false);
		this.describe = JdbcStatement.load(sharedPlatform, "describe", table, false);
		this.forceRelease = JdbcStatement.load(sharedPlatform, "force-release", table, false);
		this.probe = JdbcStatement.load(sharedPlatform, "probe", table, false);
	}

	/**
	 * Return the lease statements of a platform.
	 * @param platform the platform
	 * @param table the validated table name
	 * @return the statements
	 */
	static LeaseStatements of(JdbcPlatform platform, String table) {
		return switch (platform) {
			case POSTGRESQL -> new PostgreSqlLeaseStatements(table);
			case MARIADB -> new MariaDbLeaseStatements(table);
			case MYSQL -> new MySqlLeaseStatements(table);
			case H2 -> new H2LeaseStatements(table);
		};
	}

	void setRenewalTimeout(Duration renewalTimeout) {
		this.renewalTimeout.set(renewalTimeout);
	}

	void setStoreClockObserver(StoreClockObserver storeClockObserver) {
		this.rows.setStoreClockObserver(storeClockObserver);
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
	 * Claim several leases in one round trip, each as {@link #tryAcquire} would, on a
	 * platform whose driver sends several statements together
	 * ({@link #claimsPerRoundTrip()} above one).
	 * @param connection an auto-commit connection
	 * @param requests at most {@link #claimsPerRoundTrip()} first claims (no recovery
	 * claims)
	 * @return the result of each request, in order; {@code null} for a claim whose
	 * statement found no row, which {@link #readOutcome} explains
	 * @throws SQLException on a database error
	 */
	List<@Nullable AcquireResult> claimTogether(Connection connection, List<LeaseRequest> requests)
			throws SQLException {
		throw new UnsupportedOperationException("claims go one by one on this platform");
	}

	/**
	 * How many claims {@link #claimTogether} sends in one round trip.
	 * @return one here: claims go one by one
	 */
	int claimsPerRoundTrip() {
		return 1;
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
		return LeaseParameters.recordsRun(request) ? this.acquireRun : this.acquire;
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
		try (PreparedStatement statement = this.recover.prepare(connection, this.parameters.acquire(request));
				ResultSet resultSet = statement.executeQuery()) {
			if (resultSet.next()) {
				this.rows.observeStoreTime(resultSet);
				// a row that does not carry our token was only marked (a run still
				// recorded as running, taken over after the grace)
				if (request.leaseToken().equals(resultSet.getString("lease_token"))) {
					return this.rows.acquired(request, resultSet);
				}
				return AcquireResult.nothingPending();
			}
		}
		return refusedRecovery(connection, request);
	}

	/**
	 * Return the outcome of a recovery claim that neither took nor marked the job's row:
	 * {@link AcquireResult.Outcome#PAUSED paused} when the row, read now, shows the job
	 * or every job paused, else nothing pending.
	 * @param connection the connection
	 * @param request the recovery claim
	 * @return the outcome
	 * @throws SQLException on a database error
	 */
	protected final AcquireResult refusedRecovery(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = this.selectState.prepare(connection, LeaseParameters.job(request.jobName()));
				ResultSet resultSet = statement.executeQuery()) {
			if (resultSet.next() && resultSet.getInt("paused") == 1) {
				return AcquireResult.paused(this.time.read(resultSet, "last_slot"));
			}
		}
		return AcquireResult.nothingPending();
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
		try (PreparedStatement statement = this.startRun.prepare(connection,
				this.parameters.startRun(lease, slot, attempt)); ResultSet resultSet = statement.executeQuery()) {
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
					SlotRun run = this.rows.run(resultSet);
					if (policy != null && run != null && isPending(policy, run, this.time.read(resultSet, "last_slot"),
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
	 * Read the row of a job and the database's time after an acquisition
	 * ({@code select-state.sql}), and tell the outcome from it.
	 * @param connection an auto-commit connection
	 * @param request the request
	 * @return the result
	 * @throws SQLException on a database error
	 */
	final AcquireResult readOutcome(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = this.selectState.prepare(connection, LeaseParameters.job(request.jobName()));
				ResultSet resultSet = statement.executeQuery()) {
			if (!resultSet.next()) {
				return AcquireResult.notAcquired(request, null, null);
			}
			return this.rows.outcome(request, resultSet);
		}
	}

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
	 * Renew leases, bounded by the {@link RenewalTimeout renewal timeout}.
	 * @param connection an auto-commit connection
	 * @param leases at most 1000 leases with distinct lease tokens
	 * @param ttl the new time to live
	 * @return the lease tokens that were renewed
	 * @throws SQLException on a database error, including a timeout
	 */
	final Set<String> renewBounded(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException {
		return this.renewalTimeout.bound(connection, () -> renew(connection, leases, ttl));
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
			.addValue("releasedToken", LeaseParameters.releasedToken(lease.leaseToken()))
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
		try (PreparedStatement statement = this.selectState.prepare(connection, LeaseParameters.job(lease.jobName()));
				ResultSet resultSet = statement.executeQuery()) {
			if (!resultSet.next()) {
				return false;
			}
			String token = resultSet.getString("lease_token");
			return lease.leaseToken().equals(token) || LeaseParameters.releasedToken(lease.leaseToken()).equals(token);
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
			// a row that only holds controls has no holder yet
			String owner = resultSet.getString("owner");
			return Optional.of(new LeaseInfo(jobName, (owner == null || owner.isEmpty()) ? null : owner,
					resultSet.getInt("live") == 1, this.time.read(resultSet, "acquired_at"),
					this.time.read(resultSet, "expires_at"), resultSet.getLong("fencing_token"),
					this.time.read(resultSet, "last_slot")));
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

}
