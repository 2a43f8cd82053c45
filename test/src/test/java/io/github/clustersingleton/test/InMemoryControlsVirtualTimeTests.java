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
package io.github.clustersingleton.test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's side of the cluster-wide controls, in virtual time on the
 * {@link InMemoryLeaseBackend}: paused triggers, resume with and without catch-up,
 * run-now requests, cron overrides and store errors of the control monitor.
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(OutputCaptureExtension.class)
class InMemoryControlsVirtualTimeTests {

	private static final Duration TTL = Duration.ofSeconds(3);

	private static final Duration TICK = TTL.dividedBy(3);

	private final ManualClock clock = new ManualClock();

	/**
	 * Two hours before the clock's start: slot {@code minute(120)} is now.
	 */
	private final Instant base = this.clock.instant().minus(Duration.ofHours(2));

	private final List<AcquireResult.Outcome> outcomes = new CopyOnWriteArrayList<>();

	private final ManualClusterSingletonEngine engine = ManualClusterSingletonEngine.builder()
		.scheduler(new DeterministicScheduler(this.clock))
		.owner("node-a")
		.leaseTtl(TTL)
		.listener(new ClusterSingletonListener() {

			@Override
			public void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result,
					Duration duration) {
				InMemoryControlsVirtualTimeTests.this.outcomes.add(result.outcome());
			}

		})
		.build();

	private final ClusterSingletonExecutor node = this.engine.executor();

	private final JobControls controls = this.engine.store().controls().orElseThrow();

	private final List<ManualClusterSingletonEngine> others = new CopyOnWriteArrayList<>();

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.others.forEach(ManualClusterSingletonEngine::close);
		this.engine.close();
	}

	@Test
	void pausedTriggerSkipsWithPausedOutcomeAndOneLedgerRecordAndIsNotOverdue() throws Throwable {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT.withAlertAfter(Duration.ofMinutes(2)));
		this.node.registerJob(job, record("node-a"));
		this.node.startBackgroundWork();
		this.controls.pause("report", "alice", "incident 42");
		this.engine.advance(TICK);
		assertThat(this.node.isPaused("report")).isTrue();
		assertThat(this.node.cachedControls("report")).get()
			.satisfies((control) -> assertThat(control.pausedBy()).isEqualTo("alice"));
		assertThat(this.node.execute(job, minute(120), RunTrigger.SCHEDULED, record("node-a"))).isFalse();
		// a second node skipping the same slot writes the same record
		ManualClusterSingletonEngine other = node("node-b");
		other.executor().registerJob(job, record("node-b"));
		other.executor().pollControls();
		assertThat(other.executor().execute(job, minute(120), RunTrigger.SCHEDULED, record("node-b"))).isFalse();
		this.engine.runDueTasks();
		assertThat(this.seen).isEmpty();
		assertThat(this.outcomes).containsExactly(AcquireResult.Outcome.PAUSED);
		List<RunRecord> history = this.engine.store().runLedger().history("report", 10);
		assertThat(history).singleElement().satisfies((record) -> {
			assertThat(record.state()).isEqualTo(RunState.PAUSED);
			assertThat(record.slot()).isEqualTo(minute(120));
			assertThat(record.fencingToken()).isEqualTo(RunState.pausedFencingToken(minute(120)));
			assertThat(record.attempt()).isZero();
			assertThat(record.trigger()).isEqualTo(RunTrigger.SCHEDULED);
			assertThat(record.error()).isEqualTo("paused by alice: incident 42");
		});
		// long past its alert-after, a paused job is not overdue
		this.engine.advance(Duration.ofMinutes(10));
		assertThat(this.node.isOverdue(job)).isFalse();
		this.controls.resume("report", false);
		this.engine.advance(TICK);
		assertThat(this.node.isPaused("report")).isFalse();
		// the time paused does not count once resumed
		assertThat(this.node.isOverdue(job)).isFalse();
	}

	@Test
	void resumeWithoutCatchUpDoesNotRunTheSlotsMissedWhilePaused() throws Throwable {
		JobDefinition job = cronJob("run-once", policies(MisfirePolicy.RUN_ONCE));
		assertThat(this.node.execute(job, minute(118), RunTrigger.SCHEDULED, record("node-a"))).isTrue();
		this.controls.pause("run-once", "alice", null);
		assertThat(this.node.execute(job, minute(119), RunTrigger.SCHEDULED, record("node-a"))).isFalse();
		assertThat(this.node.execute(job, minute(120), RunTrigger.SCHEDULED, record("node-a"))).isFalse();
		// resumed half a second before minute 123
		this.engine.advance(Duration.ofMinutes(3).minusMillis(500));
		this.controls.resume("run-once", false);
		assertThat(this.node.execute(job, minute(123), RunTrigger.SCHEDULED, record("node-a"))).isTrue();
		assertThat(this.seen).extracting(Seen::slot).containsExactly(minute(118), minute(123));
		assertThat(this.seen).extracting(Seen::trigger).containsOnly(RunTrigger.SCHEDULED);
		// a late trigger of a slot that passed while paused does not run either
		assertThat(this.node.execute(job, minute(121), RunTrigger.SCHEDULED, record("node-a"))).isFalse();
	}

	@Test
	void resumeWithCatchUpLeavesTheMissedSlotsToTheMisfirePolicy() throws Throwable {
		JobDefinition job = cronJob("run-once", policies(MisfirePolicy.RUN_ONCE));
		assertThat(this.node.execute(job, minute(118), RunTrigger.SCHEDULED, record("node-a"))).isTrue();
		this.controls.pause("run-once", "alice", null);
		assertThat(this.node.execute(job, minute(119), RunTrigger.SCHEDULED, record("node-a"))).isFalse();
		this.engine.advance(Duration.ofMinutes(3).minusMillis(500));
		this.controls.resume("run-once", true);
		assertThat(this.node.execute(job, minute(123), RunTrigger.SCHEDULED, record("node-a"))).isTrue();
		assertThat(this.seen).extracting(Seen::trigger)
			.containsExactly(RunTrigger.SCHEDULED, RunTrigger.CATCH_UP, RunTrigger.SCHEDULED);
		Seen catchUp = this.seen.get(1);
		assertThat(catchUp.slot()).isEqualTo(minute(122));
		assertThat(catchUp.missedSlots()).containsExactly(minute(119), minute(120), minute(121));
	}

	@Test
	void runNowRunsExactlyOnceOnOneOfTwoNodesWithinOnePeriod() throws Throwable {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		ManualClusterSingletonEngine other = node("node-b");
		this.node.registerJob(job, record("node-a"));
		other.executor().registerJob(job, record("node-b"));
		this.node.startBackgroundWork();
		other.executor().startBackgroundWork();
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK);
		assertThat(this.seen).singleElement().satisfies((run) -> {
			assertThat(run.trigger()).isEqualTo(RunTrigger.MANUAL);
			assertThat(run.attempt()).isEqualTo(1);
			assertThat(run.slot()).isNull();
			assertThat(run.fencingToken()).isPositive();
		});
		ManualRun ended = this.controls.manualRun("report", request.id()).orElseThrow();
		assertThat(ended.state()).isEqualTo(ManualRun.State.SUCCEEDED);
		assertThat(ended.owner()).isEqualTo(this.seen.get(0).node());
		assertThat(ended.fencingToken()).isEqualTo(this.seen.get(0).fencingToken());
		this.engine.advance(TICK.multipliedBy(5));
		assertThat(this.seen).hasSize(1);
		this.engine.runDueTasks();
		assertThat(this.engine.store().runLedger().history("report", 10)).singleElement()
			.satisfies((record) -> assertThat(record.trigger()).isEqualTo(RunTrigger.MANUAL))
			.satisfies((record) -> assertThat(record.state()).isEqualTo(RunState.SUCCEEDED));
	}

	@Test
	void runNowThatFailsIsRecordedFailedWithTheError() {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, () -> {
			throw new IllegalStateException("disk full");
		});
		this.node.startBackgroundWork();
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK);
		ManualRun ended = this.controls.manualRun("report", request.id()).orElseThrow();
		assertThat(ended.state()).isEqualTo(ManualRun.State.FAILED);
		assertThat(ended.error()).contains("disk full");
	}

	@Test
	void runNowOfAPausedJobRuns() throws Throwable {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, record("node-a"));
		this.node.startBackgroundWork();
		this.controls.pause(null, "alice", "freeze");
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK);
		assertThat(this.seen).extracting(Seen::trigger).containsExactly(RunTrigger.MANUAL);
		assertThat(this.controls.manualRun("report", request.id()).orElseThrow().state())
			.isEqualTo(ManualRun.State.SUCCEEDED);
		// the scheduled trigger stays paused
		assertThat(this.node.execute(job, minute(120), RunTrigger.SCHEDULED, record("node-a"))).isFalse();
	}

	@Test
	void runNowWaitsWhileARunOfTheJobHoldsItsLeaseElsewhere() {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, record("node-a"));
		this.node.startBackgroundWork();
		// another node's run holds the lease
		assertThat(this.engine.store()
			.tryAcquire(new io.github.clustersingleton.LeaseRequest("report", "node-z", "token-z", TTL, null))
			.isAcquired()).isTrue();
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK);
		assertThat(this.seen).isEmpty();
		assertThat(this.controls.manualRun("report", request.id()).orElseThrow().state())
			.isEqualTo(ManualRun.State.PENDING);
		// once the other run's lease is gone, the next period runs the request
		this.engine.advance(TTL);
		assertThat(this.seen).extracting(Seen::trigger).containsExactly(RunTrigger.MANUAL);
	}

	@Test
	void runningRequestOfANodeThatStoppedIsFailed() {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, record("node-a"));
		ManualRun request = this.controls.requestRun("report", "bob");
		// node-z took the request, then died: its lease expires
		AcquireResult claimed = this.engine.store()
			.tryAcquire(new io.github.clustersingleton.LeaseRequest("report", "node-z", "token-z", TTL, null));
		assertThat(this.controls.startManualRun("report", request.id(), "node-z", claimed.fencingToken())).isTrue();
		this.node.startBackgroundWork();
		this.engine.advance(TICK.multipliedBy(14));
		ManualRun ended = this.controls.manualRun("report", request.id()).orElseThrow();
		assertThat(ended.state()).isEqualTo(ManualRun.State.FAILED);
		assertThat(ended.error()).isEqualTo("node node-z stopped before the run ended");
		assertThat(this.seen).isEmpty();
	}

	@Test
	void cronOverrideMovesTheSlotsWithinOnePeriodAndClearingRestoresThem() {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, record("node-a"));
		this.node.startBackgroundWork();
		this.engine.advance(Duration.ofMinutes(2).plusSeconds(30));
		assertThat(this.node.slotOf(job)).isEqualTo(minute(122));
		this.controls.reschedule("report", "0 0/5 * * * *");
		this.engine.advance(TICK);
		assertThat(this.node.cronOverrides().expression("report")).isEqualTo("0 0/5 * * * *");
		assertThat(this.node.cachedControls("report").map(JobControl::cronOverride)).contains("0 0/5 * * * *");
		assertThat(this.node.slotOf(job)).isEqualTo(minute(120));
		this.controls.reschedule("report", null);
		this.engine.advance(TICK);
		assertThat(this.node.cronOverrides().expression("report")).isNull();
		assertThat(this.node.slotOf(job)).isEqualTo(minute(122));
	}

	@Test
	void storeErrorDuringThePollIsLoggedAndRetriedNextPeriod(CapturedOutput output) {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, record("node-a"));
		this.node.startBackgroundWork();
		this.engine.advance(TICK);
		this.controls.pause("report", "alice", null);
		this.engine.store().setReachable(false);
		this.engine.advance(TICK);
		assertThat(this.node.isPaused("report")).isFalse();
		assertThat(output)
			.contains("could not read the cluster-wide controls of its jobs from the in-memory lease store");
		this.engine.store().setReachable(true);
		this.engine.advance(TICK);
		assertThat(this.node.isPaused("report")).isTrue();
	}

	@Test
	void storeWithoutControlsLeavesTheEngineAlone() throws Throwable {
		ManualClusterSingletonEngine plain = node(this.engine.anotherNode("node-p")
			.backendDecorator((real) -> (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
					LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class },
					(proxy, method, args) -> {
						if (method.getName().equals("controls")) {
							return Optional.empty();
						}
						try {
							return method.invoke(real, args);
						}
						catch (java.lang.reflect.InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					})));
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		plain.executor().registerJob(job, record("node-p"));
		plain.executor().startBackgroundWork();
		this.engine.advance(TICK);
		assertThat(plain.executor().cachedControls()).isEmpty();
		assertThat(plain.executor().execute(job, minute(120), RunTrigger.SCHEDULED, record("node-p"))).isTrue();
	}

	@Test
	void leaderObeysPauseAndRunsTheRunNowRequestsWhileTheOtherNodeOnlyReads() throws Throwable {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		ManualClusterSingletonEngine other = node("node-b");
		this.node.enableLeaderMode("leader", new io.github.clustersingleton.lease.LeaderElection.Listener() {
		});
		other.executor().enableLeaderMode("leader", new io.github.clustersingleton.lease.LeaderElection.Listener() {
		});
		this.node.registerJob(job, record("node-a"));
		other.executor().registerJob(job, record("node-b"));
		this.node.startLeaderElection();
		this.engine.advance(TICK);
		other.executor().startLeaderElection();
		this.node.startBackgroundWork();
		other.executor().startBackgroundWork();
		this.engine.advance(TICK);
		assertThat(this.node.leadership()).get().satisfies((leader) -> assertThat(leader.isLeader()).isTrue());
		this.controls.pause("report", "alice", null);
		this.engine.advance(TICK);
		// the leader still claims each slot, and the store refuses a paused job's
		assertThat(this.node.execute(job, minute(120), RunTrigger.SCHEDULED, record("node-a"))).isFalse();
		assertThat(this.outcomes).contains(AcquireResult.Outcome.PAUSED);
		assertThat(other.executor().isPaused("report")).isTrue();
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK);
		assertThat(this.seen).extracting(Seen::node, Seen::trigger)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("node-a", RunTrigger.MANUAL));
		assertThat(this.controls.manualRun("report", request.id()).orElseThrow().state())
			.isEqualTo(ManualRun.State.SUCCEEDED);
	}

	@Test
	void slotLessTriggerOfAPausedJobIsRefusedByTheStoreWhateverTheNodesView() throws Throwable {
		JobDefinition job = JobDefinition.of("tick", Duration.ofMinutes(1), Duration.ZERO);
		this.node.registerJob(job, record("node-a"));
		// this node has not read the controls since the pause: its view says running
		this.controls.pause("tick", "alice", null);
		assertThat(this.node.isPaused("tick")).isFalse();
		assertThat(this.node.execute(job, null, RunTrigger.SCHEDULED, record("node-a"))).isFalse();
		assertThat(this.node.execute(job, null, RunTrigger.DIRECT, record("node-a"))).isFalse();
		this.engine.runDueTasks();
		assertThat(this.seen).isEmpty();
		assertThat(this.outcomes).containsExactly(AcquireResult.Outcome.PAUSED, AcquireResult.Outcome.PAUSED);
		// no slot, no paused ledger record
		assertThat(this.engine.store().runLedger().history("tick", 10)).isEmpty();
		this.controls.resume("tick", false);
		assertThat(this.node.execute(job, null, RunTrigger.SCHEDULED, record("node-a"))).isTrue();
	}

	@Test
	void pauseDuringACatchUpSequenceStartsNoFurtherSlot() throws Throwable {
		JobDefinition job = cronJob("all", policies(MisfirePolicy.RUN_ALL));
		assertThat(this.node.execute(job, minute(116), RunTrigger.SCHEDULED, record("node-a"))).isTrue();
		ClusterSingletonExecutor.Invocation pausing = () -> {
			this.seen.add(Seen.of("node-a"));
			this.controls.pause("all", "alice", null);
			return null;
		};
		assertThat(this.node.execute(job, minute(120), RunTrigger.SCHEDULED, pausing)).isTrue();
		// the first catch-up run paused the job: the sequence stops there
		assertThat(this.seen).extracting(Seen::slot).containsExactly(minute(116), minute(117));
		assertThat(this.seen).extracting(Seen::trigger).containsExactly(RunTrigger.SCHEDULED, RunTrigger.CATCH_UP);
	}

	@Test
	void liveLeaseStartsNoSlotWhilePausedNorBeforeAResumeWithoutCatchUp() {
		InMemoryLeaseBackend store = this.engine.store();
		io.github.clustersingleton.LeaseRequest request = new io.github.clustersingleton.LeaseRequest("report",
				"node-z", "token-z", Duration.ofHours(1), minute(110));
		io.github.clustersingleton.HeldLease held = io.github.clustersingleton.HeldLease.of(request,
				store.tryAcquire(request).fencingToken());
		this.controls.pause("report", "alice", null);
		assertThat(store.startRun(held, minute(111), 1)).isEmpty();
		this.controls.resume("report", false);
		// the slots before the resume are not run, also under the lease claimed before
		assertThat(store.startRun(held, minute(112), 1)).isEmpty();
		this.engine.advance(Duration.ofMinutes(1));
		assertThat(store.startRun(held, minute(121), 1)).isNotEmpty();
	}

	@Test
	void leadershipKeepsMovingWhileEveryJobIsPaused() {
		ManualClusterSingletonEngine first = node("node-b");
		ManualClusterSingletonEngine second = node("node-c");
		first.executor().enableLeaderMode("leader", new io.github.clustersingleton.lease.LeaderElection.Listener() {
		});
		second.executor().enableLeaderMode("leader", new io.github.clustersingleton.lease.LeaderElection.Listener() {
		});
		first.executor().startLeaderElection();
		this.engine.advance(TICK);
		second.executor().startLeaderElection();
		this.engine.advance(TICK);
		assertThat(first.executor().leadership()).get().satisfies((leader) -> assertThat(leader.isLeader()).isTrue());
		this.controls.pause(null, "alice", "freeze");
		first.close();
		this.engine.advance(TTL.plus(TICK.multipliedBy(2)));
		assertThat(second.executor().leadership()).get().satisfies((leader) -> assertThat(leader.isLeader()).isTrue());
	}

	@Test
	void runNowWhoseEndCouldNotBeRecordedIsRecordedOnceTheStoreIsBack() {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, () -> {
			this.seen.add(Seen.of("node-a"));
			this.engine.store().setReachable(false);
			return null;
		});
		this.node.startBackgroundWork();
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK);
		assertThat(this.seen).hasSize(1);
		this.engine.store().setReachable(true);
		assertThat(this.controls.manualRun("report", request.id()).orElseThrow().state())
			.isEqualTo(ManualRun.State.RUNNING);
		this.engine.advance(TICK.multipliedBy(14));
		ManualRun ended = this.controls.manualRun("report", request.id()).orElseThrow();
		assertThat(ended.state()).isEqualTo(ManualRun.State.SUCCEEDED);
		assertThat(ended.error()).isNull();
		assertThat(this.seen).hasSize(1);
	}

	@Test
	void runningRequestWhoseRunEndedIsFinishedAsItsLedgerRecordSays() {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, record("node-a"));
		ManualRun request = this.controls.requestRun("report", "bob");
		// node-z ran the request and recorded the run, but not the request's end
		AcquireResult claimed = this.engine.store()
			.tryAcquire(new io.github.clustersingleton.LeaseRequest("report", "node-z", "token-z", TTL, null));
		assertThat(this.controls.startManualRun("report", request.id(), "node-z", claimed.fencingToken())).isTrue();
		Instant now = this.clock.instant();
		this.engine.store()
			.runLedger()
			.record(new RunRecord("report", null, 1, claimed.fencingToken(), "node-z", RunTrigger.MANUAL,
					RunState.SUCCEEDED, now, now, null), 100);
		this.node.startBackgroundWork();
		this.engine.advance(TICK.multipliedBy(14));
		ManualRun ended = this.controls.manualRun("report", request.id()).orElseThrow();
		assertThat(ended.state()).isEqualTo(ManualRun.State.SUCCEEDED);
		assertThat(this.seen).isEmpty();
	}

	@Test
	void runNowWhoseStartAnswerWasLostRunsOnce() {
		ManualClusterSingletonEngine lossy = node(this.engine.anotherNode("node-p")
			.backendDecorator((real) -> withControls(real, (controls) -> (proxy, method, args) -> {
				Object result = invoke(controls, method, args);
				if (method.getName().equals("startManualRun")) {
					throw new IllegalStateException("connection reset");
				}
				return result;
			})));
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		lossy.executor().registerJob(job, record("node-p"));
		lossy.executor().startBackgroundWork();
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK.multipliedBy(14));
		assertThat(this.seen).singleElement()
			.satisfies((run) -> assertThat(run.trigger()).isEqualTo(RunTrigger.MANUAL));
		assertThat(this.controls.manualRun("report", request.id()).orElseThrow().state())
			.isEqualTo(ManualRun.State.SUCCEEDED);
	}

	@Test
	void nodeWithAStalePendingViewDoesNotClaimTheLeaseForARequestThatAlreadyRan() {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		this.node.registerJob(job, record("node-a"));
		this.node.startBackgroundWork();
		ManualRun request = this.controls.requestRun("report", "bob");
		this.engine.advance(TICK);
		assertThat(this.controls.manualRun("report", request.id()).orElseThrow().state())
			.isEqualTo(ManualRun.State.SUCCEEDED);
		long fencingToken = this.engine.store().describe("report").orElseThrow().fencingToken();
		// node-p's reads still show the request pending
		ManualClusterSingletonEngine stale = node(this.engine.anotherNode("node-p")
			.backendDecorator((real) -> withControls(real, (controls) -> (proxy, method, args) -> {
				if (method.getName().equals("read")) {
					return java.util.Map.of("report",
							new JobControl("report", false, null, null, null, null, List.of(request)));
				}
				return invoke(controls, method, args);
			})));
		stale.executor().registerJob(job, record("node-p"));
		stale.executor().startBackgroundWork();
		this.engine.advance(TICK.multipliedBy(3));
		assertThat(this.engine.store().describe("report").orElseThrow().fencingToken()).isEqualTo(fencingToken);
		assertThat(this.seen).hasSize(1);
	}

	@Test
	void slotClaimedElsewhereBeforeThePauseGetsNoPausedRecord() throws Throwable {
		JobDefinition job = cronJob("report", JobPolicies.DEFAULT);
		assertThat(this.node.execute(job, minute(120), RunTrigger.SCHEDULED, record("node-a"))).isTrue();
		this.controls.pause("report", "alice", null);
		ManualClusterSingletonEngine other = node("node-b");
		other.executor().registerJob(job, record("node-b"));
		other.executor().pollControls();
		assertThat(other.executor().execute(job, minute(120), RunTrigger.SCHEDULED, record("node-b"))).isFalse();
		this.engine.runDueTasks();
		other.runDueTasks();
		assertThat(this.engine.store().runLedger().history("report", 10)).singleElement()
			.satisfies((record) -> assertThat(record.state()).isEqualTo(RunState.SUCCEEDED));
	}

	private static LeaseBackend withControls(LeaseBackend real,
			java.util.function.Function<JobControls, java.lang.reflect.InvocationHandler> handler) {
		JobControls controls = real.controls().orElseThrow();
		JobControls decorated = (JobControls) java.lang.reflect.Proxy.newProxyInstance(
				JobControls.class.getClassLoader(), new Class<?>[] { JobControls.class }, handler.apply(controls));
		return (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("controls")) {
						return Optional.of(decorated);
					}
					return invoke(real, method, args);
				});
	}

	private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (java.lang.reflect.InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	private ClusterSingletonExecutor.Invocation record(String node) {
		return () -> this.seen.add(Seen.of(node));
	}

	private ManualClusterSingletonEngine node(String owner) {
		return node(this.engine.anotherNode(owner));
	}

	private ManualClusterSingletonEngine node(ManualClusterSingletonEngine.Builder builder) {
		ManualClusterSingletonEngine other = builder.build();
		this.others.add(other);
		return other;
	}

	private Instant minute(int n) {
		return this.base.plus(Duration.ofMinutes(n));
	}

	private static JobDefinition cronJob(String name, JobPolicies policies) {
		return JobDefinition.of(name, Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC))
			.withPolicies(policies);
	}

	private static JobPolicies policies(MisfirePolicy misfire) {
		return new JobPolicies(misfire, 10, RecoveryPolicy.NONE, 3, Duration.ZERO, null);
	}

	/**
	 * What a run saw of its context.
	 */
	record Seen(String node, @Nullable Instant slot, int attempt, RunTrigger trigger, long fencingToken,
			List<Instant> missedSlots) {

		static Seen of(String node) {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			return new Seen(node, context.slot().orElse(null), context.attempt(), context.trigger(),
					context.fencingToken(), context.missedSlots());
		}

	}

}
