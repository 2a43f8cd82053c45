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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The store contract's pause and resume cases (see {@link JobControls}), run for a
 * backend that {@link #supportsControls() supports controls}:
 * <ul>
 * <li>A paused job's claims, with a slot, without one, or to recover, are refused with
 * {@link Outcome#PAUSED} (which takes precedence over {@code held} and {@code slot-done})
 * and change nothing: holder, fencing token and last slot stay, and the first claim after
 * the resume gets the next fencing token.</li>
 * <li>Pausing every job ({@code pause(null, ...)}) refuses the claims of every job, a job
 * the store has never seen included, and such a refused claim stores nothing.
 * {@code resume(null, ...)} resumes every job, those paused one by one included;
 * {@code resume(job, ...)} clears only that job's own pause, so the job stays paused
 * while every job is.</li>
 * <li>A resume without catch-up moves the last claimed slot to the store's clock: a slot
 * that passed while paused is refused as {@code slot-done}, nothing is recovered, and the
 * next slot is claimed as a first attempt. A resume with catch-up leaves the last slot
 * where it was.</li>
 * <li>{@code startRun} under a lease held across the pause is refused while the job is
 * paused, and, after a resume without catch-up, for a slot before the resume; a later
 * slot, and a retry of it, start.</li>
 * <li>The pause is atomic with the claim: a claim the store serialises after the pause,
 * by another backend instance on the same store or by a thread racing the pause, is
 * refused; and a claim racing a resume without catch-up never takes a slot that passed
 * while paused.</li>
 * </ul>
 * The cases that pause every job run on {@link #isolatedBackend()}, a store space of the
 * test class's own, since such a pause stops every job of the store.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreControlsContract extends StoreRunCompletionContract {

	/**
	 * Return whether {@link LeaseBackend#controls()} of the backend under test is
	 * present: then the control cases run, else the suite only checks that it is empty.
	 * @return whether the backend supports controls
	 */
	protected boolean supportsControls() {
		return false;
	}

	/**
	 * Return a backend on the same kind of store as {@link #backend()} but on a store
	 * space (table, key prefix, namespace) that only this test class uses, so that
	 * pausing every job there pauses no other test's jobs. Every call may return a new
	 * instance, on the same space. {@code null} (the default) skips the cases that pause
	 * every job.
	 * @return the isolated backend, or {@code null}
	 */
	protected @Nullable LeaseBackend isolatedBackend() {
		return null;
	}

	/**
	 * Return the controls of the backend under test, skipping the case when it has none.
	 * @return the controls
	 */
	protected final JobControls controls() {
		assumeTrue(supportsControls(), "the backend supports no controls");
		return backend().controls().orElseThrow();
	}

	/**
	 * Return the isolated backend, skipping the case when there is none.
	 * @return the isolated backend
	 */
	protected final LeaseBackend isolated() {
		assumeTrue(supportsControls(), "the backend supports no controls");
		LeaseBackend isolated = isolatedBackend();
		assumeTrue(isolated != null, "no isolated store space to pause every job in");
		return isolated;
	}

	@Test
	void controlsArePresentExactlyWhenTheBackendSupportsThem() {
		assertThat(backend().controls().isPresent()).as("controls() of %s", backend().id())
			.isEqualTo(supportsControls());
	}

	@Test
	void aPausedJobRefusesEveryClaimWithPausedAndMovesNothing() {
		JobControls controls = controls();
		String job = jobName("paused");
		LeaseRequest first = request(job, "node-a", LONG_TTL, S1);
		HeldLease lease = held(first, backend().tryAcquire(first));
		backend().release(lease, Duration.ZERO);
		// what a store reports of a released lease (its last holder, or none) is its own
		// business: the refused claims must only leave it as it was
		LeaseInfo released = backend().describe(job).orElseThrow();
		controls.pause(job, "ops", "incident 42");
		assertPaused(backend().tryAcquire(request(job, "node-b", LONG_TTL, S2)), "a first claim");
		assertPaused(backend().tryAcquire(request(job, "node-b")), "a slot-less claim");
		assertPaused(backend().tryAcquire(request(job, "node-b", LONG_TTL, S1)), "a claim of a done slot");
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
			assertThat(info.lastSlot()).isEqualTo(S1);
			assertThat(info.holder()).isEqualTo(released.holder());
			assertThat(info.live()).isFalse();
		});
		controls.resume(job, true);
		AcquireResult resumed = backend().tryAcquire(request(job, "node-b", LONG_TTL, S2));
		assertThat(resumed.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(resumed.fencingToken()).as("the next fencing token").isEqualTo(lease.fencingToken() + 1);
	}

	@Test
	void aPausedJobRefusesARecoveryClaimAndTheRunIsRecoveredAfterAResumeWithCatchUp() {
		assumeTrue(supportsRecovery());
		JobControls controls = controls();
		String job = jobName("paused-recovery");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		controls.pause(job, "ops", null);
		for (int i = 0; i < 3; i++) {
			assertPaused(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)),
					"a recovery claim");
			assertPaused(backend().tryAcquire(claim(job, "node-b", LONG_TTL, S2, RECOVER_LOST, S1)), "a first claim");
		}
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.fencingToken()).isEqualTo(fence);
			assertThat(info.lastSlot()).isEqualTo(S1);
		});
		controls.resume(job, true);
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::lastSlot).isEqualTo(S1);
		AcquireResult recovered = awaitRecovered(recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST));
		assertThat(recovered.fencingToken()).isEqualTo(fence + 1);
		assertThat(recovered.lastSlot()).isEqualTo(S1);
	}

	@Test
	void pausingAJobTheStoreHasNotSeenRefusesItsFirstClaim() {
		JobControls controls = controls();
		String job = jobName("paused-unseen");
		controls.pause(job, "ops", null);
		assertPaused(backend().tryAcquire(request(job, "node-a", LONG_TTL, S1)), "a first claim");
		assertPaused(backend().tryAcquire(request(job, "node-a")), "a slot-less claim");
		controls.resume(job, true);
		AcquireResult first = backend().tryAcquire(request(job, "node-a", LONG_TTL, S1));
		assertThat(first.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(first.fencingToken()).isPositive();
	}

	@Test
	void aResumeWithoutCatchUpSkipsTheSlotsThatPassedWhilePaused() {
		assumeTrue(supportsRecovery());
		JobControls controls = controls();
		String job = jobName("resume-skip");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		// node-a dies while its run of S1 is running: recovery would run S1 again
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		controls.pause(job, "ops", null);
		Instant beforeResume = Instant.now();
		controls.resume(job, false);
		Instant lastSlot = backend().describe(job).orElseThrow().lastSlot();
		assertThat(lastSlot).as("the last slot after a resume without catch-up")
			.isCloseTo(beforeResume, within(STORE_CLOCK_MARGIN.toMillis(), ChronoUnit.MILLIS));
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).as("pending work after the resume").isEmpty();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
			.as("a recovery claim after the resume")
			.isFalse();
		AcquireResult passed = backend().tryAcquire(claim(job, "node-b", LONG_TTL, S2, RECOVER_LOST, S1));
		assertThat(passed.outcome()).as("a slot that passed while paused").isEqualTo(Outcome.SLOT_DONE);
		Instant next = lastSlot.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
		AcquireResult claimed = awaitAcquired(claim(job, "node-b", LONG_TTL, next, RECOVER_LOST, null));
		assertThat(claimed.fencingToken()).isEqualTo(fence + 1);
		assertThat(claimed.lastSlot()).isEqualTo(next);
		assertThat(claimed.run()).isNotNull().satisfies((run) -> {
			assertThat(run.slot()).as("a first attempt of the next slot, not a recovery of S1").isEqualTo(next);
			assertThat(run.attempt()).isEqualTo(1);
		});
	}

	@Test
	void aResumeWithCatchUpLeavesTheLastSlot() {
		assumeTrue(supportsRecovery());
		JobControls controls = controls();
		String job = jobName("resume-catch-up");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO);
		controls.pause(job, "ops", null);
		controls.resume(job, true);
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::lastSlot).isEqualTo(S1);
		assertThat(backend().tryAcquire(claim(job, "node-b", LONG_TTL, S2, CATCH_UP, S1)).outcome())
			.isEqualTo(Outcome.ACQUIRED);
	}

	@Test
	void resumingAJobThatIsNotPausedChangesNothing() {
		JobControls controls = controls();
		String job = jobName("resume-unpaused");
		LeaseRequest first = request(job, "node-a", LONG_TTL, S1);
		HeldLease lease = held(first, backend().tryAcquire(first));
		controls.resume(job, false);
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.lastSlot()).isEqualTo(S1);
			assertThat(info.live()).isTrue();
			assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
		});
		assertThat(backend().renew(List.of(lease), LONG_TTL)).containsExactly(lease.leaseToken());
	}

	@Test
	void aClaimByAnotherBackendInstanceAfterThePauseIsRefused() {
		LeaseBackend pauser = isolated();
		LeaseBackend claimer = isolated();
		String job = jobName("paused-elsewhere");
		LeaseRequest first = request(job, "node-a", LONG_TTL, S1);
		claimer.release(held(first, claimer.tryAcquire(first)), Duration.ZERO);
		pauser.controls().orElseThrow().pause(job, "node-p", null);
		assertPaused(claimer.tryAcquire(request(job, "node-b", LONG_TTL, S2)), "a claim by another instance");
		pauser.controls().orElseThrow().resume(job, true);
		assertThat(claimer.tryAcquire(request(job, "node-b", LONG_TTL, S2)).outcome()).isEqualTo(Outcome.ACQUIRED);
	}

	@Test
	void pausingEveryJobRefusesTheClaimsOfEveryJobAndStoresNothingForAnUnseenOne() {
		LeaseBackend pauser = isolated();
		LeaseBackend claimer = isolated();
		JobControls controls = pauser.controls().orElseThrow();
		String known = jobName("pause-all-known");
		LeaseRequest first = request(known, "node-a", LONG_TTL, S1);
		long fence = held(first, claimer.tryAcquire(first)).fencingToken();
		claimer.release(HeldLease.of(first, fence), Duration.ZERO);
		String unseen = jobName("pause-all-unseen");
		try {
			controls.pause(null, "ops", "maintenance");
			assertPaused(claimer.tryAcquire(request(known, "node-b", LONG_TTL, S2)), "a claim of a known job");
			assertPaused(claimer.tryAcquire(request(unseen, "node-b", LONG_TTL, S1)), "a claim of an unseen job");
			assertPaused(claimer.tryAcquire(request(unseen, "node-b")), "a slot-less claim of an unseen job");
			assertThat(claimer.describe(unseen)).as("what a refused claim of an unseen job stored").isEmpty();
			assertThat(claimer.describe(known)).get().extracting(LeaseInfo::fencingToken).isEqualTo(fence);
			Map<String, JobControl> read = controls.read(List.of(known, unseen));
			assertThat(read.get(unseen)).satisfies((control) -> {
				assertThat(control.paused()).isTrue();
				assertThat(control.pausedBy()).isEqualTo("ops");
				assertThat(control.pauseReason()).isEqualTo("maintenance");
				assertThat(control.pausedAt()).isNotNull();
			});
			assertThat(read.get(known).paused()).isTrue();
		}
		finally {
			controls.resume(null, true);
		}
		assertThat(controls.read(List.of(unseen)).get(unseen)).isEqualTo(JobControl.none(unseen));
		AcquireResult resumed = claimer.tryAcquire(request(known, "node-b", LONG_TTL, S2));
		assertThat(resumed.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(resumed.fencingToken()).isEqualTo(fence + 1);
		assertThat(claimer.tryAcquire(request(unseen, "node-b", LONG_TTL, S1)).outcome()).isEqualTo(Outcome.ACQUIRED);
	}

	@Test
	void resumingOneJobWhileEveryJobIsPausedKeepsItPausedAndResumingEveryJobResumesAll() {
		LeaseBackend backend = isolated();
		JobControls controls = backend.controls().orElseThrow();
		String single = jobName("own-pause");
		String other = jobName("own-pause-other");
		try {
			controls.pause(single, "alice", "own");
			controls.pause(null, "bob", "all");
			controls.resume(single, true);
			assertThat(controls.read(List.of(single)).get(single).paused()).as("paused while every job is").isTrue();
			assertPaused(backend.tryAcquire(request(single, "node-a", LONG_TTL, S1)), "a claim while every job is");
			controls.pause(other, "carol", "own");
		}
		finally {
			controls.resume(null, true);
		}
		Map<String, JobControl> read = controls.read(List.of(single, other));
		assertThat(read.get(single).paused()).isFalse();
		assertThat(read.get(other).paused()).as("a job paused on its own, after resuming every job").isFalse();
		assertThat(backend.tryAcquire(request(other, "node-a", LONG_TTL, S1)).outcome()).isEqualTo(Outcome.ACQUIRED);
	}

	@Test
	void noClaimOfASlotThatPassedWhilePausedSucceedsAcrossAResumeWithoutCatchUp() throws Exception {
		LeaseBackend backend = isolated();
		JobControls controls = backend.controls().orElseThrow();
		String job = jobName("resume-race");
		LeaseRequest first = request(job, "node-a", LONG_TTL, S1);
		backend.release(held(first, backend.tryAcquire(first)), Duration.ZERO);
		controls.pause(job, "ops", null);
		int threads = 4;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		AtomicBoolean resumed = new AtomicBoolean();
		List<String> outcomes = new CopyOnWriteArrayList<>();
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<Integer>> afterResume = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				String owner = "node-" + i;
				afterResume.add(pool.submit(() -> {
					start.await();
					int refusedAfter = 0;
					long deadline = System.nanoTime() + PATIENCE.toNanos();
					while (refusedAfter < 10 && System.nanoTime() - deadline < 0) {
						boolean after = resumed.get();
						AcquireResult result = backend.tryAcquire(request(job, owner, LONG_TTL, S2));
						if (result.isAcquired()
								|| (result.outcome() != Outcome.PAUSED && result.outcome() != Outcome.SLOT_DONE)) {
							outcomes.add(owner + ": " + result.outcome());
						}
						if (after) {
							refusedAfter++;
						}
					}
					return refusedAfter;
				}));
			}
			start.countDown();
			controls.resume(job, false);
			resumed.set(true);
			for (Future<Integer> refused : afterResume) {
				assertThat(refused.get(30, TimeUnit.SECONDS)).isEqualTo(10);
			}
			assertThat(outcomes).as("claims of a slot that passed while paused, other than paused or slot-done")
				.isEmpty();
			assertThat(backend.tryAcquire(request(job, "node-z", LONG_TTL, S2)).outcome()).isEqualTo(Outcome.SLOT_DONE);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void noClaimSucceedsOnceAPauseOfTheJobReturned() throws Exception {
		LeaseBackend backend = isolated();
		String job = jobName("pause-race");
		assertNoClaimAfterThePause(backend, isolated(), job, job);
	}

	@Test
	void noClaimOfAnyJobSucceedsOnceAPauseOfEveryJobReturned() throws Exception {
		LeaseBackend backend = isolated();
		try {
			assertNoClaimAfterThePause(backend, isolated(), jobName("pause-all-race"), null);
		}
		finally {
			backend.controls().orElseThrow().resume(null, true);
		}
	}

	/**
	 * Let threads claim and release {@code job}, and with a pause of every job also jobs
	 * the store has never seen, while another thread pauses: no claim that started after
	 * the pause returned may succeed.
	 */
	private void assertNoClaimAfterThePause(LeaseBackend claimer, LeaseBackend pauser, String job,
			@Nullable String paused) throws Exception {
		int threads = 4;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		AtomicBoolean pauseReturned = new AtomicBoolean();
		AtomicInteger acquired = new AtomicInteger();
		List<String> violations = new CopyOnWriteArrayList<>();
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<Integer>> refusals = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				String owner = "node-" + i;
				boolean fresh = paused == null && i % 2 == 1;
				refusals.add(pool.submit(() -> {
					start.await();
					int pausedAfter = 0;
					long deadline = System.nanoTime() + PATIENCE.toNanos();
					while (pausedAfter < 20 && System.nanoTime() - deadline < 0) {
						String claimed = fresh ? jobName("pause-race-fresh") : job;
						LeaseRequest request = request(claimed, owner);
						boolean after = pauseReturned.get();
						AcquireResult result = claimer.tryAcquire(request);
						if (result.isAcquired()) {
							acquired.incrementAndGet();
							if (after) {
								violations.add(claimed + " acquired by " + owner + " after the pause returned");
							}
							claimer.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
						}
						else if (after) {
							if (result.outcome() == Outcome.PAUSED) {
								pausedAfter++;
							}
							else {
								violations.add(claimed + " refused as " + result.outcome() + " after the pause");
							}
						}
					}
					return pausedAfter;
				}));
			}
			start.countDown();
			await().atMost(PATIENCE).until(() -> acquired.get() >= 10);
			pauser.controls().orElseThrow().pause(paused, "ops", "race");
			pauseReturned.set(true);
			for (Future<Integer> refused : refusals) {
				assertThat(refused.get(30, TimeUnit.SECONDS)).as("claims refused as paused after the pause")
					.isEqualTo(20);
			}
			assertThat(violations).isEmpty();
		}
		finally {
			pool.shutdownNow();
		}
	}

	static void assertPaused(AcquireResult result, String claim) {
		assertThat(result.outcome()).as(claim + " of a paused job").isEqualTo(Outcome.PAUSED);
		assertThat(result.isAcquired()).isFalse();
		assertThat(result.fencingToken()).isZero();
	}

}
