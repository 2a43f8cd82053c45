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

package io.github.clustersingleton.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.stream.Collectors;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.test.DeterministicScheduler;
import io.github.clustersingleton.test.ManualClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaseWatchdog} in virtual time: a {@link ManualClock} and a
 * {@link DeterministicScheduler} stand in for {@link System#nanoTime()} and the
 * watchdog's threads, so the renewal cadence and the local deadline are asserted to the
 * nanosecond, with no sleeps.
 *
 * @author cluster-singleton contributors
 */
class LeaseWatchdogVirtualTimeTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private final ManualClock clock = new ManualClock();

	private final DeterministicScheduler scheduler = new DeterministicScheduler(this.clock);

	private final long start = this.clock.nanoTime();

	private final RecordingBackend backend = new RecordingBackend(this.clock);

	private final List<String> losses = new ArrayList<>();

	private final LeaseWatchdog watchdog = new LeaseWatchdog(this.backend, TTL, false, new ClusterSingletonListener() {

		@Override
		public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
			LeaseWatchdogVirtualTimeTests.this.losses.add(job.name() + ": " + reason);
		}

	}, this.clock, this.scheduler.engineExecutors());

	@Test
	void renewsEveryThirdOfTheTtlAndMovesTheLocalDeadline() {
		ActiveRun run = register(Duration.ofHours(1));
		this.scheduler.advance(Duration.ofSeconds(9));
		assertThat(this.backend.renewedAt).isEmpty();
		this.scheduler.advance(Duration.ofSeconds(61));
		assertThat(this.backend.renewedAt).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(20),
				Duration.ofSeconds(30), Duration.ofSeconds(40), Duration.ofSeconds(50), Duration.ofSeconds(60),
				Duration.ofSeconds(70));
		// the last renewal left at 70 s: the lease is good until 100 s
		assertThat(run.deadlineNanos() - this.start).isEqualTo(Duration.ofSeconds(100).toNanos());
		assertThat(run.isLost()).isFalse();
		assertThat(run.isLeaseValid()).isTrue();
		assertThat(this.losses).isEmpty();
	}

	@Test
	void declaresTheLeaseLostAtItsLocalDeadlineWhenNoRenewalSucceeds() {
		this.backend.reachable = false;
		ActiveRun run = register(Duration.ofHours(1));
		this.scheduler.advance(TTL.minusNanos(1));
		assertThat(this.backend.renewedAt).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(20));
		assertThat(run.isLost()).isFalse();
		assertThat(run.isLeaseValid()).isTrue();
		this.scheduler.advance(Duration.ofNanos(1));
		assertThat(run.isLost()).isTrue();
		assertThat(run.isLeaseValid()).isFalse();
		assertThat(this.losses).singleElement()
			.asString()
			.startsWith("job: no renewal succeeded within the lease TTL of PT30S");
	}

	@Test
	void aRenewalThatFailsOnceDoesNotLoseTheLease() {
		ActiveRun run = register(Duration.ofHours(1));
		this.backend.reachable = false;
		this.scheduler.advance(Duration.ofSeconds(10));
		this.backend.reachable = true;
		this.scheduler.advance(Duration.ofSeconds(10));
		// the renewal sent at 20 s succeeded: the deadline moved from 30 s to 50 s
		assertThat(run.deadlineNanos() - this.start).isEqualTo(Duration.ofSeconds(50).toNanos());
		this.scheduler.advance(Duration.ofSeconds(15));
		assertThat(run.isLost()).isFalse();
		assertThat(this.losses).isEmpty();
	}

	@Test
	void declaresTheLeaseLostAtLockAtMostForWhileRenewalsSucceed() {
		ActiveRun run = register(Duration.ofSeconds(15));
		this.scheduler.advance(Duration.ofSeconds(15).minusNanos(1));
		assertThat(run.isLost()).isFalse();
		this.scheduler.advance(Duration.ofNanos(1));
		assertThat(run.isLost()).isTrue();
		assertThat(this.losses).containsExactly("job: the run exceeded its lockAtMostFor of PT15S");
		assertThat(this.backend.renewedAt).containsExactly(Duration.ofSeconds(10));
	}

	@Test
	void closeDeclaresRunsLostAndStopsTicking() {
		ActiveRun run = register(Duration.ofHours(1));
		this.watchdog.close();
		assertThat(run.isLost()).isTrue();
		this.scheduler.advance(Duration.ofMinutes(5));
		assertThat(this.backend.renewedAt).isEmpty();
		assertThat(this.scheduler.queued()).isZero();
	}

	private ActiveRun register(Duration lockAtMostFor) {
		JobDefinition job = JobDefinition.of("job", lockAtMostFor, Duration.ZERO);
		HeldLease lease = new HeldLease("job", "node", "token", 7, Instant.parse("2026-01-01T00:00:00Z"));
		ActiveRun run = new ActiveRun(job, lease, new Thread(() -> {
		}), this.clock.nanoTime(), TTL.toNanos(), 1, RunTrigger.SCHEDULED, List.of(), this.clock);
		ScheduledFuture<?> capTimer = this.watchdog.register(run);
		assertThat((Object) capTimer).isNotNull();
		return run;
	}

	/**
	 * A store that renews every lease while reachable, and notes when (virtual time since
	 * the test started) each renewal reached it.
	 */
	private static final class RecordingBackend implements LeaseBackend {

		private final ManualClock clock;

		private final long start;

		private final List<Duration> renewedAt = new ArrayList<>();

		private volatile boolean reachable = true;

		RecordingBackend(ManualClock clock) {
			this.clock = clock;
			this.start = clock.nanoTime();
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			this.renewedAt.add(Duration.ofNanos(this.clock.nanoTime() - this.start));
			if (!this.reachable) {
				throw new IllegalStateException("store unreachable");
			}
			return leases.stream().map(HeldLease::leaseToken).collect(Collectors.toSet());
		}

		@Override
		public String id() {
			return "recording";
		}

		@Override
		public void validateJobName(String jobName) {
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
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
