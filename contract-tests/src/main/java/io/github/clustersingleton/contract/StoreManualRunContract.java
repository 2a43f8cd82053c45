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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.ManualRun.State;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The store contract's run-now, reschedule and read cases (see {@link JobControls}), and
 * the run ledger's record of a slot skipped while paused:
 * <ul>
 * <li>A claim that {@link LeaseRequest#overridesPause() overrides the pause} takes a
 * paused job's lease (for a run-now request), with the next fencing token, and moves no
 * slot.</li>
 * <li>A run-now request is stored pending with an id of its own, started once (two
 * concurrent starts: one wins), only by a caller whose fencing token is the job's live
 * lease's, also while the job is paused, and ended only once started.</li>
 * <li>{@code manualRun} reads a request back (empty for an unknown id);
 * {@code manualRuns} lists pending and recent requests, newest first, at most
 * {@code limit}, and the store keeps at most the 20 most recent ended requests of a
 * job.</li>
 * <li>{@code read} returns the controls of many jobs in one call, {@link JobControl#none}
 * for a job without any; {@code reschedule} stores and clears a cron override, which a
 * pause and a resume leave alone.</li>
 * </ul>
 *
 * @author cluster-singleton contributors
 */
abstract class StoreManualRunContract extends StoreControlsContract {

	/**
	 * How many ended run-now requests of a job a store keeps, at least and at most.
	 */
	static final int KEPT_ENDED_MANUAL_RUNS = 20;

	@Test
	void aRunNowRequestIsStoredPendingWithAnIdOfItsOwn() {
		JobControls controls = controls();
		String job = jobName("run-now");
		Instant before = Instant.now();
		ManualRun first = controls.requestRun(job, "alice");
		ManualRun second = controls.requestRun(job, "bob");
		assertThat(first.id()).isNotEqualTo(second.id());
		assertThat(first.state()).isEqualTo(State.PENDING);
		assertThat(first.jobName()).isEqualTo(job);
		assertThat(first.requestedBy()).isEqualTo("alice");
		assertThat(first.requestedAt()).isCloseTo(before, within(STORE_CLOCK_MARGIN.toMillis(), ChronoUnit.MILLIS));
		assertThat(first.owner()).isNull();
		assertThat(first.finishedAt()).isNull();
		assertThat(controls.manualRun(job, first.id())).get().satisfies((read) -> {
			assertThat(read.id()).isEqualTo(first.id());
			assertThat(read.state()).isEqualTo(State.PENDING);
			assertThat(read.requestedBy()).isEqualTo("alice");
		});
		assertThat(controls.manualRun(job, "no-such-request")).isEmpty();
		assertThat(controls.manualRun(jobName("other"), first.id())).as("another job's request").isEmpty();
		JobControl control = controls.read(List.of(job)).get(job);
		assertThat(control.pendingRuns()).extracting(ManualRun::id).containsExactlyInAnyOrder(first.id(), second.id());
		assertThat(control.pendingRuns()).isSortedAccordingTo(Comparator.comparing(ManualRun::requestedAt));
		assertThat(control.paused()).isFalse();
	}

	@Test
	void aRunNowRequestStartsOnceAcrossConcurrentCallers() throws Exception {
		JobControls controls = controls();
		String job = jobName("run-now-race");
		LeaseRequest request = request(job, "node-a");
		HeldLease lease = acquire(request);
		ManualRun run = controls.requestRun(job, "alice");
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Boolean>> started = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				started.add(pool.submit(() -> {
					start.await();
					return controls.startManualRun(job, run.id(), "node-a", lease.fencingToken());
				}));
			}
			start.countDown();
			int wins = 0;
			for (Future<Boolean> result : started) {
				wins += result.get(30, TimeUnit.SECONDS) ? 1 : 0;
			}
			assertThat(wins).as("starts that won").isEqualTo(1);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(controls.startManualRun(job, run.id(), "node-a", lease.fencingToken())).as("a third start")
			.isFalse();
		assertThat(controls.manualRun(job, run.id())).get().satisfies((read) -> {
			assertThat(read.state()).isEqualTo(State.RUNNING);
			assertThat(read.owner()).isEqualTo("node-a");
			assertThat(read.fencingToken()).isEqualTo(lease.fencingToken());
		});
		assertThat(controls.read(List.of(job)).get(job).pendingRuns()).isEmpty();
	}

	@Test
	void aRunNowRequestStartsOnlyUnderTheJobsLiveLease() {
		JobControls controls = controls();
		String job = jobName("run-now-lease");
		LeaseRequest request = request(job, "node-a");
		HeldLease lease = acquire(request);
		ManualRun run = controls.requestRun(job, "alice");
		assertThat(controls.startManualRun(job, run.id(), "node-a", lease.fencingToken() + 1))
			.as("a start with a fencing token that is not the lease's")
			.isFalse();
		backend().release(lease, Duration.ZERO);
		assertThat(controls.startManualRun(job, run.id(), "node-a", lease.fencingToken()))
			.as("a start after the lease was released")
			.isFalse();
		assertThat(controls.manualRun(job, run.id())).get().extracting(ManualRun::state).isEqualTo(State.PENDING);
		HeldLease next = acquire(request(job, "node-b"));
		assertThat(controls.startManualRun(job, run.id(), "node-b", next.fencingToken())).isTrue();
	}

	@Test
	void aRunNowRequestStartsWhileTheJobIsPaused() {
		JobControls controls = controls();
		String job = jobName("run-now-paused");
		HeldLease lease = acquire(request(job, "node-a"));
		ManualRun run = controls.requestRun(job, "alice");
		controls.pause(job, "ops", null);
		try {
			assertThat(controls.startManualRun(job, run.id(), "node-a", lease.fencingToken())).isTrue();
			assertThat(controls.read(List.of(job)).get(job).paused()).isTrue();
		}
		finally {
			controls.resume(job, true);
		}
	}

	@Test
	void aClaimThatOverridesThePauseTakesAPausedJobsLeaseForARunNowRequest() {
		JobControls controls = controls();
		String job = jobName("run-now-override");
		LeaseRequest first = request(job, "node-a", LONG_TTL, S1);
		HeldLease scheduled = held(first, backend().tryAcquire(first));
		backend().release(scheduled, Duration.ZERO);
		ManualRun run = controls.requestRun(job, "alice");
		controls.pause(job, "ops", null);
		try {
			assertPaused(backend().tryAcquire(request(job, "node-b")), "a slot-less claim");
			LeaseRequest manual = LeaseRequest.overridingPause(job, "node-b", UUID.randomUUID().toString(), LONG_TTL);
			HeldLease lease = held(manual, backend().tryAcquire(manual));
			assertThat(lease.fencingToken()).isEqualTo(scheduled.fencingToken() + 1);
			assertThat(backend().describe(job)).get().extracting(LeaseInfo::lastSlot).isEqualTo(S1);
			LeaseRequest other = LeaseRequest.overridingPause(job, "node-c", UUID.randomUUID().toString(), LONG_TTL);
			assertThat(backend().tryAcquire(other).outcome()).as("another overriding claim while the lease lives")
				.isEqualTo(Outcome.HELD);
			assertThat(controls.startManualRun(job, run.id(), "node-b", lease.fencingToken())).isTrue();
			backend().release(lease, Duration.ZERO);
			assertPaused(backend().tryAcquire(request(job, "node-c", LONG_TTL, S2)), "a first claim after the run");
		}
		finally {
			controls.resume(job, true);
		}
	}

	@Test
	void aClaimThatOverridesThePauseOfEveryJobTakesTheLease() {
		LeaseBackend backend = isolated();
		JobControls controls = backend.controls().orElseThrow();
		String job = jobName("run-now-override-all");
		try {
			controls.pause(null, "ops", null);
			assertPaused(backend.tryAcquire(request(job, "node-a")), "a slot-less claim");
			LeaseRequest manual = LeaseRequest.overridingPause(job, "node-a", UUID.randomUUID().toString(), LONG_TTL);
			assertThat(backend.tryAcquire(manual).outcome()).isEqualTo(Outcome.ACQUIRED);
		}
		finally {
			controls.resume(null, true);
		}
	}

	@Test
	void onlyAStartedRunNowRequestEnds() {
		JobControls controls = controls();
		String job = jobName("run-now-finish");
		HeldLease lease = acquire(request(job, "node-a"));
		ManualRun pending = controls.requestRun(job, "alice");
		controls.finishManualRun(job, pending.id(), State.SUCCEEDED, null);
		assertThat(controls.manualRun(job, pending.id())).get().satisfies((read) -> {
			assertThat(read.state()).as("a pending request after a finish").isEqualTo(State.PENDING);
			assertThat(read.finishedAt()).isNull();
		});
		assertThat(controls.startManualRun(job, pending.id(), "node-a", lease.fencingToken())).isTrue();
		controls.finishManualRun(job, pending.id(), State.FAILED, "java.lang.IllegalStateException: boom");
		ManualRun failed = controls.manualRun(job, pending.id()).orElseThrow();
		assertThat(failed.state()).isEqualTo(State.FAILED);
		assertThat(failed.error()).contains("boom");
		assertThat(failed.finishedAt()).isNotNull();
		assertThat(failed.owner()).isEqualTo("node-a");
		controls.finishManualRun(job, pending.id(), State.SUCCEEDED, null);
		assertThat(controls.manualRun(job, pending.id())).as("an ended request after another finish").contains(failed);
		controls.finishManualRun(job, "no-such-request", State.SUCCEEDED, null);
	}

	@Test
	void manualRunsListsPendingAndRecentRequestsNewestFirstAndTheStoreKeepsTheRecentEndedOnes() {
		JobControls controls = controls();
		String job = jobName("run-now-list");
		HeldLease lease = acquire(request(job, "node-a"));
		List<String> ended = new ArrayList<>();
		for (int i = 0; i < KEPT_ENDED_MANUAL_RUNS + 3; i++) {
			ManualRun run = controls.requestRun(job, "alice");
			assertThat(controls.startManualRun(job, run.id(), "node-a", lease.fencingToken())).isTrue();
			controls.finishManualRun(job, run.id(), State.SUCCEEDED, null);
			ended.add(run.id());
		}
		ManualRun pending = controls.requestRun(job, "bob");
		List<ManualRun> all = controls.manualRuns(job, 100);
		assertThat(all).hasSize(KEPT_ENDED_MANUAL_RUNS + 1);
		assertThat(all).extracting(ManualRun::id).contains(pending.id()).doesNotContain(ended.get(0));
		assertThat(all).isSortedAccordingTo(Comparator.comparing(ManualRun::requestedAt).reversed());
		assertThat(all.get(0).id()).as("the newest request").isEqualTo(pending.id());
		assertThat(controls.manualRun(job, ended.get(0))).as("an ended request beyond the kept ones").isEmpty();
		assertThat(controls.manualRun(job, ended.get(ended.size() - 1))).isPresent();
		assertThat(controls.manualRuns(job, 2)).hasSize(2).first().extracting(ManualRun::id).isEqualTo(pending.id());
		assertThat(controls.manualRuns(jobName("no-requests"), 10)).isEmpty();
	}

	@Test
	void readReturnsTheControlsOfManyJobsInOneCall() {
		JobControls controls = controls();
		String paused = jobName("read-paused");
		String rescheduled = jobName("read-rescheduled");
		String unknown = jobName("read-unknown");
		Instant before = Instant.now();
		controls.pause(paused, "alice", "incident 7");
		controls.reschedule(rescheduled, "0 */5 * * * *");
		ManualRun pending = controls.requestRun(rescheduled, "bob");
		Map<String, JobControl> read = controls.read(List.of(paused, rescheduled, unknown));
		assertThat(read).containsOnlyKeys(paused, rescheduled, unknown);
		assertThat(read.get(unknown)).isEqualTo(JobControl.none(unknown));
		assertThat(read.get(paused)).satisfies((control) -> {
			assertThat(control.paused()).isTrue();
			assertThat(control.pausedBy()).isEqualTo("alice");
			assertThat(control.pauseReason()).isEqualTo("incident 7");
			assertThat(control.pausedAt()).isCloseTo(before, within(STORE_CLOCK_MARGIN.toMillis(), ChronoUnit.MILLIS));
			assertThat(control.cronOverride()).isNull();
			assertThat(control.pendingRuns()).isEmpty();
		});
		assertThat(read.get(rescheduled)).satisfies((control) -> {
			assertThat(control.paused()).isFalse();
			assertThat(control.pausedBy()).isNull();
			assertThat(control.pausedAt()).isNull();
			assertThat(control.cronOverride()).isEqualTo("0 */5 * * * *");
			assertThat(control.pendingRuns()).extracting(ManualRun::id).containsExactly(pending.id());
		});
		controls.pause(paused, "carol", null);
		assertThat(controls.read(List.of(paused)).get(paused)).satisfies((control) -> {
			assertThat(control.pausedBy()).as("who paused it, after a second pause").isEqualTo("carol");
			assertThat(control.pauseReason()).isNull();
		});
		controls.resume(paused, false);
		assertThat(controls.read(List.of(paused)).get(paused)).isEqualTo(JobControl.none(paused));
	}

	@Test
	void rescheduleStoresAndClearsACronOverrideThatPauseAndResumeLeaveAlone() {
		JobControls controls = controls();
		String job = jobName("reschedule");
		HeldLease lease = acquire(request(job, "node-a", LONG_TTL, S1));
		controls.reschedule(job, "0 0 * * * *");
		assertThat(controls.read(List.of(job)).get(job).cronOverride()).isEqualTo("0 0 * * * *");
		assertThat(backend().renew(List.of(lease), LONG_TTL)).as("the lease after a reschedule")
			.containsExactly(lease.leaseToken());
		controls.pause(job, "ops", null);
		controls.reschedule(job, "0 30 * * * *");
		controls.resume(job, false);
		JobControl control = controls.read(List.of(job)).get(job);
		assertThat(control.cronOverride()).isEqualTo("0 30 * * * *");
		assertThat(control.paused()).isFalse();
		controls.reschedule(job, null);
		assertThat(controls.read(List.of(job)).get(job)).isEqualTo(JobControl.none(job));
	}

	@Test
	void theRunLedgerKeepsARecordOfASlotSkippedWhilePausedBesideTheRealRuns() {
		assumeTrue(supportsRecovery());
		String job = jobName("ledger-paused");
		RunLedger ledger = backend().runLedger();
		Instant start = Instant.parse("2026-01-01T10:00:00.123Z");
		long pausedToken = RunState.pausedFencingToken(S2);
		assertThat(pausedToken).isNegative();
		RunRecord skipped = new RunRecord(job, S2, 1, pausedToken, "node-a", RunTrigger.SCHEDULED, RunState.PAUSED,
				start.plusSeconds(60), start.plusSeconds(60), null);
		ledger.record(new RunRecord(job, S1, 1, 1, "node-a", RunTrigger.SCHEDULED, RunState.SUCCEEDED, start,
				start.plusSeconds(1), null), 10);
		ledger.record(skipped, 10);
		// another node skips the same slot: the same record
		ledger.record(new RunRecord(job, S2, 1, pausedToken, "node-b", RunTrigger.SCHEDULED, RunState.PAUSED,
				start.plusSeconds(61), start.plusSeconds(61), null), 10);
		ledger.record(new RunRecord(job, S3, 1, 2, "node-b", RunTrigger.SCHEDULED, RunState.SUCCEEDED,
				start.plusSeconds(120), start.plusSeconds(121), null), 10);
		ledger.markLostBefore(job, 3);
		List<RunRecord> history = ledger.history(job, 10);
		assertThat(history).extracting(RunRecord::fencingToken).containsExactly(2L, 1L, pausedToken);
		assertThat(history).extracting(RunRecord::state)
			.containsExactly(RunState.SUCCEEDED, RunState.SUCCEEDED, RunState.PAUSED);
		assertThat(history.get(2).slot()).isEqualTo(S2);
		assertThat(ledger.history(job, 2)).extracting(RunRecord::fencingToken).containsExactly(2L, 1L);
		assertThat(ledger.lastSuccess(List.of(job))).containsEntry(job, start.plusSeconds(121));
	}

	@Test
	void aPauseStopsTheRunsOfTheLeaseThatHoldsTheJob() {
		assumeTrue(supportsRecovery());
		JobControls controls = controls();
		String job = jobName("paused-start-run");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		controls.pause(job, "ops", null);
		assertThat(backend().startRun(lease, S2, 1)).as("startRun of the next slot while paused").isEmpty();
		assertThat(backend().startRun(lease, S1, 2)).as("startRun of a retry while paused").isEmpty();
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
			assertThat(info.lastSlot()).isEqualTo(S1);
			assertThat(info.live()).as("the lease stays held").isTrue();
		});
		controls.resume(job, true);
		OptionalLong resumed = backend().startRun(lease, S2, 1);
		assertThat(resumed).as("startRun of the next slot after a resume with catch-up").isPresent();
		assertThat(resumed.getAsLong()).isGreaterThan(lease.fencingToken());
	}

	@Test
	void aResumeWithoutCatchUpRefusesTheRunsOfSlotsBeforeTheResumeUnderTheLiveLease() {
		assumeTrue(supportsRecovery());
		JobControls controls = controls();
		String job = jobName("resume-start-run");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		controls.pause(job, "ops", null);
		controls.resume(job, false);
		Instant lastSlot = backend().describe(job).orElseThrow().lastSlot();
		assertThat(backend().startRun(lease, S2, 1)).as("startRun of a slot that passed while paused").isEmpty();
		assertThat(backend().startRun(lease, S1, 2)).as("startRun of a retry of the slot before the pause").isEmpty();
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
			assertThat(info.lastSlot()).isEqualTo(lastSlot);
		});
		Instant next = lastSlot.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
		OptionalLong started = backend().startRun(lease, next, 1);
		assertThat(started).as("startRun of a slot after the resume").isPresent();
		assertThat(started.getAsLong()).isGreaterThan(lease.fencingToken());
		HeldLease run = new HeldLease(job, "node-a", lease.leaseToken(), started.getAsLong(), next);
		OptionalLong retried = backend().startRun(run, next, 2);
		assertThat(retried).as("startRun of a retry of that slot").isPresent();
		assertThat(retried.getAsLong()).isGreaterThan(started.getAsLong());
	}

}
