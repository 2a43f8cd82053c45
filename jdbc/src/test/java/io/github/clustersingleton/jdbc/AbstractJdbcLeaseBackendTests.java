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
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.contract.AbstractLeaseBackendContractTests;
import io.github.clustersingleton.contract.StoreTimeTravel;
import io.github.clustersingleton.test.CountingDataSource;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The backend contract plus JDBC-specific behavior, run by one subclass per database
 * against the default table {@code cluster_singleton_lease}, created by
 * {@link JdbcLeaseSchemaInitializer}.
 *
 * @author cluster-singleton contributors
 */
abstract class AbstractJdbcLeaseBackendTests extends AbstractLeaseBackendContractTests {

	private HikariDataSource pool;

	private CountingDataSource dataSource;

	private JdbcLeaseBackend backend;

	private JdbcLeaseBackend unreachableBackend;

	private final String isolatedTable = "cs_ctl_" + UUID.randomUUID().toString().substring(0, 8) + "_lease";

	private boolean isolatedTableCreated;

	/**
	 * Return a new pool on the database under test.
	 * @return the pool
	 */
	protected abstract HikariDataSource createPool();

	/**
	 * Return a data source on the database under test that cannot be reached.
	 * @return the data source
	 */
	protected abstract DataSource createUnreachableDataSource();

	/**
	 * Return the name of a schema that the test user may create tables in.
	 * @return the schema name
	 */
	protected abstract String schemaName();

	/**
	 * Return whether the database is an embedded one.
	 * @return whether it is embedded
	 */
	protected boolean isEmbedded() {
		return false;
	}

	/**
	 * Adapt the data source the backend uses, before the statements are counted.
	 * @param dataSource the pool
	 * @return the data source to use
	 */
	protected DataSource adapt(DataSource dataSource) {
		return dataSource;
	}

	/**
	 * Return the round trips of a failed acquisition: the upsert, then a {@code SELECT}
	 * of the holder, on most databases.
	 */
	@Override
	protected int expectedFailedAcquireRoundTrips() {
		return 2;
	}

	/**
	 * Return 2 on every database: the statement refuses without a row to return, and
	 * {@code select-state.sql} tells why.
	 */
	@Override
	protected int expectedClockSkewRoundTrips() {
		return 2;
	}

