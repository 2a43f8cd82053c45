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
