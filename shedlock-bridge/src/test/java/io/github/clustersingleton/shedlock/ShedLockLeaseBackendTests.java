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

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link ShedLockLeaseBackend} around a stub lease store, on H2: the order of the two
 * locks, and what happens to each when the other fails.
 *
 * @author cluster-singleton contributors
 */
class ShedLockLeaseBackendTests {

	private static final Duration LOCK_AT_MOST_FOR = Duration.ofMinutes(5);

	private final DriverManagerDataSource dataSource = new DriverManagerDataSource(
			"jdbc:h2:mem:shedlock-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");

	private final JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);

	private final StubBackend store = new StubBackend();

	private final ShedLockLeaseBackend backend = new ShedLockLeaseBackend(this.store,
			new ShedLockTable(this.dataSource, "shedlock"), (name) -> "legacy-" + name, (name) -> LOCK_AT_MOST_FOR,
			"leader");

	@BeforeEach
	void createTable() {
		this.jdbc.execute("CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL, "
				+ "locked_at TIMESTAMP(3) NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
	}

	@Test
	void releasesShedLockLockBeforeTheLease() {
		LeaseRequest request = request("report");
		assertThat(this.backend.tryAcquire(request).isAcquired()).isTrue();
		assertThat(lockedBy())
			.isEqualTo("node-1#cs-" + ShedLockLeaseBackend.jobHash("report") + "-1-" + request.leaseToken());
		assertThat(secondsLeft()).isBetween(LOCK_AT_MOST_FOR.toSeconds() - 2, LOCK_AT_MOST_FOR.toSeconds());
		this.store.onRelease = () -> assertThat(secondsLeft()).as("ShedLock's lock when the lease is released")
			.isLessThanOrEqualTo(0);
		this.backend.release(HeldLease.of(request, 1), Duration.ZERO, RunCompletion.succeeded());
		assertThat(this.store.released).containsExactly(RunCompletion.succeeded());
	}

	@Test
	void completionReleasesShedLockLockAndPassesTheStoreAnswerOn() {
		LeaseRequest request = request("report");
		assertThat(this.backend.tryAcquire(request).isAcquired()).isTrue();
		this.store.completeRun = false;
		this.store.onRelease = () -> assertThat(secondsLeft()).as("ShedLock's lock when the run's end is recorded")
			.isLessThanOrEqualTo(0);
		assertThat(this.backend.completeRun(HeldLease.of(request, 1), Duration.ZERO, RunCompletion.succeeded()))
			.as("the wrapped store's answer: superseded")
			.isFalse();
		assertThat(this.store.completed).containsExactly(RunCompletion.succeeded());
		assertThat(this.store.released).isEmpty();
	}

	@Test
	void lockHeldElsewhereGivesTheLeaseBackAndReportsHeld() {
		insertOldPodLock(Duration.ofMinutes(1));
		AcquireResult result = this.backend.tryAcquire(request("report"));
		assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.HELD);
		assertThat(result.holder()).isEqualTo("old-pod (ShedLock lock 'legacy-report')");
		assertThat(this.store.released).containsExactly(RunCompletion.none());
		assertThat(lockedBy()).isEqualTo("old-pod");
	}

	@Test
	void expiredLockOfAnOldPodIsTakenOver() {
		insertOldPodLock(Duration.ofSeconds(-1));
		assertThat(this.backend.tryAcquire(request("report")).isAcquired()).isTrue();
		assertThat(lockedBy()).startsWith("node-1#");
		assertThat(this.store.released).isEmpty();
	}

	@Test
	void lockOfAnEarlierAcquisitionOfTheJobIsTakenOver() {
		LeaseRequest first = request("report");
		assertThat(this.backend.tryAcquire(first).isAcquired()).isTrue();
		this.store.acquire = AcquireResult.acquired(2);
		LeaseRequest second = request("report");
		assertThat(this.backend.tryAcquire(second).isAcquired()).isTrue();
		assertThat(lockedBy()).endsWith("-2-" + second.leaseToken());
		assertThat(secondsLeft()).isGreaterThan(LOCK_AT_MOST_FOR.toSeconds() - 3);
		this.backend.release(HeldLease.of(first, 1), Duration.ZERO);
		assertThat(lockedBy()).endsWith("-2-" + second.leaseToken());
		assertThat(secondsLeft()).isGreaterThan(LOCK_AT_MOST_FOR.toSeconds() - 3);
	}

	@Test
	void shedLockTableFailureGivesTheLeaseBackAndFailsTheAcquisition() {
		this.jdbc.execute("DROP TABLE shedlock");
		assertThatIllegalStateException().isThrownBy(() -> this.backend.tryAcquire(request("report")))
			.withMessageContaining("ShedLock table 'shedlock' (cluster-singleton.shedlock.table-name)");
		assertThat(this.store.released).containsExactly(RunCompletion.none());
	}

	@Test
	void releaseLeavesALockThatAnotherAcquisitionTook() {
		LeaseRequest request = request("report");
		this.backend.tryAcquire(request);
		this.jdbc.update("UPDATE shedlock SET locked_by = 'old-pod'");
		this.backend.release(HeldLease.of(request, 1), Duration.ZERO);
		assertThat(secondsLeft()).isGreaterThan(60);
	}

	@Test
	void nextRunUnderTheSameLeasePushesLockUntil() {
		LeaseRequest request = request("report");
		this.backend.tryAcquire(request);
		this.jdbc.update("UPDATE shedlock SET lock_until = DATEADD(SECOND, 10, CURRENT_TIMESTAMP(3))");
		this.store.startRun = OptionalLong.of(2);
		assertThat(this.backend.startRun(HeldLease.of(request, 1), Instant.now(), 2)).hasValue(2);
		assertThat(secondsLeft()).isGreaterThan(LOCK_AT_MOST_FOR.toSeconds() - 3);
	}

	@Test
	void nextRunDoesNotStartWhenShedLockLockWasLost() {
		LeaseRequest request = request("report");
		this.backend.tryAcquire(request);
		this.jdbc.update("UPDATE shedlock SET lock_until = DATEADD(SECOND, 60, CURRENT_TIMESTAMP(3)), "
				+ "locked_by = 'old-pod'");
		this.store.startRun = OptionalLong.of(2);
		assertThat(this.backend.startRun(HeldLease.of(request, 1), Instant.now(), 2)).isEmpty();
	}

	@Test
	void leaderLeaseTakesNoShedLockLock() {
		assertThat(this.backend.tryAcquire(request("leader")).isAcquired()).isTrue();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM shedlock", Integer.class)).isZero();
	}

	@Test
	void missingLeaseTakesNoShedLockLock() {
		this.store.acquire = AcquireResult.held("node-2");
		assertThat(this.backend.tryAcquire(request("report")).holder()).isEqualTo("node-2");
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM shedlock", Integer.class)).isZero();
	}

	@Test
	void jobWhoseLockNameDoesNotFitTheNameColumnIsRefused() {
		this.backend.validateJobName("r".repeat(57));
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName("r".repeat(58)))
			.withMessageContaining("is 65 characters long; column 'name' of ShedLock table 'shedlock' holds 64");
	}

	@Test
	void lockedByColumnTooNarrowForTheMarkerIsRefused() {
		this.jdbc.execute("ALTER TABLE shedlock ALTER COLUMN locked_by VARCHAR(32)");
		ShedLockLeaseBackend narrow = new ShedLockLeaseBackend(this.store,
				new ShedLockTable(this.dataSource, "shedlock"), (name) -> "legacy-" + name, (name) -> LOCK_AT_MOST_FOR,
				"leader");
		assertThatIllegalArgumentException().isThrownBy(() -> narrow.validateJobName("report"))
			.withMessageContaining("Column 'locked_by' of ShedLock table 'shedlock' holds 32 characters");
	}

	private void insertOldPodLock(Duration left) {
		this.jdbc.update("INSERT INTO shedlock VALUES ('legacy-report', DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP(3)), "
				+ "CURRENT_TIMESTAMP(3), 'old-pod')", left.toMillis());
	}

	private String lockedBy() {
		return this.jdbc.queryForObject("SELECT locked_by FROM shedlock WHERE name = 'legacy-report'", String.class);
	}

	private long secondsLeft() {
		Timestamp until = this.jdbc.queryForObject("SELECT lock_until FROM shedlock WHERE name = 'legacy-report'",
				Timestamp.class);
		Timestamp now = this.jdbc.queryForObject("SELECT CAST(CURRENT_TIMESTAMP(3) AS TIMESTAMP(3))", Timestamp.class);
		return Duration.between(now.toInstant(), until.toInstant()).toSeconds();
	}

	private static LeaseRequest request(String job) {
		return new LeaseRequest(job, "node-1", UUID.randomUUID().toString(), Duration.ofSeconds(30), null);
	}

	static class StubBackend implements LeaseBackend {

		volatile AcquireResult acquire = AcquireResult.acquired(1);

		volatile OptionalLong startRun = OptionalLong.empty();

		volatile Runnable onRelease = () -> {
		};

		final List<RunCompletion> released = new CopyOnWriteArrayList<>();

		final List<RunCompletion> completed = new CopyOnWriteArrayList<>();

		volatile boolean completeRun = true;

		@Override
		public String id() {
			return "stub";
		}

		@Override
		public void validateJobName(String jobName) {
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			return this.acquire;
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			return Set.of();
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
			release(lease, lockAtLeastFor, RunCompletion.none());
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
			this.onRelease.run();
			this.released.add(completion);
		}

		@Override
		public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
			this.onRelease.run();
			this.completed.add(completion);
			return this.completeRun;
		}

		@Override
		public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
			return this.startRun;
		}

		@Override
		public Optional<LeaseInfo> describe(String jobName) {
			return Optional.empty();
		}

		@Override
		public boolean forceRelease(String jobName) {
			return false;
		}

		@Override
		public void probe() {
		}

	}

}
