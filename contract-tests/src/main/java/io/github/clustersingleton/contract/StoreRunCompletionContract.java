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

package io.github.clustersingleton.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The store contract's run-completion and mark cases: a completion that arrives after the
 * lease expired is recorded and the run is not recovered, a run still recorded as running
 * is marked first and taken over by one claim after the grace, and a completion never
 * ends or fails a later run, changes nothing once another claim took the run over, and
 * keeps the lease for {@code lockAtLeastFor} and the retry delay when repeated.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreRunCompletionContract extends StoreRecoveryContract {

	@Test
	void aCompletionThatArrivesAfterTheLeaseExpiredIsRecordedAndTheRunIsNotRecovered() {
		assumeTrue(supportsRecovery());
		String job = jobName("late-completion");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		// another node's recovery claim finds the run still running: it only marks it
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
			.isFalse();
		// the completion the store could not take while the lease lived arrives now
		assertThat(backend().completeRun(lease, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		assertThat(backend().completeRun(lease, Duration.ZERO, RunCompletion.succeeded()))
			.as("a repeated completion (its first reply was lost)")
			.isTrue();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
		Duration grace = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST).recoveryGrace();
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			// twice the grace after the mark, a step at a time: no claim takes the run
			for (int step = 0; step < 8; step++) {
				timeTravel.elapse(job, grace.dividedBy(4));
				assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
					.as("a recovery claim %s after the mark", grace.dividedBy(4).multipliedBy(step + 1))
					.isFalse();
			}
		}
		else {
			await().during(grace.multipliedBy(2))
				.atMost(PATIENCE)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> !backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST))
					.isAcquired());
		}
		LeaseRequest next = claim(job, "node-c", LONG_TTL, S2, RECOVER_LOST, S1);
		assertThat(backend().tryAcquire(next).run()).as("the next slot starts afresh")
			.isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aRunStillRecordedAsRunningIsMarkedFirstAndTakenOverByOneClaimAfterTheGrace() throws Exception {
		assumeTrue(supportsRecovery());
		String job = jobName("mark-then-take");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		LeaseRequest marking = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST);
		Duration grace = marking.recoveryGrace();
		long beforeMark = System.nanoTime();
		assertThat(backend().tryAcquire(marking).isAcquired()).as("the first recovery claim only marks").isFalse();
		long marked = System.nanoTime();
		AcquireResult early = backend().tryAcquire(recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST));
		AcquireResult earlyFirst = backend().tryAcquire(claim(job, "node-d", LONG_TTL, S2, RECOVER_LOST, S1));
		if (elapsedSince(marked).compareTo(grace.minus(CLOCK_TOLERANCE)) < 0) {
			assertThat(early.isAcquired()).as("a recovery claim within the grace").isFalse();
			assertThat(earlyFirst.isAcquired()).as("a first claim of a later slot within the grace").isFalse();
		}
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			timeTravel.elapse(job, grace.plus(BEYOND));
		}
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			AtomicReference<AcquireResult> winner = new AtomicReference<>();
			AtomicLong wonAfter = new AtomicLong();
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> wins = new ArrayList<>();
			for (String owner : List.of("node-e", "node-f")) {
				wins.add(pool.submit(() -> {
					start.await();
					int won = 0;
					long deadline = System.nanoTime() + PATIENCE.toNanos();
					while (winner.get() == null && System.nanoTime() - deadline < 0) {
						AcquireResult result = backend()
							.tryAcquire(recoveryClaim(job, owner, RECOVERY_TTL, RECOVER_LOST));
						if (result.isAcquired()) {
							won++;
							wonAfter.compareAndSet(0, System.nanoTime() - beforeMark);
							winner.compareAndSet(null, result);
						}
					}
					return won;
				}));
			}
			start.countDown();
			int total = 0;
			for (Future<Integer> won : wins) {
				total += won.get(30, TimeUnit.SECONDS);
			}
			assertThat(total).as("claims that took the run over").isEqualTo(1);
			if (timeTravel == null) {
				assertThat(Duration.ofNanos(wonAfter.get())).as("taken over after the grace")
					.isGreaterThanOrEqualTo(grace.minus(CLOCK_TOLERANCE));
			}
			assertThat(winner.get().fencingToken()).isGreaterThan(fence);
			assertThat(winner.get().run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
			assertThat(winner.get().lastSlot()).isEqualTo(S1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aCompletionOfARunDoesNotEndALaterRunStartedUnderTheSameLease() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-reply-lost");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_LOST, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		assertThat(s2).isPresent();
		HeldLease run2 = new HeldLease(job, "node-a", lease.leaseToken(), s2.getAsLong(), S2);
		// S3's start reaches the store, but its reply is lost: node-a cannot tell, does
		// not run S3, and sends S2's completion
		OptionalLong s3 = backend().startRun(lease, S3, 1);
		assertThat(s3).isPresent();
		HeldLease run3 = new HeldLease(job, "node-a", lease.leaseToken(), s3.getAsLong(), S3);
		assertThat(backend().completeRun(run2, Duration.ZERO, RunCompletion.succeeded()))
			.as("S2's completion after S3 started under the same lease")
			.isTrue();
		assertThat(backend().completeRun(run2, Duration.ZERO, RunCompletion.succeeded()))
			.as("a repeated completion of S2 (its first reply was lost)")
			.isTrue();
		// S3 is not recorded as ended by S2's completion: it is a run that died, pending
		// once the lease that completion released has expired
		awaitPending(job, RECOVER_LOST);
		assertThat(backend().startRun(run3, S4, 1)).as("startRun after the release").isEmpty();
		// S3's own completion (late: its node did run it) is still recorded
		assertThat(backend().completeRun(run3, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
			.isFalse();
		LeaseRequest next = claim(job, "node-c", LONG_TTL, S4, RECOVER_LOST, S3);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S4, 1, RunState.RUNNING));
	}

	@Test
	void aCompletionOfARunWhoseNextStartDidNotReachTheStoreIsRecorded() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-not-sent");
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, true);
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, policy, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest late = claim(job, "node-b", LONG_TTL, S4, policy, S3);
		HeldLease lease = held(late, backend().tryAcquire(late));
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		assertThat(s2).isPresent();
		HeldLease run2 = new HeldLease(job, "node-b", lease.leaseToken(), s2.getAsLong(), S2);
		// S3's start never reaches the store: node-b sends S2's completion
		assertThat(backend().completeRun(run2, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		LeaseRequest recovery = recoveryClaim(job, "node-c", RECOVERY_TTL, policy);
		AcquireResult result = awaitRecovered(recovery);
		assertThat(result.run()).as("the catch-up goes on after S2").isEqualTo(new SlotRun(S2, 1, RunState.SUCCEEDED));
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.fencingToken()).isGreaterThan(s2.getAsLong());
	}

	@Test
	void aFailedCompletionOfARunDoesNotFailALaterRunStartedUnderTheSameLease() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-reply-lost-failed");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease run1 = held(first, backend().tryAcquire(first));
		OptionalLong s2 = backend().startRun(run1, S2, 1);
		assertThat(s2).isPresent();
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		// S2 never ran and is pending as a dead run, without S1's retry delay
		awaitPending(job, RECOVER_LOST);
		LeaseRequest recovery = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_FAILED);
		assertThat(awaitRecovered(recovery).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aCompletionAfterAnotherClaimTookTheRunOverIsSupersededAndChangesNothing() {
		assumeTrue(supportsRecovery());
		String job = jobName("superseded");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		HeldLease late = held(first, backend().tryAcquire(first));
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		LeaseRequest recovery = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST);
		HeldLease taken = held(recovery, awaitRecovered(recovery));
		assertThat(backend().completeRun(late, Duration.ZERO, RunCompletion.succeeded())).as("superseded").isFalse();
		OptionalLong second = backend().startRun(taken, S1, 2);
		assertThat(second).isPresent();
		assertThat(backend().completeRun(late, Duration.ZERO, RunCompletion.succeeded())).as("superseded").isFalse();
		// node-b's attempt 2 dies: it is still recorded as running, not as node-a's
		// success
		backend().release(new HeldLease(job, "node-b", taken.leaseToken(), second.getAsLong(), S1), Duration.ZERO);
		awaitPending(job, RECOVER_LOST);
		LeaseRequest third = recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST);
		assertThat(awaitRecovered(third).run()).isEqualTo(new SlotRun(S1, 2, RunState.RUNNING));
	}

	@Test
	void aCompletionRetriedAfterItsNodeClaimedTheNextSlotLeavesTheNewRunAndItsLeaseAlone() {
		assumeTrue(supportsRecovery());
		String job = jobName("retry-after-reclaim");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease run1 = held(first, backend().tryAcquire(first));
		// S1's completion is recorded, but its reply is lost: node-a sends it again later
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		// meanwhile the same node claims S2, with a new lease token
		LeaseRequest second = claim(job, "node-a", LONG_TTL, S2, RECOVER_FAILED, S1);
		AcquireResult claimed = backend().tryAcquire(second);
		HeldLease run2 = held(second, claimed);
		assertThat(claimed.run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
		assertThat(backend().completeRun(run1, Duration.ofSeconds(30), RunCompletion.succeeded()))
			.as("S1's completion again, after S2 was claimed")
			.isFalse();
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.failed(Duration.ZERO)))
			.as("S1's completion again, as failed")
			.isFalse();
		backend().release(run1, Duration.ZERO);
		// node-a still holds S2's lease, and S2 is still its running first attempt
		assertThat(backend().renew(List.of(run2), LONG_TTL)).containsExactly(run2.leaseToken());
		assertThat(backend().tryAcquire(claim(job, "node-b", LONG_TTL, S3, RECOVER_FAILED, S2)).isAcquired()).isFalse();
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
		// S2's node dies: S2 is a dead run, not a failed or succeeded one
		backend().release(run2, Duration.ZERO);
		awaitPending(job, RECOVER_LOST);
		LeaseRequest recovery = recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST);
		AcquireResult recovered = awaitRecovered(recovery);
		assertThat(recovered.run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
		assertThat(recovered.fencingToken()).isGreaterThan(run2.fencingToken());
	}

	@Test
	void aRepeatedCompletionKeepsTheLeaseForLockAtLeastForAndTheRetryDelay() {
		assumeTrue(supportsRecovery());
		String job = jobName("repeated-completion");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		long started = System.nanoTime();
		HeldLease run1 = held(first, backend().tryAcquire(first));
		Duration atLeast = Duration.ofSeconds(2);
		assertThat(backend().completeRun(run1, atLeast, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		// the reply was lost: the same completion again
		assertThat(backend().completeRun(run1, atLeast, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		assertThat(backend().renew(List.of(run1), LONG_TTL)).isEmpty();
		LeaseRequest later = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		boolean withinLockAtLeastFor = elapsedSince(started).compareTo(atLeast.minus(CLOCK_TOLERANCE)) < 0;
		AcquireResult early = backend().tryAcquire(later);
		if (withinLockAtLeastFor) {
			assertThat(early.isAcquired()).as("a claim within lockAtLeastFor").isFalse();
		}
		if (!early.isAcquired()) {
			assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).as("before the retry delay").isEmpty();
			assertThat(backend().tryAcquire(recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_FAILED)).isAcquired())
				.isFalse();
		}
		StoreTimeTravel timeTravel = timeTravel();
		AcquireResult result;
		if (early.isAcquired() || timeTravel == null) {
			result = early.isAcquired() ? early : awaitAcquired(later);
			assertThat(elapsedSince(started)).isGreaterThanOrEqualTo(atLeast.minus(CLOCK_TOLERANCE));
		}
		else {
			Duration half = atLeast.dividedBy(2);
			timeTravel.elapse(job, half);
			if (elapsedSince(started).compareTo(half.minus(CLOCK_TOLERANCE)) < 0) {
				assertThat(backend().tryAcquire(later).isAcquired()).as("a claim half of lockAtLeastFor later")
					.isFalse();
			}
			result = acquireAfter(atLeast.minus(half), later);
		}
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.FAILED));
		assertThat(result.fencingToken()).isGreaterThan(run1.fencingToken());
	}

}
