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

package io.github.clustersingleton.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.jdbc.JdbcLeaseSchemaInitializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ShedLock bridge over the JDBC lease store, on a real database: a ShedLock row left
 * by an earlier acquisition of the same job on a new pod (crashed run, a release that
 * failed, ShedLock's lockAtLeastFor tail ending after the lease's) must not make the next
 * lease holder skip, and so lose, its slot; rows of old pods, of later acquisitions and
 * of other jobs stay untouched.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractShedLockTakeoverTests {

	private static final Duration LOCK_AT_MOST_FOR = Duration.ofMinutes(10);

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final Instant S1 = Instant.parse("2026-01-01T10:00:00Z");

	private static final Instant S2 = S1.plusSeconds(1);

	private HikariDataSource pool;

	private JdbcTemplate jdbc;

	private String table;

	private JdbcLeaseBackend leases;

	private ShedLockLeaseBackend nodeA;

	private ShedLockLeaseBackend nodeB;

	protected abstract HikariDataSource createPool();

	/**
	 * ShedLock's own DDL for the database, with the given length of {@code locked_by}
	 * (ShedLock's DDL has 255).
	 */
	protected abstract String createTableSql(String table, int lockedByLength);

	/**
	 * Add a number of milliseconds to a column, in the database's SQL.
	 */
	protected abstract String plusMillis(String column, long millis);

	/**
	 * The database's UTC clock as ShedLock's DB-time mode writes it.
	 */
	protected abstract String utcNow();

	@BeforeAll
	void createTables() {
		this.pool = createPool();
		this.jdbc = new JdbcTemplate(this.pool);
		new JdbcLeaseSchemaInitializer(this.pool, JdbcLeaseBackend.DEFAULT_TABLE_NAME,
				DatabaseInitializationMode.ALWAYS)
			.initialize();
		this.table = "shedlock_takeover_" + UUID.randomUUID().toString().substring(0, 8);
		this.jdbc.execute(createTableSql(this.table, 255));
		this.leases = new JdbcLeaseBackend(this.pool, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		this.nodeA = bridge(this.leases);
		this.nodeB = bridge(this.leases);
	}

	@AfterAll
	void dropTable() {
		if (this.pool != null) {
			this.jdbc.execute("DROP TABLE " + this.table);
			this.jdbc.update("DELETE FROM " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " WHERE name LIKE 'takeover-%'");
			this.pool.close();
		}
	}

	private ShedLockLeaseBackend bridge(io.github.clustersingleton.LeaseBackend delegate) {
		return new ShedLockLeaseBackend(delegate, new ShedLockTable(this.pool, this.table), (name) -> name,
				(name) -> LOCK_AT_MOST_FOR, null);
	}

	@Test
	void crashedRunOfANewPodDoesNotCostTheNextSlots() {
		String job = job();
		AcquireResult first = this.nodeA.tryAcquire(request(job, "node-a", S1));
		assertThat(first.isAcquired()).isTrue();
		// node-a dies during the run: its lease expires after one TTL (here: at once),
		// ShedLock's row would stay taken for lockAtMostFor
		this.leases.forceRelease(job);
		LeaseRequest next = request(job, "node-b", S2);
		AcquireResult second = this.nodeB.tryAcquire(next);
		assertThat(second.outcome()).as("the next slot after a crashed run, no old pod anywhere")
			.isEqualTo(AcquireResult.Outcome.ACQUIRED);
		assertThat(lockedBy(job)).startsWith("node-b#");
		assertThat(millisLeft(job)).isGreaterThan(LOCK_AT_MOST_FOR.toMillis() - 10_000);
		// node-a's late release leaves node-b's lock alone
		this.nodeA.release(HeldLease.of(request(job, "node-a", S1), first.fencingToken()), Duration.ZERO,
				RunCompletion.succeeded());
		assertThat(lockedBy(job)).startsWith("node-b#");
		assertThat(millisLeft(job)).isGreaterThan(LOCK_AT_MOST_FOR.toMillis() - 10_000);
		this.nodeB.release(HeldLease.of(next, second.fencingToken()), Duration.ZERO, RunCompletion.succeeded());
		assertThat(millisLeft(job)).isLessThanOrEqualTo(0);
	}

	@Test
	void shedLockTailThatEndsAfterTheLeaseTailDoesNotCostTheNextSlot() throws InterruptedException {
		String job = job();
		Duration lockAtLeastFor = Duration.ofMillis(800);
		LeaseRequest request = request(job, "node-a", S1);
		AcquireResult first = this.nodeA.tryAcquire(request);
		assertThat(first.isAcquired()).isTrue();
		this.nodeA.release(HeldLease.of(request, first.fencingToken()), lockAtLeastFor, RunCompletion.succeeded());
		// ShedLock's locked_at is written after the lease's acquired_at (a few ms on one
		// database, the clock difference with a Redis or Kubernetes lease store): its
		// lockAtLeastFor tail ends after the lease's
		this.jdbc.update("UPDATE " + this.table + " SET locked_at = " + plusMillis("locked_at", 1000)
				+ ", lock_until = " + plusMillis("lock_until", 1000) + " WHERE name = ?", job);
		Thread.sleep(lockAtLeastFor.toMillis() + 300);
		assertThat(millisLeft(job)).as("ShedLock's tail still running").isGreaterThan(0);
		AcquireResult second = this.nodeB.tryAcquire(request(job, "node-b", S2));
		assertThat(second.outcome()).as("a trigger between the lease's tail and ShedLock's")
			.isEqualTo(AcquireResult.Outcome.ACQUIRED);
		assertThat(lockedBy(job)).startsWith("node-b#");
	}

	@Test
	void lockOfAnOldPodIsNotTakenOver() {
		String job = job();
		this.jdbc.update("INSERT INTO " + this.table + " (name, lock_until, locked_at, locked_by) VALUES (?, "
				+ plusMillis(utcNow(), 60_000) + ", " + utcNow() + ", 'old-pod-7f9c')", job);
		AcquireResult result = this.nodeB.tryAcquire(request(job, "node-b", S1));
		assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.HELD);
		assertThat(lockedBy(job)).isEqualTo("old-pod-7f9c");
		assertThat(millisLeft(job)).isGreaterThan(50_000);
		// the lease was given back: the next trigger may try again
		assertThat(this.leases.describe(job).filter((info) -> info.live())).isEmpty();
	}

	@Test
	void staleAcquisitionDoesNotTakeTheLockOfALaterOne() {
		String job = job();
		this.nodeA.tryAcquire(request(job, "node-a", S1));
		this.leases.forceRelease(job);
		AcquireResult later = this.nodeB.tryAcquire(request(job, "node-b", S2));
		assertThat(later.isAcquired()).isTrue();
		String taken = lockedBy(job);
		// an acquisition with a lower fencing token (a node that paused between its
		// lease and ShedLock's lock) finds the later one's row
		ShedLockLeaseBackendTests.StubBackend stale = new ShedLockLeaseBackendTests.StubBackend();
		stale.acquire = AcquireResult.acquired(later.fencingToken() - 1);
		AcquireResult result = bridge(stale).tryAcquire(request(job, "node-a", S2));
		assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.HELD);
		assertThat(lockedBy(job)).isEqualTo(taken);
	}

	@Test
	void lockOfAnotherJobWithTheSameShedLockNameIsNotTakenOver() {
		String job = job();
		String other = job + "-other";
		AcquireResult first = this.nodeA.tryAcquire(request(job, "node-a", S1));
		assertThat(first.isAcquired()).isTrue();
		String taken = lockedBy(job);
		ShedLockLeaseBackendTests.StubBackend otherJob = new ShedLockLeaseBackendTests.StubBackend();
		otherJob.acquire = AcquireResult.acquired(first.fencingToken() + 100);
		ShedLockLeaseBackend shared = new ShedLockLeaseBackend(otherJob, new ShedLockTable(this.pool, this.table),
				(name) -> job, (name) -> LOCK_AT_MOST_FOR, null);
		assertThat(shared.tryAcquire(request(other, "node-b", S1)).outcome()).isEqualTo(AcquireResult.Outcome.HELD);
		assertThat(lockedBy(job)).isEqualTo(taken);
	}

	@Test
	void lockedByIsCutToTheColumnSoThatTheReleaseFindsIt() {
		String narrow = this.table + "_n";
		this.jdbc.execute(createTableSql(narrow, 64));
		try {
			ShedLockLeaseBackend node = new ShedLockLeaseBackend(this.leases, new ShedLockTable(this.pool, narrow),
					(name) -> name, (name) -> LOCK_AT_MOST_FOR, null);
			String job = job();
			// the default owner-id is hostname:pid:random
			String owner = "billing-7d9f8c6b5-x2x4q.billing.svc.cluster.local:1:5f2a9c1e";
			LeaseRequest request = request(job, owner, S1);
			AcquireResult result = node.tryAcquire(request);
			assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.ACQUIRED);
			String lockedBy = this.jdbc.queryForObject("SELECT locked_by FROM " + narrow + " WHERE name = ?",
					String.class, job);
			assertThat(lockedBy).hasSizeLessThanOrEqualTo(64).contains("#cs-");
			node.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO, RunCompletion.succeeded());
			assertThat(this.jdbc.queryForObject(millisLeftSql(narrow), Long.class, job))
				.as("ShedLock's lock after the release")
				.isLessThanOrEqualTo(0);
		}
		finally {
			this.jdbc.execute("DROP TABLE " + narrow);
		}
	}

	private static String job() {
		return "takeover-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private static LeaseRequest request(String job, String owner, Instant slot) {
		return new LeaseRequest(job, owner, UUID.randomUUID().toString(), TTL, slot);
	}

	private String lockedBy(String job) {
		return this.jdbc.queryForObject("SELECT locked_by FROM " + this.table + " WHERE name = ?", String.class, job);
	}

	private long millisLeft(String job) {
		return this.jdbc.queryForObject(millisLeftSql(this.table), Long.class, job);
	}

	/**
	 * SQL with one parameter (the name) that returns lock_until minus the database's UTC
	 * clock in milliseconds.
	 */
	protected abstract String millisLeftSql(String table);

}
