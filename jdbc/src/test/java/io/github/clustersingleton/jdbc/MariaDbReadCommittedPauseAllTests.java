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
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A pause of every job against claims waiting for it, on MariaDB under READ COMMITTED: a
 * claim that waited for the pause's transaction reads the pause once committed and is
 * refused, a job the store has never seen included.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(Lifecycle.PER_CLASS)
class MariaDbReadCommittedPauseAllTests {

	private static final Instant S1 = Instant.parse("2026-01-01T10:00:00Z");

	private final String table = "cs_rc_" + UUID.randomUUID().toString().substring(0, 8) + "_lease";

	private HikariDataSource pool;

	private JdbcLeaseBackend backend;

	@BeforeAll
	void createBackend() {
		this.pool = TestStores.mariadbDataSource("@@GLOBAL.sql_mode, SESSION tx_isolation = 'READ-COMMITTED'");
		assertThat(new JdbcLeaseSchemaInitializer(this.pool, this.table, runTable(), DatabaseInitializationMode.ALWAYS)
			.initialize()).isTrue();
		this.backend = new JdbcLeaseBackend(this.pool, this.table, runTable());
	}

	@AfterAll
	void dropTablesAndClosePool() throws SQLException {
		try (Connection connection = this.pool.getConnection(); Statement statement = connection.createStatement()) {
			for (String name : List.of(this.table, runTable(), JdbcPlatform.manualRunTableName(this.table))) {
				statement.execute("DROP TABLE IF EXISTS " + name);
			}
		}
		finally {
			this.pool.close();
		}
	}

	@Test
	void sessionsRunUnderReadCommitted() throws SQLException {
		try (Connection connection = this.pool.getConnection();
				Statement statement = connection.createStatement();
				ResultSet resultSet = statement.executeQuery("SELECT @@SESSION.tx_isolation")) {
			assertThat(resultSet.next()).isTrue();
			assertThat(resultSet.getString(1)).isEqualTo("READ-COMMITTED");
		}
	}

	@Test
	void claimsThatWaitedForAPauseOfEveryJobAreRefusedOnceItCommits() throws Exception {
		String seen = "seen-" + UUID.randomUUID().toString().substring(0, 8);
		String unseen = "unseen-" + UUID.randomUUID().toString().substring(0, 8);
		String unseenWithPolicy = "unseen-policy-" + UUID.randomUUID().toString().substring(0, 8);
		LeaseRequest first = new LeaseRequest(seen, "node-a", token(), Duration.ofMillis(1), S1);
		assertThat(this.backend.tryAcquire(first).isAcquired()).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.backend.describe(seen).orElseThrow().live());
		// the claims below take their connections from the pool while the pause holds its
		// locks: open them now, so that none waits for a new connection on a loaded
		// machine
		TestStores.warmUp(this.pool, 5);
		ExecutorService executor = Executors.newFixedThreadPool(3);
		try (Connection locker = this.pool.getConnection()) {
			long lockerId = queryLong(locker, "SELECT CONNECTION_ID()");
			locker.setAutoCommit(false);
			pauseEveryJob(locker);
			Future<AcquireResult> seenClaim = executor.submit(() -> this.backend
				.tryAcquire(new LeaseRequest(seen, "node-b", token(), Duration.ofSeconds(30), S1.plusSeconds(60))));
			Future<AcquireResult> unseenClaim = executor.submit(() -> this.backend
				.tryAcquire(new LeaseRequest(unseen, "node-b", token(), Duration.ofSeconds(30), S1)));
			Future<AcquireResult> unseenPolicyClaim = executor.submit(() -> this.backend
				.tryAcquire(new LeaseRequest(unseenWithPolicy, "node-b", token(), Duration.ofSeconds(30), S1)
					.withPolicy(new ClaimPolicy(true, false, 3, true), null)));
			List<Future<AcquireResult>> claims = List.of(seenClaim, unseenClaim, unseenPolicyClaim);
			try (Connection watcher = this.pool.getConnection()) {
				// at least the claim of the job whose row the pause locked waits; the
				// claims of never-seen jobs wait for the pause-all row's lock when they
				// have started by now, and are refused after the commit either way. A
				// claim that ends while the pause holds its locks did not wait: the test
				// stops at once and says how it ended.
				await().atMost(Duration.ofSeconds(30))
					.pollInterval(Duration.ofMillis(20))
					.failFast("a claim ended while the pause held its locks", () -> {
						for (Future<AcquireResult> claim : claims) {
							assertThat(claim.isDone()).as("claim ended with %s", (Object) new ClaimEnd(claim))
								.isFalse();
						}
					})
					.until(() -> waitingBehind(watcher, lockerId) >= 1 || lockWaitsOn(watcher) >= 1);
			}
			locker.commit();
			for (Future<AcquireResult> claim : claims) {
				AcquireResult result = claim.get(30, TimeUnit.SECONDS);
				assertThat(result.isAcquired()).as("a claim that waited for the pause").isFalse();
				assertThat(result.outcome()).isEqualTo(Outcome.PAUSED);
			}
			assertThat(this.backend.describe(unseen)).as("a never-seen job's row").isEmpty();
			assertThat(this.backend.describe(unseenWithPolicy)).as("a never-seen job's row").isEmpty();
		}
		finally {
			executor.shutdownNow();
		}
		this.backend.controls().orElseThrow().resume(null, true);
		assertThat(this.backend.tryAcquire(new LeaseRequest(unseen, "node-b", token(), Duration.ofSeconds(30), S1))
			.isAcquired()).as("a claim after the resume").isTrue();
	}

	private void pauseEveryJob(Connection connection) throws SQLException {
		MapSqlParameterSource parameters = LeaseParameters.job(LeaseParameters.ALL_JOBS)
			.addValue("pausedBy", "ops")
			.addValue("reason", null);
		for (String name : List.of("control-pause", "control-pause-rows")) {
			try (PreparedStatement statement = JdbcStatement.load("mysql", name, this.table, false)
				.prepare(connection, parameters)) {
				statement.executeUpdate();
			}
		}
	}

	// how a claim ended, described only when an assertion fails
	private record ClaimEnd(Future<AcquireResult> claim) {

		@Override
		public String toString() {
			if (!this.claim.isDone()) {
				return "(running)";
			}
			try {
				return String.valueOf(this.claim.get().outcome());
			}
			catch (Exception ex) {
				return ex.toString();
			}
		}

	}

	// the transactions waiting for a lock while running a statement on this test's
	// table, whoever holds the lock
	private long lockWaitsOn(Connection watcher) throws SQLException {
		return queryLong(watcher, "SELECT COUNT(*) FROM information_schema.INNODB_TRX"
				+ " WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE ?", "%" + this.table + "%");
	}

	// one lock wait per waiting claim (a statement that has written nothing yet shows
	// no transaction id of its own)
	private static long waitingBehind(Connection watcher, long lockerId) throws SQLException {
		return queryLong(watcher,
				"SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS w"
						+ " JOIN information_schema.INNODB_TRX blocking ON blocking.trx_id = w.blocking_trx_id"
						+ " WHERE blocking.trx_mysql_thread_id = ?",
				lockerId);
	}

	private static long queryLong(Connection connection, String sql, Object... parameters) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			try (ResultSet resultSet = statement.executeQuery()) {
				resultSet.next();
				return resultSet.getLong(1);
			}
		}
	}

	private String runTable() {
		return this.table.replace("_lease", "_run");
	}

	private static String token() {
		return UUID.randomUUID().toString().replace("-", "");
	}

}
