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
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.boot.sql.init.DatabaseInitializationMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Adversarial races on the recovery and catch-up statements of the JDBC backend: a
 * recovery claim against first claims of the next slot, a {@code startRun} that waits for
 * a row lock until after its lease expired, and a recovery mark that waits for a row lock
 * longer than its grace.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class AbstractJdbcRecoveryRaceTests {

	private static final ClaimPolicy RECOVER_LOST = new ClaimPolicy(true, false, 3, false);

	private static final Instant S1 = Instant.parse("2026-01-01T10:00:00Z");

	private static final Instant S2 = S1.plusSeconds(60);

	private final String prefix = "race-" + UUID.randomUUID().toString().substring(0, 8) + "-";

	private HikariDataSource pool;

	private JdbcLeaseBackend backend;

	protected abstract HikariDataSource createPool();

	/**
	 * Return whether {@code start-run.sql} judges the lease by the time the row is
	 * written (after any wait for its lock); H2 has no clock for that, so the race stays
	 * open there for up to its {@code LOCK_TIMEOUT}.
	 * @return whether a late {@code startRun} is refused
	 */
	protected boolean refusesAStartRunGrantedAfterTheExpiry() {
		return true;
	}

	@BeforeAll
	void createBackend() {
		this.pool = createPool();
		new JdbcLeaseSchemaInitializer(this.pool, JdbcLeaseBackend.DEFAULT_TABLE_NAME,
				DatabaseInitializationMode.ALWAYS)
			.initialize();
		this.backend = new JdbcLeaseBackend(this.pool, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
	}

	@AfterAll
	void removeLeasesAndClosePool() throws SQLException {
		try (Connection connection = this.pool.getConnection();
				PreparedStatement statement = connection
					.prepareStatement("DELETE FROM " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " WHERE name LIKE ?")) {
			statement.setString(1, this.prefix + "%");
			statement.executeUpdate();
		}
		finally {
			this.pool.close();
		}
	}

	/**
	 * A dead run (expired lease, run still running), then at once 8 recovery claims and 8
	 * first claims of the next slot: exactly one of the 16 wins.
	 */
	@Test
	void recoveryClaimsAndFirstClaimsOfTheNextSlotHaveOneWinner() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			for (int round = 0; round < 5; round++) {
				String job = this.prefix + "mixed-" + round;
				LeaseRequest first = claim(job, "node-a", Duration.ofSeconds(1), S1, null);
				assertThat(this.backend.tryAcquire(first).isAcquired()).isTrue();
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> this.backend.findPending(Map.of(job, RECOVER_LOST)).contains(job));
				// the run is still recorded as running: the first recovery claims only
				// mark
				// it, and every claim is refused until the grace after the mark has
				// passed,
				// so each contender claims until one of them has won
				CountDownLatch start = new CountDownLatch(1);
				AtomicBoolean someoneWon = new AtomicBoolean();
				List<Future<List<AcquireResult>>> results = new ArrayList<>();
				for (int i = 0; i < 16; i++) {
					String owner = "node-" + i;
					boolean recovery = i % 2 == 0;
					results.add(executor.submit(() -> {
						start.await();
						List<AcquireResult> wins = new ArrayList<>();
						long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
						while (!someoneWon.get() && System.nanoTime() - deadline < 0) {
							AcquireResult result = this.backend.tryAcquire(recovery
									? LeaseRequest.recovery(job, owner, token(), Duration.ofSeconds(2), RECOVER_LOST)
									: claim(job, owner, Duration.ofSeconds(2), S2, S1));
							if (result.isAcquired()) {
								wins.add(result);
								someoneWon.set(true);
							}
						}
						return wins;
					}));
				}
				start.countDown();
				Set<Long> fences = new HashSet<>();
				int won = 0;
				for (Future<List<AcquireResult>> result : results) {
					for (AcquireResult value : result.get(30, TimeUnit.SECONDS)) {
						won++;
						fences.add(value.fencingToken());
					}
				}
				assertThat(won).as("winners in round %d", round).isEqualTo(1);
				assertThat(fences).hasSize(1);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Node A holds the lease and starts the next run of a catch-up just before the lease
	 * expires, but its {@code start-run.sql} waits for a row lock (a stalled database, a
	 * slow concurrent statement, here a {@code SELECT ... FOR UPDATE}) until after the
	 * lease expired by the database's clock. Node B's recovery claim, sent after the
	 * expiry, waits behind it. When the lock goes, the store must not let both go ahead:
	 * A running a run under fence f+1 while B runs the same row's work under fence f+2.
	 */
	@Test
	void aStartRunThatWaitedForTheRowPastTheLeaseExpiryAndARecoveryClaimDoNotBothWin() throws Exception {
		assumeTrue(refusesAStartRunGrantedAfterTheExpiry(), "known open on this database (see docs/jdbc.md)");
		String job = this.prefix + "late-start-run";
		Duration ttl = Duration.ofSeconds(2);
		LeaseRequest first = claim(job, "node-a", ttl, S1, null);
		AcquireResult claimed = this.backend.tryAcquire(first);
		assertThat(claimed.isAcquired()).isTrue();
		HeldLease lease = HeldLease.of(first, claimed.fencingToken());
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try (Connection locker = this.pool.getConnection()) {
			locker.setAutoCommit(false);
			try (PreparedStatement lock = locker.prepareStatement(
					"SELECT name FROM " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " WHERE name = ? FOR UPDATE")) {
				lock.setString(1, job);
				try (ResultSet resultSet = lock.executeQuery()) {
					assertThat(resultSet.next()).isTrue();
				}
			}
			// A's startRun reaches the database while the lease is live
			Future<OptionalLong> startRun = executor.submit(() -> this.backend.startRun(lease, S2, 1));
			Thread.sleep(300);
			assertThat(startRun.isDone()).as("startRun waits for the row lock").isFalse();
			// the lease expires by the database's clock while it waits
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> this.backend.describe(job).map((info) -> !info.live()).orElse(false));
			Future<AcquireResult> recovery = executor.submit(() -> this.backend
				.tryAcquire(LeaseRequest.recovery(job, "node-b", token(), Duration.ofSeconds(30), RECOVER_LOST)));
			Thread.sleep(300);
			locker.commit();
			OptionalLong started = startRun.get(30, TimeUnit.SECONDS);
			AcquireResult recovered = recovery.get(30, TimeUnit.SECONDS);
			assertThat(started.isPresent() && recovered.isAcquired())
				.as("startRun of node-a granted (fence %s) on a lease that had expired, and recovery claim of node-b "
						+ "granted (fence %s): both run the job's pending work", started, recovered.fencingToken())
				.isFalse();
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * A dead run (expired lease, run still running) whose row another transaction holds
	 * locked. Node B's recovery claim comes to mark it and waits for the row lock longer
	 * than the grace; when the lock goes, the mark is written. Claims that come right
	 * after (a recovery claim of node C, a first claim of the next slot by node D) must
	 * find the run still within its grace, which counts from the mark's write, not from
	 * the time node B sent it: the node that ran it still has the grace to record its
	 * end. Once the grace has passed, a recovery claim takes the run over.
	 */
	@Test
	void aRecoveryMarkThatWaitedForTheRowLockCountsItsGraceFromItsWrite() throws Exception {
		assumeTrue(countsTheRecoveryGraceFromTheMarksWrite(), "known open on this database (see docs/jdbc.md)");
		String job = this.prefix + "late-mark";
		LeaseRequest first = claim(job, "node-a", Duration.ofSeconds(1), S1, null);
		assertThat(this.backend.tryAcquire(first).isAcquired()).isTrue();
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.backend.findPending(Map.of(job, RECOVER_LOST)).contains(job));
		Duration recoveryTtl = Duration.ofSeconds(8);
		Duration grace = LeaseRequest.recovery(job, "node-b", token(), recoveryTtl, RECOVER_LOST).recoveryGrace();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (Connection locker = this.pool.getConnection(); Connection watcher = this.pool.getConnection()) {
			locker.setAutoCommit(false);
			try (PreparedStatement lock = locker.prepareStatement(
					"SELECT name FROM " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " WHERE name = ? FOR UPDATE")) {
				lock.setString(1, job);
				try (ResultSet resultSet = lock.executeQuery()) {
					assertThat(resultSet.next()).isTrue();
				}
			}
			Future<AcquireResult> mark = executor.submit(() -> this.backend
				.tryAcquire(LeaseRequest.recovery(job, "node-b", token(), recoveryTtl, RECOVER_LOST)));
			// the mark has waited for the row lock for longer than the grace, by the
			// database's account
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> longestWaitBehind(watcher, locker).compareTo(grace.plusMillis(200)) > 0);
			assertThat(mark.isDone()).isFalse();
			locker.commit();
			assertThat(mark.get(30, TimeUnit.SECONDS).isAcquired()).as("the first recovery claim only marks the run")
				.isFalse();
			AcquireResult recovery = this.backend
				.tryAcquire(LeaseRequest.recovery(job, "node-c", token(), recoveryTtl, RECOVER_LOST));
			AcquireResult nextSlot = this.backend.tryAcquire(claim(job, "node-d", recoveryTtl, S2, S1));
			assertThat(recovery.isAcquired())
				.as("recovery claim right after a mark that waited for the row lock (grace %s)", grace)
				.isFalse();
			assertThat(nextSlot.isAcquired())
				.as("claim of the next slot right after a mark that waited for the row lock (grace %s)", grace)
				.isFalse();
		}
		finally {
			executor.shutdownNow();
		}
		// the mark stands: once the grace has passed, the run is taken over
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> this.backend
				.tryAcquire(LeaseRequest.recovery(job, "node-c", token(), recoveryTtl, RECOVER_LOST))
				.isAcquired());
	}

	/**
	 * A paused job whose row another transaction holds locked. A resume without catch-up
	 * waits for the row lock for a second; when the lock goes, the last claimed slot must
	 * be the time the resume took effect, not the time it was sent, so that a claim of a
	 * slot that passed while it waited (sent while the job was still paused) is refused.
	 */
	@Test
	void aResumeWithoutCatchUpThatWaitedForTheRowLockSkipsTheSlotsOfItsWait() throws Exception {
		assumeTrue(stampsTheResumeWithTheTimeItTakesEffect(), "known open on this database (see docs/jdbc.md)");
		String job = this.prefix + "late-resume";
		LeaseRequest first = claim(job, "node-a", Duration.ofMillis(1), S1, null);
		assertThat(this.backend.tryAcquire(first).isAcquired()).isTrue();
		this.backend.controls().orElseThrow().pause(job, "ops", null);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (Connection locker = this.pool.getConnection(); Connection watcher = this.pool.getConnection()) {
			locker.setAutoCommit(false);
			try (PreparedStatement lock = locker.prepareStatement(
					"SELECT name FROM " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " WHERE name = ? FOR UPDATE")) {
				lock.setString(1, job);
				try (ResultSet resultSet = lock.executeQuery()) {
					assertThat(resultSet.next()).isTrue();
				}
			}
			Instant sent = Instant.now();
			Future<?> resume = executor.submit(() -> this.backend.controls().orElseThrow().resume(job, false));
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> longestWaitBehind(watcher, locker).compareTo(Duration.ofMillis(1000)) > 0);
			assertThat(resume.isDone()).isFalse();
			locker.commit();
			resume.get(30, TimeUnit.SECONDS);
			Instant lastSlot = this.backend.describe(job).orElseThrow().lastSlot();
			assertThat(lastSlot).as("the last slot after a resume that waited a second for the row lock")
				.isAfter(sent.plusMillis(800));
			assertThat(
					this.backend.tryAcquire(claim(job, "node-b", Duration.ofSeconds(30), lastSlot.minusMillis(300), S1))
						.isAcquired())
				.as("a claim of a slot that passed while the resume waited")
				.isFalse();
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Return whether {@code control-resume.sql} stamps the last slot with the time the
	 * row is written (after any wait for its lock).
	 * @return whether a resume that waited for the row lock skips the slots of its wait
	 */
	protected boolean stampsTheResumeWithTheTimeItTakesEffect() {
		return true;
	}

	/**
	 * Return whether {@code recover.sql} counts the grace of its recovery mark from the
	 * time the row is written (after any wait for its lock).
	 * @return whether a mark that waited for the row lock keeps its whole grace
	 */
	protected boolean countsTheRecoveryGraceFromTheMarksWrite() {
		return true;
	}

	/**
	 * Return how long the longest statement that waits for a lock the transaction of
	 * {@code locker} holds has been running so far, by the database's account, or zero
	 * when none waits.
	 * @param watcher a connection to ask on
	 * @param locker the connection whose open transaction holds the lock
	 * @return how long
	 * @throws SQLException on a database error
	 */
	protected Duration longestWaitBehind(Connection watcher, Connection locker) throws SQLException {
		throw new UnsupportedOperationException("no way to see lock waits on this database");
	}

	protected static long queryLong(Connection connection, String sql, Object... parameters) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			try (ResultSet resultSet = statement.executeQuery()) {
				assertThat(resultSet.next()).isTrue();
				return resultSet.getLong(1);
			}
		}
	}

	private static LeaseRequest claim(String job, String owner, Duration ttl, Instant slot, Instant previousSlot) {
		return new LeaseRequest(job, owner, token(), ttl, slot).withPolicy(RECOVER_LOST, previousSlot);
	}

	private static String token() {
		return UUID.randomUUID().toString().replace("-", "");
	}

}