	@BeforeAll
	void createBackend() {
		this.pool = createPool();
		this.dataSource = new CountingDataSource(adapt(this.pool));
		assertThat(new JdbcLeaseSchemaInitializer(this.dataSource, JdbcLeaseBackend.DEFAULT_TABLE_NAME,
				DatabaseInitializationMode.ALWAYS)
			.initialize()).isTrue();
		this.backend = new JdbcLeaseBackend(this.dataSource, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		this.unreachableBackend = new JdbcLeaseBackend(createUnreachableDataSource(),
				JdbcLeaseBackend.DEFAULT_TABLE_NAME);
	}

	@AfterAll
	void removeLeasesAndClosePool() throws SQLException {
		if (this.pool == null) {
			return;
		}
		if (this.isolatedTableCreated) {
			try (Connection connection = this.pool.getConnection();
					Statement statement = connection.createStatement()) {
				for (String table : List.of(this.isolatedTable, isolatedRunTable(),
						JdbcPlatform.manualRunTableName(this.isolatedTable))) {
					statement.execute("DROP TABLE IF EXISTS " + table);
				}
			}
		}
		try (Connection connection = this.pool.getConnection();
				PreparedStatement statement = connection
					.prepareStatement("DELETE FROM " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " WHERE name LIKE ?")) {
			statement.setString(1, jobNamePrefix() + "%");
			statement.executeUpdate();
		}
		finally {
			this.pool.close();
		}
	}

	/**
	 * Return the pool the backend under test uses.
	 * @return the pool
	 */
	protected final HikariDataSource pool() {
		return this.pool;
	}

	@Override
	protected LeaseBackend backend() {
		return this.backend;
	}

	@Override
	protected LeaseBackend unreachableBackend() {
		return this.unreachableBackend;
	}

	/**
	 * Return {@code true}: the JDBC store keeps controls.
	 */
	@Override
	protected boolean supportsControls() {
		return true;
	}

	@Override
	protected boolean supportsPresence() {
		return true;
	}

	/**
	 * Return a new backend on lease, run and run-now request tables of this test class's
	 * own, created on first use and dropped after the class.
	 */
	@Override
	protected synchronized LeaseBackend isolatedBackend() {
		if (!this.isolatedTableCreated) {
			assertThat(new JdbcLeaseSchemaInitializer(this.dataSource, this.isolatedTable, isolatedRunTable(),
					DatabaseInitializationMode.ALWAYS)
				.initialize()).isTrue();
			this.isolatedTableCreated = true;
		}
		return new JdbcLeaseBackend(this.dataSource, this.isolatedTable, isolatedRunTable());
	}

	private String isolatedRunTable() {
		return this.isolatedTable.replace("_lease", "_run");
	}

	@Override
	protected long roundTrips() {
		return this.dataSource.getCount();
	}

	@Override
	protected void resetRoundTrips() {
		this.dataSource.reset();
	}

	@Override
	protected StoreTimeTravel timeTravel() {
		return new JdbcStoreTimeTravel(this.pool, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
	}

	@Test
	void idIsJdbc() {
		assertThat(this.backend.id()).isEqualTo("jdbc");
	}

	@Test
	void theRunLedgerIsTrimmedAtEveryTenthOfItsSizeOfWrites() {
		String job = jobName("ledger-trim");
		RunLedger ledger = backend().runLedger();
		Instant start = Instant.parse("2026-01-01T10:00:00Z");
		// 30 runs kept, so a trim at every third write; fencing tokens that are not
		// multiples of three, which would ask for a trim too
		long[] tokens = java.util.stream.LongStream.iterate(1, (token) -> token + 1)
			.filter((token) -> token % 3 != 0)
			.limit(34)
			.toArray();
		for (int write = 1; write <= tokens.length; write++) {
			long token = tokens[write - 1];
			RunRecord run = new RunRecord(job, start.plusSeconds(60 * token), 1, token, "node-a", RunTrigger.SCHEDULED,
					RunState.SUCCEEDED, start.plusSeconds(token), start.plusSeconds(token + 1), null);
			if (write % 2 == 0) {
				ledger.recordAll(List.of(run), 30);
			}
			else {
				ledger.record(run, 30);
			}
			List<RunRecord> history = ledger.history(job, 100);
			if (write == 31) {
				assertThat(history).as("after the 31st write, which trims").hasSize(30);
				assertThat(history.get(29).fencingToken()).isEqualTo(tokens[1]);
			}
			if (write == 33) {
				assertThat(history).as("after two writes that do not trim").hasSize(32);
			}
		}
		assertThat(ledger.history(job, 100)).as("after the 34th write, which trims")
			.extracting(RunRecord::fencingToken)
			.hasSize(30)
			.startsWith(tokens[33])
			.endsWith(tokens[4]);
	}

	@Test
	void leaseChangesDoNotJoinCallersTransaction() {
		String job = jobName("transaction");
		LeaseRequest request = request(job, "node-a");
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		transaction.executeWithoutResult((status) -> {
			// the caller's transaction holds a connection of its own
			new JdbcTemplate(this.dataSource).queryForObject("SELECT 1", Integer.class);
			assertThat(this.backend.tryAcquire(request).isAcquired()).isTrue();
			status.setRollbackOnly();
		});
		assertThat(this.backend.describe(job)).get().satisfies((info) -> {
			assertThat(info.holder()).isEqualTo("node-a");
			assertThat(info.live()).isTrue();
		});
		transaction.executeWithoutResult((status) -> {
			this.backend.release(HeldLease.of(request, 1), Duration.ZERO);
			status.setRollbackOnly();
		});
		assertThat(this.backend.describe(job)).get().extracting(LeaseInfo::live).isEqualTo(false);
	}

	@Test
	void recoveryClaimsAndFirstClaimsOfTheNextSlotRaceAndExactlyOneWins() throws Exception {
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		Instant s2 = s1.plusSeconds(60);
		int contenders = 8;
		ExecutorService pool = Executors.newFixedThreadPool(contenders);
		try {
			TestStores.warmUp(this.pool, contenders);
			for (int round = 0; round < 10; round++) {
				String job = jobName("race-" + round);
				LeaseRequest first = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), LONG_TTL, s1)
					.withPolicy(policy, null);
				long fence = this.backend.tryAcquire(first).fencingToken();
				// node-a dies: its run stays 'running' on an expired lease, which a
				// recovery claim marks (with a grace of 1 ms)
				assertThat(this.backend.forceRelease(job)).isTrue();
				markForRecovery(job, policy);
				// the 1 ms grace passes (the database's clock) while the run stays
				// pending
				await().pollDelay(Duration.ofMillis(10))
					.atMost(Duration.ofSeconds(10))
					.until(() -> this.backend.findPending(Map.of(job, policy)).contains(job));
				CountDownLatch start = new CountDownLatch(1);
				List<Future<AcquireResult>> results = new ArrayList<>();
				List<String> owners = new ArrayList<>();
				for (int i = 0; i < contenders; i++) {
					String owner = "node-" + i;
					owners.add(owner);
					LeaseRequest request = (i % 2 == 0)
							? LeaseRequest.recovery(job, owner, UUID.randomUUID().toString(), LONG_TTL, policy)
							: new LeaseRequest(job, owner, UUID.randomUUID().toString(), LONG_TTL, s2)
								.withPolicy(policy, s1);
					results.add(pool.submit(() -> {
						start.await();
						return this.backend.tryAcquire(request);
					}));
				}
				start.countDown();
				List<Integer> winners = new ArrayList<>();
				AcquireResult won = null;
				for (int i = 0; i < contenders; i++) {
					AcquireResult result = results.get(i).get(30, TimeUnit.SECONDS);
					if (result.isAcquired()) {
						winners.add(i);
						won = result;
					}
				}
				assertThat(winners).as("winners of round %d", round).hasSize(1);
				assertThat(won.fencingToken()).isEqualTo(fence + 1);
				assertThat(won.run()).isEqualTo(new SlotRun(s1, 1, RunState.RUNNING));
				assertThat(won.lastSlot()).isEqualTo((winners.get(0) % 2 == 0) ? s1 : s2);
				assertThat(this.backend.describe(job)).get()
					.extracting(LeaseInfo::holder)
					.isEqualTo(owners.get(winners.get(0)));
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void startRunAndReleaseOnlyTouchALeaseThatIsStillHeld() {
		ClaimPolicy policy = new ClaimPolicy(true, true, 3, false);
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		String job = jobName("taken-over");
		LeaseRequest first = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), LONG_TTL, s1)
			.withPolicy(policy, null);
		HeldLease lease = HeldLease.of(first, this.backend.tryAcquire(first).fencingToken());
		this.backend.forceRelease(job);
		markForRecovery(job, policy);
		LeaseRequest recovery = LeaseRequest.recovery(job, "node-b", UUID.randomUUID().toString(), LONG_TTL, policy);
		AcquireResult taken = await().atMost(Duration.ofSeconds(10))
			.pollDelay(Duration.ZERO)
			.until(() -> this.backend.tryAcquire(recovery), AcquireResult::isAcquired);
		// node-a comes back: it can neither start a run nor end one
		assertThat(this.backend.startRun(lease, s1, 2)).isEmpty();
		this.backend.release(lease, Duration.ZERO, RunCompletion.failed(Duration.ZERO));
		HeldLease nodeB = HeldLease.of(recovery, taken.fencingToken());
		assertThat(this.backend.startRun(nodeB, s1, 2)).hasValue(taken.fencingToken() + 1);
		this.backend.release(new HeldLease(job, "node-b", recovery.leaseToken(), taken.fencingToken() + 1, s1),
				Duration.ZERO, RunCompletion.succeeded());
		assertThat(this.backend.findPending(Map.of(job, policy))).isEmpty();
		assertThat(this.backend
			.tryAcquire(LeaseRequest.recovery(job, "node-c", UUID.randomUUID().toString(), LONG_TTL, policy))
			.isAcquired()).isFalse();
	}

	/**
	 * A recovery mark written while the holder's renewal waited for the row lock (the
	 * lease had just expired; the renewal, started before, still sees it live) must not
	 * outlive the renewal: the next expiry starts a new mark and grace, or a completion
	 * on its way would be superseded at once.
	 */
	@Test
	void aRenewalClearsARecoveryMarkSoTheNextExpiryStartsANewGrace() throws SQLException {
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
		Instant s1 = Instant.parse("2026-01-01T11:00:00Z");
		String job = jobName("renewed-mark");
		LeaseRequest first = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), LONG_TTL, s1)
			.withPolicy(policy, null);
		HeldLease lease = HeldLease.of(first, this.backend.tryAcquire(first).fencingToken());
		// the state that interleaving leaves: a live lease carrying a mark whose grace
		// has passed
		try (Connection connection = this.pool.getConnection();
				PreparedStatement mark = connection.prepareStatement(
						"UPDATE " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " SET recover_at = ? WHERE name = ?")) {
			mark.setTimestamp(1, java.sql.Timestamp.valueOf("2000-01-01 00:00:00"));
			mark.setString(2, job);
			assertThat(mark.executeUpdate()).isOne();
		}
		assertThat(this.backend.renew(List.of(lease), LONG_TTL)).containsExactly(lease.leaseToken());
		// the holder's renewals stop, the lease ends (forced here, as at its expiry)
		this.backend.forceRelease(job);
		LeaseRequest recovery = LeaseRequest.recovery(job, "node-b", UUID.randomUUID().toString(), LONG_TTL, policy);
		assertThat(this.backend.tryAcquire(recovery).isAcquired()).as("the first recovery claim only marks").isFalse();
		// the completion the holder sends meanwhile is recorded, and nothing is pending
		assertThat(this.backend.completeRun(lease, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		assertThat(this.backend.findPending(Map.of(job, policy))).isEmpty();
	}

	/**
	 * Make the recovery claim that marks a run still recorded as running, with a TTL so
	 * short that the grace after which a claim may take it over is 1 ms.
	 */
	private void markForRecovery(String job, ClaimPolicy policy) {
		LeaseRequest marking = LeaseRequest.recovery(job, "node-marker", UUID.randomUUID().toString(),
				Duration.ofMillis(4), policy);
		assertThat(marking.recoveryGrace()).isEqualTo(Duration.ofMillis(1));
		assertThat(this.backend.tryAcquire(marking).isAcquired()).as("the first recovery claim only marks").isFalse();
	}

	/**
	 * Many nodes claim the same new slot at the same instant, as at the top of the
	 * minute: one wins, and every loser reports why from the row as the winner left it
	 * (slot done, with the claimed slot), not from the row as it was before the winner
	 * committed.
	 */
	@Test
	void losersOfASlotRaceReportTheWinnersSlot() throws Exception {
		Instant slot = Instant.parse("2026-01-01T00:00:00Z");
		for (int round = 0; round < 20; round++) {
			String job = jobName("slot-herd-" + round);
			this.backend.release(acquire(request(job, "node-before", LONG_TTL, slot)), Duration.ZERO);
			List<AcquireResult> results = race(8, (owner) -> request(job, owner, LONG_TTL, slot.plusSeconds(60)));
			assertThat(results).filteredOn(AcquireResult::isAcquired).as("round %d", round).hasSize(1);
			assertThat(results).filteredOn((result) -> !result.isAcquired())
				.as("round %d", round)
				.allSatisfy((result) -> {
					assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.SLOT_DONE);
					assertThat(result.lastSlot()).isEqualTo(slot.plusSeconds(60));
				});
		}
	}

