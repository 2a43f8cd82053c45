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
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialAcquisitionException;
import io.github.clustersingleton.NodePresence;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.StoreClockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.util.Assert;

/**
 * {@link LeaseBackend} that keeps leases in a database table, one row per job, on
 * PostgreSQL, MySQL, MariaDB or H2 (detected from the connection's metadata on first
 * use). The table is described by the {@code schema-<platform>.sql} scripts next to this
 * class; see {@link JdbcLeaseSchemaInitializer}.
 * <p>
 * Every expiry decision uses the database's clock, never the JVM's. Each operation runs
 * on its own auto-commit connection taken straight from the {@link DataSource}, never
 * through Spring's transaction synchronization, so lease changes are never part of (or
 * rolled back with) a caller's transaction. Acquisition is one statement on PostgreSQL,
 * MariaDB and H2 and two on MySQL; the renewal of every held lease is one statement.
 * <p>
 * Jobs with a recovery or misfire policy keep their current run in five more columns of
 * their row ({@code run_slot}, {@code attempt}, {@code run_state}, {@code retry_at} and
 * the recovery mark {@code recover_at}), written by the claim's own statement; a run's
 * completion is recorded by the row's {@code lease_token}, which stays until the next
 * claim, even after the lease expired; the {@link #runLedger() run ledger} is a second
 * table ({@code cluster_singleton_run} by default).
 * <p>
 * Database errors are thrown as Spring's {@link DataAccessException}s; an unsupported
 * database as an {@link IllegalStateException}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class JdbcLeaseBackend implements LeaseBackend {

	/**
	 * The default name of the lease table.
	 */
	public static final String DEFAULT_TABLE_NAME = JdbcPlatform.DEFAULT_TABLE_NAME;

	/**
	 * The default name of the run ledger's table.
	 */
	public static final String DEFAULT_RUN_TABLE_NAME = JdbcPlatform.DEFAULT_RUN_TABLE_NAME;

	/**
	 * The longest job name the {@code name} column holds.
	 */
	public static final int MAX_JOB_NAME_LENGTH = 200;

	/**
	 * The most leases one renewal statement carries; more are renewed in chunks.
	 */
	static final int MAX_LEASES_PER_STATEMENT = 1000;

	private final ConnectionRunner connections;

	private static final Log logger = LogFactory.getLog(JdbcLeaseBackend.class);

	private final String tableName;

	private final String runTableName;

	private final RunLedger runLedger = new JdbcRunLedger(this);

	private final JobControls controls = new JdbcJobControls(this);

	private final NodePresence presence = new JdbcNodePresence(this);

	private final String manualRunTableName;

	private volatile @Nullable PlatformStatements statements;

	/**
	 * Guards the detection of the platform, which reads the connection's metadata: a lock
	 * rather than a monitor, so that virtual threads do not pin their carrier threads
	 * there (JDK 21 to 23).
	 */
	private final ReentrantLock statementsLock = new ReentrantLock();

	private @Nullable JdbcLeaseSchemaInitializer schemaInitializer;

	private Duration renewalTimeout = Duration.ZERO;

	private StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

	/**
	 * Create a new instance.
	 * @param dataSource the data source of the database that holds the lease table
	 * @param tableName the name of the lease table, optionally schema-qualified
	 * @throws IllegalArgumentException when the table name is not an SQL identifier
	 */
	public JdbcLeaseBackend(DataSource dataSource, String tableName) {
		this(dataSource, tableName, DEFAULT_RUN_TABLE_NAME);
	}

	/**
	 * Create a new instance.
	 * @param dataSource the data source of the database that holds the tables
	 * @param tableName the name of the lease table, optionally schema-qualified
	 * @param runTableName the name of the run ledger's table, optionally schema-qualified
	 * @throws IllegalArgumentException when a table name is not an SQL identifier
	 * @since 0.1.0
	 */
	public JdbcLeaseBackend(DataSource dataSource, String tableName, String runTableName) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		this.connections = new ConnectionRunner(dataSource);
		this.tableName = JdbcPlatform.validateTableName(tableName);
		this.runTableName = JdbcPlatform.validateTableName(runTableName, JdbcPlatform.RUN_TABLE_NAME_PROPERTY);
		this.manualRunTableName = JdbcPlatform.manualRunTableName(this.tableName);
	}

	@Override
	public String id() {
		return "jdbc";
	}

	/**
	 * Set how long one renewal round trip may take before it is abandoned, so that a
	 * renewal stuck on a connection that no longer answers (a TCP black hole during a
	 * database failover) ends in time for the watchdog's next tick to retry on another
	 * connection. It is the connection's network timeout for the renewal; on MySQL and
	 * MariaDB each renewal statement also gets a query timeout, always longer (whole
	 * seconds, JDBC's unit), and on PostgreSQL none, so that a renewal never ends by a
	 * cancel that the server could answer with success after a commit that did not reach
	 * its synchronous standby. The auto-configuration sets a quarter of the lease TTL;
	 * zero leaves the driver's defaults. Acquire and release carry no timeout of their
	 * own: drivers charge for one on every statement, and the DataSource's own timeouts
	 * bound them. H2, being embedded, gets none.
	 * @param renewalTimeout the timeout
	 */
	public void setRenewalTimeout(Duration renewalTimeout) {
		Assert.isTrue(renewalTimeout != null && !renewalTimeout.isNegative(), "'renewalTimeout' must not be negative");
		this.renewalTimeout = renewalTimeout;
		PlatformStatements statements = this.statements;
		if (statements != null) {
			statements.lease().setRenewalTimeout(renewalTimeout);
		}
	}

	/**
	 * Return how long one renewal round trip may take.
	 * @return the renewal timeout, zero for the driver's defaults
	 */
	public Duration getRenewalTimeout() {
		return this.renewalTimeout;
	}

	/**
	 * Set the timeout of each renewal round trip.
	 * @param queryTimeout the timeout
	 * @deprecated since 0.2.0 in favour of {@link #setRenewalTimeout(Duration)}, which it
	 * calls
	 */
	@Deprecated(since = "0.2.0")
	public void setQueryTimeout(Duration queryTimeout) {
		setRenewalTimeout(queryTimeout);
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		Assert.notNull(observer, "'observer' must not be null");
		this.storeClockObserver = observer;
		PlatformStatements statements = this.statements;
		if (statements != null) {
			statements.lease().setStoreClockObserver(observer);
		}
	}

	/**
	 * Set the initializer that {@link #initialize()} runs before it checks the table.
	 * @param schemaInitializer the schema initializer, or {@code null} for none
	 */
	public void setSchemaInitializer(@Nullable JdbcLeaseSchemaInitializer schemaInitializer) {
		this.schemaInitializer = schemaInitializer;
	}

	/**
	 * Create the lease table when the schema initializer's mode asks for it, then check
	 * that the table answers. A failed {@code CREATE TABLE} is forgiven when the table
	 * exists anyway (for example a database user without DDL rights on a table a DBA
	 * created); a missing table fails startup; an unreachable database is logged.
	 */
	@Override
	public void initialize() {
		JdbcStoreCheck.initialize(this, this.schemaInitializer);
	}

	/**
	 * Return the name of the lease table.
	 * @return the table name
	 */
	public String getTableName() {
		return this.tableName;
	}

	/**
	 * Return the name of the table of run-now requests: the lease table's name with
	 * {@code _lease} replaced by {@code _manual_run} (or {@code _manual_run} appended).
	 * @return the table name
	 * @since 0.1.0
	 */
	public String getManualRunTableName() {
		return this.manualRunTableName;
	}

	/**
	 * Return the name of the run ledger's table.
	 * @return the table name
	 */
	public String getRunTableName() {
		return this.runTableName;
	}

	@Override
	public void validateJobName(String jobName) {
		if (jobName == null || jobName.isEmpty()) {
			throw new IllegalArgumentException("Job name must not be empty");
		}
		if (jobName.startsWith(" ")) {
			throw new IllegalArgumentException("Job name '" + jobName + "' starts with a blank; the JDBC lease "
					+ "backend keeps the rows of every job's pause and of the live nodes under such names");
		}
		if (jobName.length() > MAX_JOB_NAME_LENGTH) {
			throw new IllegalArgumentException("Job name '" + jobName + "' is " + jobName.length()
					+ " characters long; the JDBC lease backend stores at most " + MAX_JOB_NAME_LENGTH
					+ " characters in column 'name' of table '" + this.tableName + "'");
		}
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		Assert.notNull(request, "'request' must not be null");
		return execute("acquire lease of job '" + request.jobName() + "'",
				(connection, statements) -> statements.lease().claim(connection, request));
	}

	/**
	 * Claim the leases in as few round trips as the database's driver allows: on
	 * PostgreSQL up to 64 claims per round trip, each with its usual statement, run in
	 * one transaction; on MySQL and MariaDB up to 128 claims per transaction, their
	 * upserts as one JDBC batch and one read of their rows (five round trips with MariaDB
	 * Connector/J, the transaction's start and end included). A transaction chosen as a
	 * deadlock victim is sent again by itself, as any statement; a claim whose statement
	 * found no row learns why in a round trip of its own, as a single claim does. On H2,
	 * and for recovery claims, one claim after another.
	 */
	@Override
	public List<AcquireResult> tryAcquireAll(List<LeaseRequest> requests) {
		Assert.notNull(requests, "'requests' must not be null");
		PlatformStatements platform = this.statements;
		int perRoundTrip = (platform != null) ? platform.lease().claimsPerRoundTrip() : 1;
		List<@Nullable AcquireResult> results = new ArrayList<>(requests.size());
		try {
			int from = 0;
			while (from < requests.size()) {
				LeaseRequest first = requests.get(from);
				if (perRoundTrip <= 1 || first.recovery()) {
					results.add(tryAcquire(first));
					from++;
					continue;
				}
				int to = from;
				while (to < requests.size() && to - from < perRoundTrip && !requests.get(to).recovery()) {
					to++;
				}
				List<LeaseRequest> together = requests.subList(from, to);
				List<@Nullable AcquireResult> answered = execute("acquire the leases of " + together.size() + " jobs",
						(connection, statements) -> statements.lease().claimTogether(connection, together));
				for (int i = 0; i < together.size(); i++) {
					AcquireResult result = answered.get(i);
					results.add((result != null) ? result : whyNotAcquired(together.get(i)));
				}
				from = to;
			}
		}
		catch (RuntimeException ex) {
			throw PartialAcquisitionException.after(results, requests.size(), ex);
		}
		return List.copyOf(results);
	}

	/**
	 * Read why a claim sent together found no row (the job's first insert was another
	 * transaction's): it did not acquire the lease, whatever this read answers.
	 */
	private AcquireResult whyNotAcquired(LeaseRequest request) {
		try {
			return execute("read why the lease of job '" + request.jobName() + "' was not acquired",
					(connection, statements) -> statements.lease().readOutcome(connection, request));
		}
		catch (RuntimeException ex) {
			return AcquireResult.notAcquired(request, null, null);
		}
	}

	/**
	 * Whether this database's claims go together: on PostgreSQL, MySQL and MariaDB, once
	 * the first connection told the platform.
	 */
	@Override
	public boolean acquiresTogether() {
		PlatformStatements statements = this.statements;
		return statements != null && statements.lease().claimsPerRoundTrip() > 1;
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		Assert.notNull(leases, "'leases' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		if (leases.isEmpty()) {
			return Set.of();
		}
		// One entry per lease token: the update count is compared with the lease count
		List<HeldLease> distinct = HeldLease.distinctByToken(leases);
		return execute("renew " + distinct.size() + " lease(s)", (connection, statements) -> {
			Set<String> renewed = new HashSet<>();
			for (int from = 0; from < distinct.size(); from += MAX_LEASES_PER_STATEMENT) {
				List<HeldLease> chunk = distinct.subList(from,
						Math.min(from + MAX_LEASES_PER_STATEMENT, distinct.size()));
				renewed.addAll(statements.lease().renewBounded(connection, chunk, ttl));
			}
			return renewed;
		});
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lockAtLeastFor != null && !lockAtLeastFor.isNegative(), "'lockAtLeastFor' must not be negative");
		execute("release lease of job '" + lease.jobName() + "'",
				(connection, statements) -> statements.lease().release(connection, lease, lockAtLeastFor));
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		completeRun(lease, lockAtLeastFor, completion);
	}

	@Override
	public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lockAtLeastFor != null && !lockAtLeastFor.isNegative(), "'lockAtLeastFor' must not be negative");
		Assert.notNull(completion, "'completion' must not be null");
		boolean matched = execute("release lease of job '" + lease.jobName() + "'",
				(connection, statements) -> statements.lease().release(connection, lease, lockAtLeastFor, completion));
		return matched || completion.state() == null;
	}

	@Override
	public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		return execute("start a run of job '" + lease.jobName() + "'",
				(connection, statements) -> statements.lease().startRun(connection, lease, slot, attempt));
	}

	@Override
	public Set<String> findPending(Map<String, ClaimPolicy> policies) {
		Assert.notNull(policies, "'policies' must not be null");
		if (policies.isEmpty()) {
			return Set.of();
		}
		return execute("find pending work of " + policies.size() + " job(s)",
				(connection, statements) -> statements.lease().findPending(connection, policies));
	}

	@Override
	public RunLedger runLedger() {
		return this.runLedger;
	}

	/**
	 * Return the controls, kept on the lease table and in the run-now request table
	 * ({@link #getManualRunTableName()}).
	 * @return the controls
	 */
	@Override
	public Optional<JobControls> controls() {
		return Optional.of(this.controls);
	}

	/**
	 * Return the presence rows, kept on the lease table under names that start with a
	 * blank.
	 * @return the presence rows
	 */
	@Override
	public Optional<NodePresence> presence() {
		return Optional.of(this.presence);
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		return execute("describe lease of job '" + jobName + "'",
				(connection, statements) -> statements.lease().describe(connection, jobName));
	}

	@Override
	public boolean forceRelease(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		return execute("force-release lease of job '" + jobName + "'",
				(connection, statements) -> statements.lease().forceRelease(connection, jobName));
	}

	@Override
	public void probe() {
		execute("run a probe query", (connection, statements) -> {
			statements.lease().probe(connection);
			return Boolean.TRUE;
		});
	}

	/**
	 * Run an action on an auto-commit connection of its own, translating SQL errors and
	 * retrying it when the database chose it as a deadlock victim.
	 * @param <T> the result type
	 * @param task what the action does, for error messages
	 * @param action the action
	 * @return the action's result
	 */
	<T> T execute(String task, ConnectionAction<T> action) {
		return execute(task, "lease table '" + this.tableName + "'", action);
	}

	/**
	 * Run an action on the run table (the run ledger), like
	 * {@link #execute(String, ConnectionAction)}: its errors name the run table.
	 * @param <T> the result type
	 * @param task what the action does, for error messages
	 * @param action the action
	 * @return the action's result
	 */
	<T> T executeOnManualRunTable(String task, ConnectionAction<T> action) {
		return execute(task, "run-now request table '" + this.manualRunTableName + "'", action);
	}

	<T> T executeOnRunTable(String task, ConnectionAction<T> action) {
		return execute(task, "run table '" + this.runTableName + "'", action);
	}

	private <T> T execute(String task, String table, ConnectionAction<T> action) {
		return this.connections.runRetrying(this::getStatements, action::execute, (ex) -> translate(task, table, ex));
	}

	private PlatformStatements getStatements(Connection connection) throws SQLException {
		PlatformStatements statements = this.statements;
		if (statements == null) {
			this.statementsLock.lock();
			try {
				statements = this.statements;
				if (statements == null) {
					statements = PlatformStatements.of(JdbcPlatform.of(connection), this.tableName, this.runTableName);
					statements.lease().setRenewalTimeout(this.renewalTimeout);
					statements.lease().setStoreClockObserver(this.storeClockObserver);
					this.statements = statements;
				}
			}
			finally {
				this.statementsLock.unlock();
			}
		}
		return statements;
	}

	/**
	 * Translate an SQL error.
	 * @param task what the statement did
	 * @param table the table it was about, e.g.
	 * {@code lease table 'cluster_singleton_lease'}
	 * @param ex the error
	 * @return the translated error
	 */
	private DataAccessException translate(String task, String table, SQLException ex) {
		// Spring's messages do not all carry the driver's: the SQL state at least tells
		// "no such table" (42P01, 42S02) from "connection refused" (08...)
		return ConnectionRunner
			.translate("Failed to " + task + " in " + table + " (SQL state " + ex.getSQLState() + ")", ex);
	}

	/**
	 * An action on a connection.
	 *
	 * @param <T> the result type
	 */
	@FunctionalInterface
	interface ConnectionAction<T> {

		T execute(Connection connection, PlatformStatements statements) throws SQLException;

	}

}
