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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
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
 * The store contract's claim-policy cases, on stores that support recovery: a first claim
 * with a policy makes the slot's first attempt the current run, a dead or failed run
 * becomes pending and one recovery claim takes it over, within the attempt limit and
 * after the retry delay, a first claim after unclaimed slots reports them for catch-up,
 * and slots claimed without a policy are neither pending nor caught up.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreRecoveryContract extends StoreOperationsContract {

	@Test
	void firstClaimWithAPolicyMakesTheSlotsFirstAttemptTheCurrentRun() {
		assumeTrue(supportsRecovery());
		String job = jobName("first-claim");
		LeaseRequest request = claim(job, "node-a", LONG_TTL, S1, RECOVER_LOST, null);
		AcquireResult result = backend().tryAcquire(request);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
		assertThat(result.lastSlot()).isEqualTo(S1);
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
	}

	@Test
	void aSucceededRunLeavesNothingPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("succeeded");
		LeaseRequest request = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease lease = held(request, backend().tryAcquire(request));
		backend().release(lease, Duration.ZERO, RunCompletion.succeeded());
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", LONG_TTL, RECOVER_FAILED)).isAcquired()).isFalse();
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aDeadRunIsPendingOnceItsLeaseExpiresAndExactlyOneRecoveryClaimWins() throws Exception {
		assumeTrue(supportsRecovery());
		String job = jobName("dead-run");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", LONG_TTL, RECOVER_LOST)).isAcquired())
			.as("recovery claim of a live lease")
			.isFalse();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			// the claims that only mark the run, and the grace after the mark, without
			// waiting: the contenders race for the run once the grace has passed
			LeaseRequest marking = recoveryClaim(job, "node-marker", RECOVERY_TTL, RECOVER_LOST);
			assertThat(backend().tryAcquire(marking).isAcquired()).as("the first recovery claim only marks").isFalse();
			assertThat(backend().tryAcquire(recoveryClaim(job, "node-marker", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
				.as("a recovery claim within the grace")
				.isFalse();
			timeTravel.elapse(job, marking.recoveryGrace().plus(BEYOND));
		}
		int contenders = 8;
		ExecutorService pool = Executors.newFixedThreadPool(contenders);
		try {
			// every contender claims until one of them has won (the first claims only
			// mark
			// the run, which is taken over once the recovery grace has passed)
			CountDownLatch start = new CountDownLatch(1);
			AtomicReference<AcquireResult> someWin = new AtomicReference<>();
			List<Future<List<AcquireResult>>> results = new ArrayList<>();
			for (int i = 0; i < contenders; i++) {
				String owner = "node-" + i;
				results.add(pool.submit(() -> {
					start.await();
					List<AcquireResult> wins = new ArrayList<>();
					long deadline = System.nanoTime() + PATIENCE.toNanos();
					while (someWin.get() == null && System.nanoTime() - deadline < 0) {
						AcquireResult result = backend()
							.tryAcquire(recoveryClaim(job, owner, RECOVERY_TTL, RECOVER_LOST));
						if (result.isAcquired()) {
							wins.add(result);
							someWin.compareAndSet(null, result);
						}
					}
					return wins;
				}));
			}
			start.countDown();
			List<AcquireResult> won = new ArrayList<>();
			for (Future<List<AcquireResult>> result : results) {
				won.addAll(result.get(30, TimeUnit.SECONDS));
			}
			assertThat(won).hasSize(1);
			AcquireResult winner = won.get(0);
			assertThat(winner.fencingToken()).isGreaterThan(fence);
			assertThat(winner.run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
			assertThat(winner.lastSlot()).isEqualTo(S1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void startRunRaisesTheFenceAndRecordsTheAttemptWhileTheLeaseIsHeld() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-run");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		LeaseRequest recovery = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST);
		HeldLease lease = held(recovery, awaitRecovered(recovery));
		OptionalLong second = backend().startRun(lease, S1, 2);
		assertThat(second).isPresent();
		assertThat(second.getAsLong()).isGreaterThan(lease.fencingToken()).isGreaterThan(fence);
		HeldLease run = new HeldLease(job, "node-b", lease.leaseToken(), second.getAsLong(), S1);
		OptionalLong third = backend().startRun(run, S2, 1);
		assertThat(third).isPresent();
		assertThat(third.getAsLong()).isGreaterThan(second.getAsLong());
		backend().release(new HeldLease(job, "node-b", lease.leaseToken(), third.getAsLong(), S2), Duration.ZERO,
				RunCompletion.succeeded());
		assertThat(backend().startRun(run, S3, 1)).as("startRun after release").isEmpty();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
		LeaseRequest next = claim(job, "node-c", LONG_TTL, S2, RECOVER_LOST, S1);
		assertThat(backend().tryAcquire(next).outcome()).as("S2 was claimed by startRun").isEqualTo(Outcome.SLOT_DONE);
	}

	@Test
	void aFailedRunIsPendingOnlyUnderRecoverFailedAndAfterItsRetryDelay() {
		assumeTrue(supportsRecovery());
		String job = jobName("failed-run");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		Duration retryDelay = Duration.ofSeconds(2);
		backend().release(lease, Duration.ZERO, RunCompletion.failed(retryDelay));
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).as("before the retry delay").isEmpty();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", LONG_TTL, RECOVER_FAILED)).isAcquired())
			.as("recovery claim before the retry delay")
			.isFalse();
		awaitPending(job, RECOVER_FAILED, retryDelay);
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).as("under recovery=lost").isEmpty();
		LeaseRequest recovery = recoveryClaim(job, "node-b", LONG_TTL, RECOVER_FAILED);
		AcquireResult result = backend().tryAcquire(recovery);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.FAILED));
	}

	@Test
	void aFirstClaimOfALaterSlotTakesOverAFailedRunBeforeItsRetryDelay() {
		assumeTrue(supportsRecovery());
		String job = jobName("failed-then-next");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO,
				RunCompletion.failed(Duration.ofMinutes(5)));
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		AcquireResult result = backend().tryAcquire(next);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S2);
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.FAILED));
	}

	@Test
	void aFirstClaimOfALaterSlotKeepsADeadRunForItsNewHolder() {
		assumeTrue(supportsRecovery());
		String job = jobName("dead-then-next");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		// a recovery claim marks the run still recorded as running; once the grace after
		// the mark has passed, a first claim of a later slot takes it over too
		LeaseRequest marking = recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST);
		assertThat(backend().tryAcquire(marking).isAcquired()).isFalse();
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_LOST, S1);
		// the grace is the marking claim's on some stores, the claimant's on others (the
		// Kubernetes backend measures it on the claiming node)
		Duration grace = Collections.max(List.of(marking.recoveryGrace(), next.recoveryGrace()));
		AcquireResult result = acquireAfter(grace, next);
		assertThat(result.fencingToken()).isGreaterThan(fence);
		assertThat(result.lastSlot()).isEqualTo(S2);
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
	}

	@Test
	void theAttemptLimitEndsRecovery() {
		assumeTrue(supportsRecovery());
		String job = jobName("attempt-limit");
		ClaimPolicy twoAttempts = new ClaimPolicy(true, false, 2, false);
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, twoAttempts, null);
		held(first, backend().tryAcquire(first));
		awaitPending(job, twoAttempts, storedTtl(SHORT_TTL));
		LeaseRequest recovery = recoveryClaim(job, "node-b", SHORT_TTL, twoAttempts);
		HeldLease lease = held(recovery, awaitRecovered(recovery));
		assertThat(backend().startRun(lease, S1, 2)).isPresent();
		// node-b dies too: its attempt 2 is the last one
		awaitExpired(job, storedTtl(SHORT_TTL));
		assertThat(backend().findPending(Map.of(job, twoAttempts))).isEmpty();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).as("with three attempts").contains(job);
	}

	@Test
	void aFirstClaimAfterUnclaimedSlotsReportsTheLastRunForCatchUp() {
		assumeTrue(supportsRecovery());
		String job = jobName("catch-up");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest late = claim(job, "node-b", LONG_TTL, S4, CATCH_UP, S3);
		AcquireResult result = backend().tryAcquire(late);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).as("S2 and S3 were never claimed").isEqualTo(new SlotRun(S1, 1, RunState.SUCCEEDED));
		HeldLease lease = HeldLease.of(late, result.fencingToken());
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		OptionalLong s3 = backend().startRun(lease, S3, 1);
		OptionalLong s4 = backend().startRun(lease, S4, 1);
		assertThat(s2).isPresent();
		assertThat(s3).isPresent();
		assertThat(s4).isPresent();
		assertThat(s2.getAsLong()).isGreaterThan(result.fencingToken());
		assertThat(s3.getAsLong()).isGreaterThan(s2.getAsLong());
		assertThat(s4.getAsLong()).isGreaterThan(s3.getAsLong());
	}

	@Test
	void aFirstClaimRightAfterTheLastSlotHasNothingToCatchUp() {
		assumeTrue(supportsRecovery());
		String job = jobName("no-gap");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, CATCH_UP, S1);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aHolderThatDiedBetweenCatchUpRunsLeavesTheRestPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("died-mid-catch-up");
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, true);
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, policy, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest late = claim(job, "node-b", SHORT_TTL, S4, policy, S3);
		HeldLease lease = held(late, backend().tryAcquire(late));
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		assertThat(s2).isPresent();
		backend().release(new HeldLease(job, "node-b", lease.leaseToken(), s2.getAsLong(), S2), Duration.ZERO,
				RunCompletion.succeeded());
		awaitPending(job, policy);
		LeaseRequest recovery = recoveryClaim(job, "node-c", LONG_TTL, policy);
		AcquireResult result = backend().tryAcquire(recovery);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).isEqualTo(new SlotRun(S2, 1, RunState.SUCCEEDED));
	}

	@Test
	void withoutASlotAClaimWithoutAPolicyLeavesNothingPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("no-policy");
		held(request(job, "node-a", SHORT_TTL, null), backend().tryAcquire(request(job, "node-a", SHORT_TTL, null)));
		awaitExpired(job, storedTtl(SHORT_TTL));
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
	}

	@Test
	void aClaimOfASlotWithoutAPolicyEndedByItsReleaseLeavesNothingPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("no-policy-slot");
		LeaseRequest request = request(job, "node-a", LONG_TTL, S1);
		backend().release(held(request, backend().tryAcquire(request)), Duration.ZERO, RunCompletion.succeeded());
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void slotsClaimedWithoutAPolicyAreNotCaughtUpByALaterClaimWithOne() {
		assumeTrue(supportsRecovery());
		String job = jobName("mixed-catch-up");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		for (Instant slot : List.of(S2, S3)) {
			LeaseRequest none = request(job, "node-b", LONG_TTL, slot);
			backend().release(held(none, backend().tryAcquire(none)), Duration.ZERO);
		}
		LeaseRequest next = claim(job, "node-a", LONG_TTL, S4, CATCH_UP, S3);
		AcquireResult result = backend().tryAcquire(next);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).as("S2 and S3 were claimed without a policy: nothing is pending")
			.isEqualTo(new SlotRun(S4, 1, RunState.RUNNING));
	}

	@Test
	void slotsClaimedWithoutAPolicyAreNotPendingForALaterClaimWithOne() {
		assumeTrue(supportsRecovery());
		String job = jobName("mixed-policy");
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, true);
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, policy, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		for (Instant slot : List.of(S2, S3)) {
			LeaseRequest none = request(job, "node-b", LONG_TTL, slot);
			backend().release(held(none, backend().tryAcquire(none)), Duration.ZERO, RunCompletion.succeeded());
		}
		LeaseRequest next = claim(job, "node-a", LONG_TTL, S4, policy, S3);
		AcquireResult result = backend().tryAcquire(next);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).as("S2 and S3 ran under the claims without a policy")
			.isEqualTo(new SlotRun(S4, 1, RunState.RUNNING));
	}

}