	/**
	 * Many nodes claim the same expired lease at the same instant, without a slot: one
	 * wins, and every loser names the winner as the holder.
	 */
	@Test
	void losersOfALeaseRaceNameTheWinner() throws Exception {
		for (int round = 0; round < 20; round++) {
			String job = jobName("lease-herd-" + round);
			this.backend.release(acquire(request(job, "node-before")), Duration.ZERO);
			List<AcquireResult> results = race(8, (owner) -> request(job, owner));
			assertThat(results).filteredOn(AcquireResult::isAcquired).as("round %d", round).hasSize(1);
			String winner = "node-"
					+ results.indexOf(results.stream().filter(AcquireResult::isAcquired).findFirst().orElseThrow());
			assertThat(results).filteredOn((result) -> !result.isAcquired())
				.as("round %d", round)
				.allSatisfy((result) -> {
					assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.HELD);
					assertThat(result.holder()).isEqualTo(winner);
				});
		}
	}

	/**
	 * Send one acquisition per node at the same instant.
	 * @param nodes how many nodes race
	 * @param requests the request of the node named by its argument
	 * @return the results, in the order of the nodes ({@code node-0} first)
	 */
	private List<AcquireResult> race(int nodes, Function<String, LeaseRequest> requests) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(nodes);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<AcquireResult>> futures = new ArrayList<>();
			for (int i = 0; i < nodes; i++) {
				LeaseRequest request = requests.apply("node-" + i);
				futures.add(executor.submit(() -> {
					start.await();
					return this.backend.tryAcquire(request);
				}));
			}
			start.countDown();
			List<AcquireResult> results = new ArrayList<>();
			for (Future<AcquireResult> future : futures) {
				results.add(future.get(30, TimeUnit.SECONDS));
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void renewalOfMoreThan1000LeasesIsChunked() {
		int count = JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT + 1;
		List<HeldLease> leases = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			// a TTL that outlives acquiring them all on a busy machine
			leases.add(acquire(request(jobName("chunk-" + i), "node-a", Duration.ofMinutes(10), null)));
		}
		resetRoundTrips();
		assertThat(this.backend.renew(leases, LONG_TTL)).hasSize(count);
		assertThat(roundTrips()).isEqualTo(2);
	}

	@Test
	void jobNamesUpTo200CharactersAreValid() {
		String name = jobName("longest-");
		String longest = name + "j".repeat(200 - name.length());
		assertThatNoException().isThrownBy(() -> this.backend.validateJobName(longest));
		assertThat(this.backend.tryAcquire(request(longest, "node-a")).isAcquired()).isTrue();
		assertThat(this.backend.describe(longest)).get().extracting(LeaseInfo::holder).isEqualTo("node-a");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName(longest + "x"))
			.withMessageContaining("201")
			.withMessageContaining("at most 200 characters")
			.withMessageContaining("column 'name'");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName(""))
			.withMessageContaining("empty");
	}

	@Test
	void customTableNamesWork() {
		String plain = uniqueTableName("cs_custom");
		String qualified = schemaName() + "." + uniqueTableName("cs_custom");
		try {
			for (String table : List.of(plain, qualified)) {
				assertThat(new JdbcLeaseSchemaInitializer(this.dataSource, table, DatabaseInitializationMode.ALWAYS)
					.initialize()).isTrue();
				// twice: the script runs against an existing table
				assertThat(new JdbcLeaseSchemaInitializer(this.dataSource, table, DatabaseInitializationMode.ALWAYS)
					.initialize()).isTrue();
				JdbcLeaseBackend custom = new JdbcLeaseBackend(this.dataSource, table);
				custom.probe();
				String job = jobName("custom");
				LeaseRequest request = request(job, "node-a");
				HeldLease lease = HeldLease.of(request, custom.tryAcquire(request).fencingToken());
				assertThat(lease.fencingToken()).isEqualTo(1);
				assertThat(custom.renew(List.of(lease), LONG_TTL)).containsExactly(lease.leaseToken());
				custom.release(lease, Duration.ZERO);
				assertThat(custom.describe(job)).get().extracting(LeaseInfo::live).isEqualTo(false);
				// the default table never saw the job
				assertThat(this.backend.describe(job)).isEmpty();
			}
		}
		finally {
			dropTables(plain, qualified);
		}
	}

	@Test
	void probeFailsWhenTableIsMissing() {
		JdbcLeaseBackend missing = new JdbcLeaseBackend(this.dataSource, uniqueTableName("cs_missing"));
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(missing::probe);
	}

	@Test
	void errorsNameTheTableTheStatementWasAbout() {
		String runTable = uniqueTableName("cs_no_run");
		JdbcLeaseBackend missingRunTable = new JdbcLeaseBackend(this.dataSource, JdbcLeaseBackend.DEFAULT_TABLE_NAME,
				runTable);
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> missingRunTable.runLedger().history(jobName("history"), 5))
			.withMessageContaining("in run table '" + runTable + "'")
			.withMessageNotContaining("lease table");
		String leaseTable = uniqueTableName("cs_no_lease");
		JdbcLeaseBackend missingLeaseTable = new JdbcLeaseBackend(this.dataSource, leaseTable);
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(missingLeaseTable::probe)
			.withMessageContaining("in lease table '" + leaseTable + "'");
	}

	@Test
	void initializationModes() {
		String table = uniqueTableName("cs_mode");
		try {
			assertThat(new JdbcLeaseSchemaInitializer(this.dataSource, table, DatabaseInitializationMode.NEVER)
				.initialize()).isFalse();
			JdbcLeaseBackend backend = new JdbcLeaseBackend(this.dataSource, table);
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(backend::probe);
			assertThat(new JdbcLeaseSchemaInitializer(this.dataSource, table, DatabaseInitializationMode.EMBEDDED)
				.initialize()).isEqualTo(isEmbedded());
			if (isEmbedded()) {
				backend.probe();
			}
			else {
				assertThatExceptionOfType(DataAccessException.class).isThrownBy(backend::probe);
			}
		}
		finally {
			dropTables(table);
		}
	}

	@Test
	void concurrentSchemaInitializationSucceeds() throws Exception {
		int threads = 8;
		List<String> tables = new ArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			TestStores.warmUp(this.pool, threads);
			for (int round = 0; round < 4; round++) {
				String table = uniqueTableName("cs_init");
				tables.add(table);
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Boolean>> results = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					results.add(executor.submit(() -> {
						start.await();
						return new JdbcLeaseSchemaInitializer(this.dataSource, table, DatabaseInitializationMode.ALWAYS)
							.initialize();
					}));
				}
				start.countDown();
				for (Future<Boolean> result : results) {
					assertThat(result.get(30, TimeUnit.SECONDS)).isTrue();
				}
				new JdbcLeaseBackend(this.dataSource, table).probe();
			}
		}
		finally {
			executor.shutdownNow();
			dropTables(tables.toArray(String[]::new));
		}
	}

	private static String uniqueTableName(String prefix) {
		return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
	}

	private void dropTables(String... tables) {
		try (Connection connection = this.pool.getConnection(); Statement statement = connection.createStatement()) {
			for (String table : tables) {
				// the schema script creates the manual-run table beside the lease table
				statement.execute("DROP TABLE IF EXISTS " + JdbcPlatform.manualRunTableName(table));
				statement.execute("DROP TABLE IF EXISTS " + table);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Failed to drop test tables", ex);
		}
	}

}
