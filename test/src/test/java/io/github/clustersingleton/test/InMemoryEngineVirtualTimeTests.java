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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialAcquisitionException;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.EngineExecutors;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.LeaderElection;
import io.github.clustersingleton.lease.ReactiveRun;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Engine cases in virtual time that the engine contract does not run there, driven by a
 * {@link ManualClusterSingletonEngine} on the {@link InMemoryLeaseBackend}: a run that
 * notices the loss of its lease before the watchdog does (the contract's version keeps
 * the watchdog's thread busy, which virtual time cannot, having none), a shutdown that
 * keeps retrying an undelivered completion within its grace period, and leadership that
 * moves when an operator frees the leader's lease. The contract's own cases run in
 * virtual time in {@link InMemoryLeaseEngineContractTests}.
 *
 * @author cluster-singleton contributors
 */
class InMemoryEngineVirtualTimeTests {

	private static final Duration TTL = Duration.ofSeconds(3);

	private final ManualClock clock = new ManualClock();

	/**
	 * Two hours before the clock's start: slot {@code minute(120)} is now.
	 */
	private final Instant base = this.clock.instant().minus(Duration.ofHours(2));

	private final RecordingListener listener = new RecordingListener();

	private final ManualClusterSingletonEngine engine = ManualClusterSingletonEngine.builder()
		.scheduler(new DeterministicScheduler(this.clock))
		.owner("node-a")
		.leaseTtl(TTL)
		.listener(this.listener)
		.build();

	private final ClusterSingletonExecutor node = this.engine.executor();

	private final List<ManualClusterSingletonEngine> others = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.others.forEach(ManualClusterSingletonEngine::close);
		this.engine.close();
	}

	@Test
	void aRunThatNoticesTheLossOfItsLeaseFirstIsRecordedLostAndRunAgain() throws Throwable {
		JobDefinition job = JobDefinition.of("check-lease", Duration.ofMillis(400), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC))
			.withPolicies(policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation body = () -> {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			seen.add(Seen.of("node-a"));
			if (context.attempt() == 1) {
				// only the clock moves, the watchdog's tasks do not run: the job's own
				// checkLease() is certain to notice the loss first
				this.engine.clock().advance(Duration.ofMillis(401));
				context.checkLease();
			}
			return null;
		};
		this.node.registerJob(job, body);
		assertThatExceptionOfType(LeaseLostException.class)
			.isThrownBy(() -> this.node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		this.engine.runDueTasks();
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.LEASE_LOST);
		assertThat(this.listener.lost).singleElement().asString().contains("lockAtMostFor");
		assertThat(this.node.runLedger().history("check-lease", 10)).extracting(RunRecord::state)
			.containsExactly(RunState.LOST);
		this.node.startBackgroundWork();
		this.engine.advance(TTL.multipliedBy(2));
		assertThat(seen).hasSize(2);
		assertThat(seen.get(1).slot()).isEqualTo(minute(1));
		assertThat(seen.get(1).attempt()).isEqualTo(2);
		assertThat(seen.get(1).trigger()).isEqualTo(RunTrigger.RECOVERY);
		this.engine.advance(TTL.multipliedBy(5));
		assertThat(seen).hasSize(2);
	}

	@Test
	void aShutdownKeepsRetryingAnUndeliveredCompletionWithinItsGracePeriodInVirtualTime() throws Throwable {
		JobDefinition job = cronJob("drain", policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		AtomicInteger completions = new AtomicInteger();
		ManualClusterSingletonEngine flaky = node(this.engine.anotherNode("node-c")
			.shutdownGracePeriod(Duration.ofSeconds(5))
			.backendDecorator((real) -> failing(real,
					(method) -> method.equals("completeRun") && completions.getAndIncrement() < 3)));
		assertThat(flaky.executor().execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(flaky.executor().undeliveredCompletions()).isEqualTo(1);
		long closing = this.engine.clock().nanoTime();
		flaky.close();
		assertThat(completions).hasValue(4);
		assertThat(flaky.executor().undeliveredCompletions()).isZero();
		assertThat(Duration.ofNanos(this.engine.clock().nanoTime() - closing)).isPositive()
			.isLessThan(Duration.ofSeconds(5));
		assertThat(this.engine.store().findPending(Map.of("drain", job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void leaderModeRunsJobsOnlyOnTheLeaderAndMovesLeadershipWhenItCannotRenew() throws Throwable {
		ClusterSingletonExecutor nodeB = node("node-b").executor();
		Leaders leaders = electThisNodeOver(nodeB);
		LeaderElection leaderA = leaders.thisNode();
		LeaderElection leaderB = leaders.other();
		JobDefinition job = JobDefinition.of("leader-job", Duration.ofMinutes(1), Duration.ZERO);
		assertThat(nodeB.execute(job, (Instant) null, () -> null)).isFalse();
		assertThat(this.node.execute(job, (Instant) null, () -> null)).isTrue();
		this.engine.advance(TTL.multipliedBy(4));
		assertThat(leaderA.isLeader()).isTrue();
		assertThat(leaderB.isLeader()).isFalse();
		// an operator frees the leader lease: node-a steps down at its next renewal,
		// node-b takes over at its next tick
		this.engine.store().forceRelease("leader");
		this.engine.advance(TTL.multipliedBy(2));
		assertThat(leaderA.isLeader() && leaderB.isLeader()).as("never two leaders").isFalse();
		assertThat(leaderB.isLeader()).isTrue();
		assertThat(this.node.execute(job, (Instant) null, () -> null)).isFalse();
		assertThat(nodeB.execute(job, (Instant) null, () -> null)).isTrue();
	}

	@Test
	void inLeaderModeTheOtherNodesStartTheCronTriggersTheySkipBehindTheLeadersClaims() {
		ClusterSingletonExecutor nodeB = node("node-b").executor();
		Leaders leaders = electThisNodeOver(nodeB);
		LeaderElection leaderA = leaders.thisNode();
		LeaderElection leaderB = leaders.other();
		JobDefinition everyMinute = cronJob("report", JobPolicies.DEFAULT);
		Instant slot = minute(1);
		// the leader claims at the fire time; the other node, which will skip, a second
		// later
		assertThat(this.node.defersTrigger(everyMinute, slot)).isFalse();
		assertThat(nodeB.defersTrigger(everyMinute, slot)).isTrue();
		assertThat(nodeB.triggerDeferral()).isEqualTo(Duration.ofSeconds(1));
		// a job that fires again within the deferral, the slot tolerance and a margin
		// (3 s with the defaults) is never deferred
		JobDefinition everyTwoSeconds = everyMinute.withSchedule(CronSlotSchedule.of("*/2 * * * * *", ZoneOffset.UTC));
		assertThat(nodeB.defersTrigger(everyTwoSeconds, slot)).isFalse();
		JobDefinition everyFiveSeconds = everyMinute.withSchedule(CronSlotSchedule.of("*/5 * * * * *", ZoneOffset.UTC));
		assertThat(nodeB.defersTrigger(everyFiveSeconds, slot)).isTrue();
		// nor is a disabled job, or any once node-b leads
		JobDefinition disabled = new JobDefinition("report", everyMinute.lockAtMostFor(), everyMinute.lockAtLeastFor(),
				false, everyMinute.schedule(), everyMinute.source(), everyMinute.policies());
		assertThat(nodeB.defersTrigger(disabled, slot)).isFalse();
		this.engine.store().forceRelease("leader");
		this.engine.advance(TTL.multipliedBy(2));
		assertThat(leaderB.isLeader()).isTrue();
		assertThat(nodeB.defersTrigger(everyMinute, slot)).isFalse();
		assertThat(this.node.defersTrigger(everyMinute, slot)).isTrue();
	}

	@Test
	void theLeaderClaimsTheCronSlotsOfAnInstantInOneCallAndItsOtherTriggersTakeTheirLeases() throws Throwable {
		Calls calls = new Calls();
		ClusterSingletonExecutor leader = leaderTogetherWith(calls);
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition second = cronJob("second", JobPolicies.DEFAULT);
		JobDefinition recovered = cronJob("recovered",
				policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		// a new leader catches this one's unclaimed slot up: it is claimed at its trigger
		JobDefinition caughtUp = cronJob("caught-up",
				policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		Instant slot = minute(1);
		for (JobDefinition job : List.of(first, second, recovered, caughtUp)) {
			assertThat(leader.defersTrigger(job, slot)).isFalse();
		}
		List<String> ran = new CopyOnWriteArrayList<>();
		assertThat(leader.execute(first, slot, RunTrigger.SCHEDULED, () -> ran.add("first"))).isTrue();
		assertThat(calls.together).containsExactly(List.of("first", "recovered", "second"));
		assertThat(calls.single).isEmpty();
		assertThat(this.engine.store().tryAcquire(new LeaseRequest("second", "node-x", "x", TTL, null)).isAcquired())
			.as("held for its trigger")
			.isFalse();
		assertThat(leader.execute(second, slot, RunTrigger.SCHEDULED, () -> ran.add("second"))).isTrue();
		assertThat(leader.execute(recovered, slot, RunTrigger.SCHEDULED, () -> ran.add("recovered"))).isTrue();
		assertThat(calls.single).isEmpty();
		assertThat(leader.execute(caughtUp, slot, RunTrigger.SCHEDULED, () -> ran.add("caught-up"))).isTrue();
		assertThat(calls.single).containsExactly("caught-up");
		assertThat(ran).containsExactly("first", "second", "recovered", "caught-up");
		// each slot ran once: a second trigger of it asks the store, which refuses it
		assertThat(leader.execute(second, slot, RunTrigger.SCHEDULED, () -> ran.add("again"))).isFalse();
		assertThat(ran).doesNotContain("again");
		this.engine.runDueTasks();
		assertThat(leader.runLedger().history("second", 10)).singleElement()
			.extracting(RunRecord::state)
			.isEqualTo(RunState.SUCCEEDED);
	}

	@Test
	void aTriggerWhoseClaimIsUnderWayWaitsForItAndAReactiveRunTakesItsClaim() throws Throwable {
		Calls calls = new Calls();
		CountDownLatch answer = new CountDownLatch(1);
		calls.beforeTogether = () -> answer.await(10, TimeUnit.SECONDS);
		ClusterSingletonExecutor leader = leaderTogetherWith(calls);
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition second = cronJob("second", JobPolicies.DEFAULT);
		JobDefinition reactive = cronJob("reactive", JobPolicies.DEFAULT);
		Instant slot = minute(1);
		for (JobDefinition job : List.of(first, second, reactive)) {
			leader.defersTrigger(job, slot);
		}
		List<String> ran = new CopyOnWriteArrayList<>();
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			// two scheduler threads: the second trigger comes while the first one's call
			// for the instant is under way, and waits for its answer
			Future<Boolean> firstRun = threads.submit(trigger(leader, first, slot, ran));
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> calls.together.size() == 1);
			Future<Boolean> secondRun = threads.submit(trigger(leader, second, slot, ran));
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> secondRun.get(200, TimeUnit.MILLISECONDS));
			answer.countDown();
			assertThat(firstRun.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(secondRun.get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			answer.countDown();
			threads.shutdownNow();
		}
		assertThat(calls.together).containsExactly(List.of("first", "reactive", "second"));
		assertThat(ran).containsExactlyInAnyOrder("first", "second");
		ReactiveRun run = leader.startReactive(reactive, slot, RunTrigger.SCHEDULED);
		assertThat(run).isNotNull();
		run.finish(null);
		assertThat(calls.single).isEmpty();
		this.engine.runDueTasks();
		assertThat(leader.runLedger().history("reactive", 10)).singleElement()
			.extracting(RunRecord::state)
			.isEqualTo(RunState.SUCCEEDED);
	}

	@Test
	void aLeaseClaimedAheadIsRenewedUntilItsTriggerTakesItAndRunsThereAfterLeadershipMoved() throws Throwable {
		Calls calls = new Calls();
		ClusterSingletonExecutor leader = leaderTogetherWith(calls);
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition late = cronJob("late", JobPolicies.DEFAULT);
		Instant slot = minute(1);
		leader.defersTrigger(first, slot);
		leader.defersTrigger(late, slot);
		assertThat(leader.execute(first, slot, RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(calls.together).hasSize(1);
		// the trigger of "late" waits three TTLs (a long run ahead of it on the
		// scheduler's thread) while the watchdog renews its lease, and leadership moves
		this.engine.advance(TTL.multipliedBy(3));
		assertThat(this.engine.store().tryAcquire(new LeaseRequest("late", "node-x", "x", TTL, null)).isAcquired())
			.isFalse();
		this.engine.store().forceRelease("leader");
		this.engine.advance(TTL.multipliedBy(2));
		assertThat(this.node.defersTrigger(late, minute(2))).isFalse();
		AtomicInteger runs = new AtomicInteger();
		assertThat(leader.execute(late, slot, RunTrigger.SCHEDULED, runs::incrementAndGet)).isTrue();
		assertThat(this.node.execute(late, slot, RunTrigger.SCHEDULED, runs::incrementAndGet)).isFalse();
		assertThat(runs).hasValue(1);
		assertThat(calls.single).isEmpty();
	}

	@Test
	void aLeaseClaimedAheadWhoseTriggerNeverCameIsGivenBackAtTheJobsNextTrigger() throws Throwable {
		Calls calls = new Calls();
		ClusterSingletonExecutor leader = leaderTogetherWith(calls);
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition moved = cronJob("moved", JobPolicies.DEFAULT);
		leader.defersTrigger(first, minute(1));
		leader.defersTrigger(moved, minute(1));
		assertThat(leader.execute(first, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(calls.together).containsExactly(List.of("first", "moved"));
		// the schedule of "moved" changed before its trigger of minute 1 ran: its next
		// trigger finds the lease of minute 1 given back, and claims its own slot
		AtomicInteger runs = new AtomicInteger();
		assertThat(leader.execute(moved, minute(2), RunTrigger.SCHEDULED, runs::incrementAndGet)).isTrue();
		assertThat(runs).hasValue(1);
		assertThat(calls.single).containsExactly("moved");
	}

	@Test
	void aFireTimeDroppedByANewScheduleIsLeftOutOfItsInstantsCallOrItsLeaseGivenBackWhenTheNextIsQueued()
			throws Throwable {
		Calls calls = new Calls();
		ClusterSingletonExecutor leader = leaderTogetherWith(calls);
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition retired = cronJob("retired", JobPolicies.DEFAULT);
		JobDefinition late = cronJob("late", JobPolicies.DEFAULT);
		// dropped before the instant's call: left out of it
		leader.defersTrigger(first, minute(1));
		leader.defersTrigger(retired, minute(1));
		leader.triggerDropped("retired", minute(1));
		assertThat(leader.execute(first, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(calls.together).isEmpty();
		assertThat(calls.single).containsExactly("first");
		// dropped after it: the lease is kept until the job's next fire time is queued,
		// in case the new schedule fires at the same time, then given back
		leader.defersTrigger(first, minute(2));
		leader.defersTrigger(late, minute(2));
		assertThat(leader.execute(first, minute(2), RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(calls.together).containsExactly(List.of("first", "late"));
		leader.triggerDropped("late", minute(2));
		assertThat(this.engine.store().tryAcquire(new LeaseRequest("late", "node-x", "x", TTL, null)).isAcquired())
			.isFalse();
		leader.defersTrigger(late, minute(2).plusSeconds(30));
		assertThat(this.engine.store().tryAcquire(new LeaseRequest("late", "node-x", "x", TTL, null)).isAcquired())
			.isTrue();
	}

	@Test
	void aJobsNextFireTimeQueuedBeforeItsRunStartsKeepsTheClaimOfTheCurrentOne() throws Throwable {
		Calls calls = new Calls();
		ClusterSingletonExecutor leader = leaderTogetherWith(calls);
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition next = cronJob("next", JobPolicies.DEFAULT);
		leader.defersTrigger(first, minute(1));
		leader.defersTrigger(next, minute(1));
		assertThat(leader.execute(first, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// a scheduler that hands each run to a thread of its own asks for the job's next
		// fire time before that thread starts the run of this one
		leader.defersTrigger(next, minute(2));
		// and a task armed again on another trigger while its due run waits asks at once
		leader.defersTrigger(next, minute(1).plusSeconds(30));
		AtomicInteger runs = new AtomicInteger();
		assertThat(leader.execute(next, minute(1), RunTrigger.SCHEDULED, runs::incrementAndGet)).isTrue();
		assertThat(runs).hasValue(1);
		assertThat(calls.single).isEmpty();
	}

	@Test
	void aClaimThatFailsInTheInstantsCallIsAskedAgainByItsTriggerAndTheOthersKeepTheirGrants() throws Throwable {
		Calls calls = new Calls();
		calls.failing.add("broken");
		ClusterSingletonExecutor leader = leaderTogetherWith(calls);
		List<String> ran = new CopyOnWriteArrayList<>();
		for (String name : List.of("first", "broken", "second")) {
			leader.defersTrigger(cronJob(name, JobPolicies.DEFAULT), minute(1));
		}
		for (String name : List.of("first", "broken", "second")) {
			assertThat(trigger(leader, cronJob(name, JobPolicies.DEFAULT), minute(1), ran).call()).isTrue();
		}
		assertThat(calls.together).containsExactly(List.of("broken", "first", "second"));
		assertThat(calls.single).containsExactly("broken");
		assertThat(ran).containsExactly("first", "broken", "second");
	}

	@Test
	void aClosingLeaderGivesBackTheLeasesItClaimedAheadThatNoTriggerTook() throws Throwable {
		Calls calls = new Calls();
		ManualClusterSingletonEngine leaderNode = node(
				this.engine.anotherNode("node-c").backendDecorator((real) -> together(real, calls)));
		ClusterSingletonExecutor leader = electOver(leaderNode.executor(), this.node);
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition untaken = cronJob("untaken", JobPolicies.DEFAULT);
		leader.defersTrigger(first, minute(1));
		leader.defersTrigger(untaken, minute(1));
		assertThat(leader.execute(first, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(this.engine.store().tryAcquire(new LeaseRequest("untaken", "node-x", "x", TTL, null)).isAcquired())
			.isFalse();
		leader.beginShutdown();
		assertThat(this.engine.store().tryAcquire(new LeaseRequest("untaken", "node-x", "x", TTL, null)).isAcquired())
			.isTrue();
		assertThat(leader.execute(untaken, minute(1), RunTrigger.SCHEDULED, () -> null)).isFalse();
	}

	@Test
	void theLeaderSettlesTheEndsOfItsScheduledRunsBehindThem() throws Throwable {
		electThisNodeOver(node("node-b").executor());
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition second = cronJob("second", JobPolicies.DEFAULT);
		List<String> ran = new CopyOnWriteArrayList<>();
		assertThat(this.node.execute(first, minute(1), RunTrigger.SCHEDULED, () -> ran.add("first"))).isTrue();
		assertThat(this.node.execute(second, minute(1), RunTrigger.SCHEDULED, () -> ran.add("second"))).isTrue();
		// both runs returned, and their ends were told, before their leases were given
		// back
		assertThat(ran).containsExactly("first", "second");
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.SUCCESS, RunOutcome.SUCCESS);
		assertThat(heldFor("first")).isEqualTo("node-a");
		assertThat(heldFor("second")).isEqualTo("node-a");
		// the settling thread gives them back
		this.engine.runDueTasks();
		assertThat(heldFor("first")).isNull();
		assertThat(heldFor("second")).isNull();
		assertThat(this.node.runLedger().history("first", 10)).extracting(RunRecord::state)
			.containsExactly(RunState.SUCCEEDED);
		// direct calls settle on the caller's thread, as without leader mode
		assertThat(this.node.execute(cronJob("direct", JobPolicies.DEFAULT), (Instant) null, () -> null)).isTrue();
		assertThat(heldFor("direct")).isNull();
	}

	@Test
	void aJobsNextTriggerOnTheLeaderSettlesTheEndOfItsLastRunBeforeItClaims() throws Throwable {
		electThisNodeOver(node("node-b").executor());
		JobDefinition job = cronJob("every-minute", JobPolicies.DEFAULT);
		List<Instant> ran = new CopyOnWriteArrayList<>();
		assertThat(this.node.execute(job, minute(1), RunTrigger.SCHEDULED, () -> ran.add(minute(1)))).isTrue();
		assertThat(heldFor("every-minute")).isEqualTo("node-a");
		// the settling thread has not come to it: the next trigger settles it itself
		// rather than be refused by the run's own lease
		assertThat(this.node.execute(job, minute(2), RunTrigger.SCHEDULED, () -> ran.add(minute(2)))).isTrue();
		assertThat(ran).containsExactly(minute(1), minute(2));
		this.engine.runDueTasks();
		assertThat(heldFor("every-minute")).isNull();
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.SUCCESS, RunOutcome.SUCCESS);
		assertThat(this.node.runLedger().history("every-minute", 10)).hasSize(2)
			.extracting(RunRecord::state)
			.containsOnly(RunState.SUCCEEDED);
	}

	@Test
	void aRunThatReturnsWhileTheSettlingThreadIsASecondBehindGivesItsLeaseBackItself() throws Throwable {
		electThisNodeOver(node("node-b").executor());
		JobDefinition first = cronJob("first", JobPolicies.DEFAULT);
		JobDefinition second = cronJob("second", JobPolicies.DEFAULT);
		assertThat(this.node.execute(first, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the settling thread has not come to it for more than a second
		this.clock.advance(Duration.ofMillis(1100));
		assertThat(this.node.execute(second, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(heldFor("first")).isEqualTo("node-a");
		assertThat(heldFor("second")).as("given back on its own thread").isNull();
		this.engine.runDueTasks();
		assertThat(heldFor("first")).isNull();
	}

	@Test
	void aLeaderShuttingDownSettlesTheEndsThatWait() throws Throwable {
		electThisNodeOver(node("node-b").executor());
		JobDefinition job = cronJob("last", JobPolicies.DEFAULT);
		assertThat(this.node.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		assertThat(heldFor("last")).isEqualTo("node-a");
		this.node.shutdown(Duration.ZERO);
		assertThat(heldFor("last")).isNull();
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.SUCCESS);
		assertThat(this.engine.store().describe("last")).get()
			.extracting(io.github.clustersingleton.LeaseInfo::lastSlot)
			.isEqualTo(minute(1));
	}

	@Test
	void anEndThatWaitsKeepsItsLeaseRenewedSoThatANewLeaderDoesNotRecoverItsSlot() throws Throwable {
		// the leader's settling thread does nothing until the test lets it
		DeterministicScheduler completions = new DeterministicScheduler(this.clock);
		ClusterSingletonExecutor leader = leaderWithSettlingHeldBy(completions);
		ClusterSingletonExecutor nodeB = node("node-b").executor();
		JobDefinition job = cronJob("report", policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		List<String> ran = new CopyOnWriteArrayList<>();
		try {
			leader.registerJob(job, () -> ran.add("node-0"));
			nodeB.registerJob(job, () -> ran.add("node-b"));
			electOver(leader, nodeB);
			leader.startBackgroundWork();
			nodeB.startBackgroundWork();
			assertThat(leader.execute(job, minute(1), RunTrigger.SCHEDULED, () -> ran.add("node-0"))).isTrue();
			// leadership moves while the run's release waits, for several TTLs
			this.engine.store().forceRelease("leader");
			this.engine.advance(TTL.multipliedBy(6));
			assertThat(heldFor("report")).as("renewed while its end waits").isEqualTo("node-0");
			completions.runDueTasks();
			this.engine.advance(TTL.multipliedBy(4));
			assertThat(heldFor("report")).isNull();
			assertThat(ran).as("the slot ran once").containsExactly("node-0");
		}
		finally {
			leader.close();
		}
	}

	@Test
	void aShutdownWaitsForAnEndStuckOnTheSettlingThreadNoLongerThanItsGracePeriod() throws Throwable {
		CountDownLatch unstuck = new CountDownLatch(1);
		CountDownLatch stuck = new CountDownLatch(1);
		LeaseBackend store = this.engine.store();
		LeaseBackend hanging = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if ((method.getName().startsWith("release") || method.getName().equals("completeRun"))
							&& ((HeldLease) args[0]).jobName().equals("stuck")) {
						// a store call without a timeout, on a connection that went dead
						stuck.countDown();
						unstuck.await(30, TimeUnit.SECONDS);
					}
					try {
						return method.invoke(store, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		ScheduledExecutorService settling = Executors.newSingleThreadScheduledExecutor();
		ClusterSingletonExecutor leader = leaderWithSettling(hanging, () -> settling);
		try {
			electOver(leader, node("node-b").executor());
			JobDefinition job = cronJob("stuck", JobPolicies.DEFAULT);
			assertThat(leader.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
			assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();
			assertTimeoutPreemptively(Duration.ofSeconds(10), () -> leader.shutdown(Duration.ofMillis(200)));
		}
		finally {
			unstuck.countDown();
			settling.shutdownNow();
		}
	}

	@Test
	void aListenerThatCallsItsJobWhenTheLeadersRunEndsDoesNotWaitForItself() throws Throwable {
		AtomicInteger directRuns = new AtomicInteger();
		List<ClusterSingletonExecutor> self = new CopyOnWriteArrayList<>();
		ClusterSingletonListener callsAgain = new ClusterSingletonListener() {

			@Override
			public void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
					Duration duration, @Nullable Throwable failure) {
				if (lease.slot() != null) {
					try {
						self.get(0).execute(job, (Instant) null, directRuns::incrementAndGet);
					}
					catch (Throwable ex) {
						throw new IllegalStateException(ex);
					}
				}
			}

		};
		ClusterSingletonExecutor leader = node(this.engine.anotherNode("node-0").listener(callsAgain)).executor();
		self.add(leader);
		electOver(leader, this.node);
		JobDefinition job = cronJob("again", JobPolicies.DEFAULT);
		assertThat(leader.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the listener, told on the run's thread, calls the job before the settling
		// thread gave the run's lease back: the call gives it back first
		assertTimeoutPreemptively(Duration.ofSeconds(10), this.engine::runDueTasks);
		assertThat(directRuns).hasValue(1);
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> leader.shutdown(Duration.ZERO));
	}

	/**
	 * A node, node-0, whose settling thread does nothing until the test steps
	 * {@code completions}; the caller closes it.
	 */
	private ClusterSingletonExecutor leaderWithSettlingHeldBy(DeterministicScheduler completions) {
		return leaderWithSettling(this.engine.store(), completions::newExecutor);
	}

	/**
	 * A node, node-0, whose settling thread is the one given; the caller closes it.
	 */
	private ClusterSingletonExecutor leaderWithSettling(LeaseBackend backend,
			java.util.function.Supplier<ScheduledExecutorService> settling) {
		EngineExecutors shared = this.engine.scheduler().engineExecutors();
		EngineExecutors executors = new EngineExecutors() {

			@Override
			public ScheduledExecutorService watchdogTimer() {
				return shared.watchdogTimer();
			}

			@Override
			public ExecutorService renewer() {
				return shared.renewer();
			}

			@Override
			public ScheduledExecutorService monitor() {
				return shared.monitor();
			}

			@Override
			public ExecutorService recoveryWorkers() {
				return shared.recoveryWorkers();
			}

			@Override
			public ScheduledExecutorService completionRetries() {
				return shared.completionRetries();
			}

			@Override
			public ExecutorService ledgerWriter(int queueCapacity, Runnable whenFull) {
				return shared.ledgerWriter(queueCapacity, whenFull);
			}

			@Override
			public ScheduledExecutorService settling() {
				return settling.get();
			}

		};
		return new ClusterSingletonExecutor(backend,
				new ClusterSingletonExecutor.Settings("node-0", TTL, Duration.ofSeconds(1), true), this.clock,
				this.listener, this.clock, executors, this.engine.scheduler().sleeper());
	}

	/**
	 * Who holds the job's lease now, or {@code null}.
	 */
	private @Nullable String heldFor(String jobName) {
		return this.engine.store()
			.describe(jobName)
			.filter(io.github.clustersingleton.LeaseInfo::live)
			.map(io.github.clustersingleton.LeaseInfo::holder)
			.orElse(null);
	}

	/**
	 * A scheduled trigger of the job on another thread, which notes the job's name when
	 * it runs.
	 */
	private static Callable<Boolean> trigger(ClusterSingletonExecutor node, JobDefinition job, Instant slot,
			List<String> ran) {
		return () -> {
			try {
				return node.execute(job, slot, RunTrigger.SCHEDULED, () -> ran.add(job.name()));
			}
			catch (Exception | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		};
	}

	/**
	 * A node whose store says it claims together, counting its claims, elected leader
	 * over this node.
	 */
	private ClusterSingletonExecutor leaderTogetherWith(Calls calls) {
		ManualClusterSingletonEngine leaderNode = node(
				this.engine.anotherNode("node-c").backendDecorator((real) -> together(real, calls)));
		return electOver(leaderNode.executor(), this.node);
	}

	private ClusterSingletonExecutor electOver(ClusterSingletonExecutor winner, ClusterSingletonExecutor other) {
		LeaderElection won = winner.enableLeaderMode("leader", LeaderElection.Listener.NONE);
		other.enableLeaderMode("leader", LeaderElection.Listener.NONE);
		winner.startLeaderElection();
		this.engine.runDueTasks();
		other.startLeaderElection();
		this.engine.runDueTasks();
		assertThat(won.isLeader()).isTrue();
		return winner;
	}

	/**
	 * A store that sends its claims together, as PostgreSQL and Redis do, and counts
	 * them.
	 */
	private static LeaseBackend together(LeaseBackend real, Calls calls) {
		return (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "acquiresTogether" -> {
							return true;
						}
						case "tryAcquire" -> {
							LeaseRequest request = (LeaseRequest) args[0];
							if (!request.jobName().equals("leader")) {
								calls.single.add(request.jobName());
							}
						}
						case "tryAcquireAll" -> {
							@SuppressWarnings("unchecked")
							List<LeaseRequest> requests = (List<LeaseRequest>) args[0];
							calls.together.add(requests.stream().map(LeaseRequest::jobName).toList());
							calls.beforeTogether.call();
							if (requests.stream().anyMatch((request) -> calls.failing.contains(request.jobName()))) {
								// the failing claims never reach the store, the others do
								List<@Nullable AcquireResult> results = new ArrayList<>();
								for (LeaseRequest request : requests) {
									results.add(calls.failing.contains(request.jobName()) ? null
											: real.tryAcquire(request));
								}
								throw new PartialAcquisitionException(results,
										new IllegalStateException("WRONGTYPE (simulated)"));
							}
						}
						default -> {
						}
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

	/**
	 * The claims a store was asked for: one by one, and together.
	 */
	private static final class Calls {

		final List<String> single = new CopyOnWriteArrayList<>();

		final List<List<String>> together = new CopyOnWriteArrayList<>();

		volatile Callable<?> beforeTogether = () -> null;

		final Set<String> failing = ConcurrentHashMap.newKeySet();

	}

	/**
	 * Turn leader mode on for this node and {@code other}, and let this node, which
	 * stands first, win the election.
	 */
	private Leaders electThisNodeOver(ClusterSingletonExecutor other) {
		LeaderElection thisNode = this.node.enableLeaderMode("leader", LeaderElection.Listener.NONE);
		LeaderElection otherNode = other.enableLeaderMode("leader", LeaderElection.Listener.NONE);
		this.node.startLeaderElection();
		this.engine.runDueTasks();
		other.startLeaderElection();
		this.engine.runDueTasks();
		assertThat(thisNode.isLeader()).isTrue();
		assertThat(otherNode.isLeader()).isFalse();
		return new Leaders(thisNode, otherNode);
	}

	private record Leaders(LeaderElection thisNode, LeaderElection other) {

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

	private static JobPolicies policies(MisfirePolicy misfire, int limit, RecoveryPolicy recovery, int maxAttempts,
			Duration retryDelay) {
		return new JobPolicies(misfire, limit, recovery, maxAttempts, retryDelay, null);
	}

	/**
	 * A backend whose calls named by {@code fails} throw as a lost connection would.
	 */
	private static LeaseBackend failing(LeaseBackend real, java.util.function.Predicate<String> fails) {
		return (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (fails.test(method.getName())) {
						throw new IllegalStateException("connection reset");
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
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

	/**
	 * Records the outcomes of runs and the reasons of lost leases.
	 */
	private static final class RecordingListener implements ClusterSingletonListener {

		final List<RunOutcome> outcomes = new CopyOnWriteArrayList<>();

		final List<String> lost = new CopyOnWriteArrayList<>();

		@Override
		public void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
				Duration duration, @Nullable Throwable error) {
			this.outcomes.add(outcome);
		}

		@Override
		public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
			this.lost.add(reason);
		}

	}

}
