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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.LeaderElection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine's semantics in virtual time, on the {@link InMemoryLeaseBackend}: the cases
 * of the engine contract ({@code AbstractLeaseEngineContractTests}, which runs them in
 * real time on every store with {@code -Pfull}) driven by a
 * {@link ManualClusterSingletonEngine}, with no sleeps and no polling, so that cadences
 * and deadlines are asserted exactly.
 *
 * @author cluster-singleton contributors
 */
class InMemoryEngineVirtualTimeTests {

	private static final Duration TTL = Duration.ofSeconds(3);

	private static final Duration TICK = TTL.dividedBy(3);

	private final ManualClock clock = new ManualClock();

	/**
	 * Two hours before the clock's start: slot {@code minute(120)} is now.
	 */
	private final Instant base = this.clock.instant().minus(Duration.ofHours(2));

	private final RecordingListener listener = new RecordingListener(this.clock);

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
	void watchdogRenewsEveryThirdOfTheTtlAndKeepsTheLeaseWellPastSeveralTtls() throws Throwable {
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		AtomicInteger refusedToOthers = new AtomicInteger();
		boolean ran = this.node.execute(JobDefinition.of("watchdog", Duration.ofMinutes(1), Duration.ZERO),
				(Instant) null, () -> {
					context.set(ClusterSingletonContext.current());
					for (int i = 0; i < 12; i++) {
						this.engine.advance(TICK);
						if (!this.engine.store().tryAcquire(request("watchdog", "node-b")).isAcquired()
								&& ClusterSingletonContext.current().isLeaseValid()) {
							refusedToOthers.incrementAndGet();
						}
					}
					return null;
				});
		assertThat(ran).isTrue();
		// four TTLs: without renewal the lease would have expired three times over
		assertThat(refusedToOthers).hasValue(12);
		assertThat(this.listener.renewedAt).hasSize(12);
		assertThat(this.listener.renewedAt).containsExactly(at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8),
				at(9), at(10), at(11), at(12));
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.SUCCESS);
		// released at the end of the run: another node gets it at once
		assertThat(this.engine.store().tryAcquire(request("watchdog", "node-b")).isAcquired()).isTrue();
	}

	@Test
	void renewalFailuresLoseTheLeaseExactlyAtTheLocalDeadline() throws Throwable {
		long start = this.engine.clock().nanoTime();
		AtomicLong interruptedAt = new AtomicLong();
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		boolean ran = this.node.execute(JobDefinition.of("flaky", Duration.ofMinutes(1), Duration.ZERO), (Instant) null,
				() -> {
					context.set(ClusterSingletonContext.current());
					this.engine.advance(TICK.plusMillis(500));
					// the renewal at 1 s went through; those from 2 s on fail
					this.engine.store().setReachable(false);
					advanceUntilInterrupted(interruptedAt);
					this.engine.store().setReachable(true);
					return null;
				});
		assertThat(ran).isTrue();
		// the last good renewal was sent at 1 s: the lease is good until 1 s + TTL
		assertThat(Duration.ofNanos(interruptedAt.get() - start)).isEqualTo(TICK.plus(TTL));
		assertThat(this.listener.renewalErrors.get()).isEqualTo(2);
		assertThat(this.listener.lost).singleElement().asString().contains("no renewal succeeded");
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.LEASE_LOST);
		assertThat(context.get().isLeaseValid()).isFalse();
		// the store was never told, and judged the same deadline: another node takes over
		AcquireResult other = this.engine.store().tryAcquire(request("flaky", "node-b"));
		assertThat(other.isAcquired()).isTrue();
		assertThat(other.fencingToken()).isGreaterThan(context.get().fencingToken());
	}

	@Test
	void lockAtMostForCapsTheRunAndInterruptsItExactlyThen() throws Throwable {
		Duration lockAtMostFor = Duration.ofMillis(2500);
		long start = this.engine.clock().nanoTime();
		AtomicLong interruptedAt = new AtomicLong();
		AtomicReference<@Nullable Boolean> validAfterInterrupt = new AtomicReference<>();
		AtomicReference<@Nullable Throwable> checkLease = new AtomicReference<>();
		boolean ran = this.node.execute(JobDefinition.of("cap", lockAtMostFor, Duration.ZERO), (Instant) null, () -> {
			advanceUntilInterrupted(interruptedAt);
			ClusterSingletonContext context = ClusterSingletonContext.current();
			validAfterInterrupt.set(context.isLeaseValid());
			try {
				context.checkLease();
			}
			catch (LeaseLostException lost) {
				checkLease.set(lost);
			}
			return null;
		});
		assertThat(ran).isTrue();
		assertThat(Duration.ofNanos(interruptedAt.get() - start)).isEqualTo(lockAtMostFor);
		assertThat(validAfterInterrupt.get()).isFalse();
		assertThat(checkLease.get()).isInstanceOf(LeaseLostException.class)
			.hasMessageContaining("cap")
			.hasMessageContaining("lockAtMostFor");
		assertThat(Thread.currentThread().isInterrupted()).as("our interrupt must not leak into the thread's next task")
			.isFalse();
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.LEASE_LOST);
		assertThat(this.listener.lost).singleElement().asString().contains("lockAtMostFor");
	}

	@Test
	void leaseTakenBehindTheRunsBackIsDetectedAsLostAtTheNextRenewal() throws Throwable {
		long start = this.engine.clock().nanoTime();
		AtomicLong interruptedAt = new AtomicLong();
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		boolean ran = this.node.execute(JobDefinition.of("taken", Duration.ofMinutes(1), Duration.ZERO), (Instant) null,
				() -> {
					context.set(ClusterSingletonContext.current());
					// an operator frees the lease and another node takes it at once
					assertThat(this.engine.store().forceRelease("taken")).isTrue();
					assertThat(this.engine.store().tryAcquire(request("taken", "node-b")).isAcquired()).isTrue();
					advanceUntilInterrupted(interruptedAt);
					return null;
				});
		assertThat(ran).isTrue();
		assertThat(Duration.ofNanos(interruptedAt.get() - start)).isEqualTo(TICK);
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.LEASE_LOST);
		// the run's release must not touch node-b's lease
		LeaseInfo info = this.engine.store().describe("taken").orElseThrow();
		assertThat(info.live()).isTrue();
		assertThat(info.holder()).isEqualTo("node-b");
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
	void aRunThatDiedWithItsNodeRunsAgainOnALiveNodeWithTheSameSlotAndAHigherFence() {
		JobDefinition job = cronJob("recover-dead",
				policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		// node-b claims the slot and dies at once: its lease is never renewed or released
		LeaseRequest dead = new LeaseRequest("recover-dead", "node-b", "dead-token", TTL, minute(1))
			.withPolicy(job.policies().claimPolicy(), minute(0));
		AcquireResult claimed = this.engine.store().tryAcquire(dead);
		assertThat(claimed.isAcquired()).isTrue();
		long died = this.engine.clock().nanoTime();
		List<Seen> seen = new CopyOnWriteArrayList<>();
		List<Long> seenAt = new CopyOnWriteArrayList<>();
		this.node.registerJob(job, () -> {
			seenAt.add(this.engine.clock().nanoTime());
			return seen.add(Seen.of("node-a"));
		});
		this.node.startBackgroundWork();
		this.engine.advance(TTL.multipliedBy(2));
		assertThat(seen).hasSize(1);
		assertThat(Duration.ofNanos(seenAt.get(0) - died)).as("re-run within 2 TTLs of the loss")
			.isGreaterThanOrEqualTo(TTL)
			.isLessThanOrEqualTo(TTL.multipliedBy(2));
		Seen run = seen.get(0);
		assertThat(run.slot()).isEqualTo(minute(1));
		assertThat(run.attempt()).isEqualTo(2);
		assertThat(run.trigger()).isEqualTo(RunTrigger.RECOVERY);
		assertThat(run.fencingToken()).isGreaterThan(claimed.fencingToken());
		this.engine.advance(TTL.multipliedBy(5));
		assertThat(seen).hasSize(1);
		assertThat(this.engine.store().findPending(Map.of("recover-dead", job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void aFailedRunIsRetriedAfterItsRetryDelayUpToMaxAttempts() throws Throwable {
		Duration retryDelay = Duration.ofSeconds(10);
		JobDefinition job = cronJob("recover-failed",
				policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.FAILED, 3, retryDelay));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		List<Long> seenAt = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation failing = () -> {
			seen.add(Seen.of("node"));
			seenAt.add(this.engine.clock().nanoTime());
			throw new IllegalStateException("attempt " + ClusterSingletonContext.current().attempt() + " failed");
		};
		ClusterSingletonExecutor nodeB = node("node-b").executor();
		this.node.registerJob(job, failing);
		nodeB.registerJob(job, failing);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.node.execute(job, minute(1), RunTrigger.SCHEDULED, failing));
		this.node.startBackgroundWork();
		nodeB.startBackgroundWork();
		this.engine.advance(retryDelay.minusMillis(1));
		assertThat(seen).as("no retry before the retry delay").hasSize(1);
		this.engine.advance(retryDelay.multipliedBy(3));
		assertThat(seen).extracting(Seen::attempt).containsExactly(1, 2, 3);
		assertThat(seen).extracting(Seen::slot).containsOnly(minute(1));
		assertThat(seen.subList(1, 3)).extracting(Seen::trigger).containsOnly(RunTrigger.RECOVERY);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
		assertThat(Duration.ofNanos(seenAt.get(1) - seenAt.get(0))).isGreaterThanOrEqualTo(retryDelay)
			.isLessThanOrEqualTo(retryDelay.plus(TICK));
		assertThat(Duration.ofNanos(seenAt.get(2) - seenAt.get(1))).isGreaterThanOrEqualTo(retryDelay)
			.isLessThanOrEqualTo(retryDelay.plus(TICK));
		this.engine.advance(TTL.multipliedBy(5));
		assertThat(seen).hasSize(3);
		assertThat(this.node.runLedger().history("recover-failed", 10)).extracting(RunRecord::state)
			.containsExactly(RunState.FAILED, RunState.FAILED, RunState.FAILED);
	}

	@Test
	void aSuccessTheStoreCouldNotRecordAtOnceIsRecordedByARetryAndNotRunAgain() throws Throwable {
		JobDefinition job = cronJob("completion-retry",
				policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		AtomicInteger completions = new AtomicInteger();
		ManualClusterSingletonEngine flaky = node(
				this.engine.anotherNode("node-c").backendDecorator((real) -> failing(real, (method) -> {
					// the first release that carries a completion fails, as during a
					// failover
					return method.equals("completeRun") && completions.getAndIncrement() == 0;
				})));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeC = flaky.executor();
		nodeC.registerJob(job, () -> seen.add(Seen.of("node-c")));
		assertThat(nodeC.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-c")))).isTrue();
		assertThat(completions).hasValue(1);
		assertThat(nodeC.undeliveredCompletions()).isEqualTo(1);
		this.engine.advance(Duration.ofMillis(250));
		assertThat(completions).hasValue(2);
		assertThat(nodeC.undeliveredCompletions()).isZero();
		nodeC.startBackgroundWork();
		this.node.registerJob(job, () -> seen.add(Seen.of("node-a")));
		this.node.startBackgroundWork();
		this.engine.advance(TTL.multipliedBy(5));
		assertThat(seen).hasSize(1);
		assertThat(this.engine.store().findPending(Map.of("completion-retry", job.policies().claimPolicy()))).isEmpty();
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
	void runAllCatchesUpEachMissedSlotOldestFirstUpToTheLimit() throws Throwable {
		JobDefinition job = cronJob("run-all",
				policies(MisfirePolicy.RUN_ALL, 3, RecoveryPolicy.NONE, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation record = () -> seen.add(Seen.of("node-a"));
		assertThat(this.node.execute(job, minute(1), RunTrigger.SCHEDULED, record)).isTrue();
		// minutes 2 to 5 were missed; the limit keeps the newest three
		assertThat(this.node.execute(job, minute(6), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(3), minute(4), minute(5), minute(6));
		assertThat(seen).extracting(Seen::trigger)
			.containsExactly(RunTrigger.SCHEDULED, RunTrigger.CATCH_UP, RunTrigger.CATCH_UP, RunTrigger.CATCH_UP,
					RunTrigger.SCHEDULED);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
		// the catch-up claimed the slots: a late trigger of one of them does not run it
		assertThat(this.node.execute(job, minute(4), RunTrigger.SCHEDULED, record)).isFalse();
		// no gap any more: the next slot runs alone
		assertThat(this.node.execute(job, minute(7), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(seen).hasSize(6);
	}

	@Test
	void runOnceCatchesUpMissedSlotsWithOneRun() throws Throwable {
		JobDefinition job = cronJob("run-once",
				policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation record = () -> seen.add(Seen.of("node-a"));
		assertThat(this.node.execute(job, minute(1), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(this.node.execute(job, minute(5), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(seen).hasSize(3);
		Seen catchUp = seen.get(1);
		assertThat(catchUp.slot()).isEqualTo(minute(4));
		assertThat(catchUp.trigger()).isEqualTo(RunTrigger.CATCH_UP);
		assertThat(catchUp.missedSlots()).containsExactly(minute(2), minute(3));
		assertThat(seen.get(2).slot()).isEqualTo(minute(5));
		assertThat(seen.get(2).trigger()).isEqualTo(RunTrigger.SCHEDULED);
	}

	@Test
	void skipLeavesMissedSlotsAlone() throws Throwable {
		JobDefinition job = cronJob("skip", JobPolicies.DEFAULT);
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation record = () -> seen.add(Seen.of("node-a"));
		assertThat(this.node.execute(job, minute(1), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(this.node.execute(job, minute(5), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(5));
	}

	@Test
	void aStartingNodeCatchesUpTheSlotsMissedWhileNoNodeRan() throws Throwable {
		JobDefinition job = cronJob("startup-catch-up",
				policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		assertThat(this.node.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the whole cluster was down from minute 1 on; a node starts
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeB = node("node-b").executor();
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		nodeB.startBackgroundWork();
		this.engine.runDueTasks();
		assertThat(seen).hasSize(1);
		Seen catchUp = seen.get(0);
		assertThat(catchUp.trigger()).isEqualTo(RunTrigger.CATCH_UP);
		// the clock stands at minute 120: that slot falls due now and is left to the
		// scheduler's own trigger; the catch-up runs the latest slot before it
		assertThat(catchUp.slot()).isEqualTo(minute(119));
		assertThat(catchUp.missedSlots()).hasSize(117).startsWith(minute(2)).endsWith(minute(118));
		this.engine.advance(TTL.multipliedBy(5));
		assertThat(seen).hasSize(1);
	}

	@Test
	void aNodeThatBecomesTheLeaderCatchesUpTheSlotsMissedWhileNoNodeRan() throws Throwable {
		JobDefinition job = cronJob("leader-catch-up",
				policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		assertThat(this.node.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the whole cluster restarts within a TTL: the old leader's lease is still live
		// when the node starts, so its start-up catch-up is skipped
		LeaseRequest oldLeader = new LeaseRequest("catch-up-leader", "node-a", "old-leader-token", TTL.multipliedBy(2),
				null);
		assertThat(this.engine.store().tryAcquire(oldLeader).isAcquired()).isTrue();
		List<Seen> seen = new CopyOnWriteArrayList<>();
		List<Long> grantedAt = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeB = node("node-b").executor();
		LeaderElection leader = nodeB.enableLeaderMode("catch-up-leader", new LeaderElection.Listener() {

			@Override
			public void granted(long term) {
				grantedAt.add(InMemoryEngineVirtualTimeTests.this.engine.clock().nanoTime());
			}

		});
		long start = this.engine.clock().nanoTime();
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		nodeB.startLeaderElection();
		nodeB.startBackgroundWork();
		this.engine.runDueTasks();
		assertThat(leader.isLeader()).isFalse();
		assertThat(seen).isEmpty();
		this.engine.advance(TTL.multipliedBy(2).minusMillis(1));
		assertThat(leader.isLeader()).isFalse();
		this.engine.advance(TICK);
		assertThat(leader.isLeader()).isTrue();
		// granted at the first tick after the old leader's lease ran out
		assertThat(grantedAt).singleElement()
			.satisfies((at) -> assertThat(Duration.ofNanos(at - start)).isEqualTo(TTL.multipliedBy(2)));
		this.engine.runDueTasks();
		assertThat(seen).hasSize(1);
		Seen catchUp = seen.get(0);
		assertThat(catchUp.trigger()).isEqualTo(RunTrigger.CATCH_UP);
		// six seconds past minute 120, outside the slot tolerance: that slot is missed
		assertThat(catchUp.slot()).isEqualTo(minute(120));
		assertThat(catchUp.missedSlots()).hasSize(118).startsWith(minute(2)).endsWith(minute(119));
		this.engine.advance(TTL.multipliedBy(5));
		assertThat(seen).hasSize(1);
	}

	@Test
	void leaderModeRunsJobsOnlyOnTheLeaderAndMovesLeadershipWhenItCannotRenew() throws Throwable {
		ClusterSingletonExecutor nodeB = node("node-b").executor();
		LeaderElection leaderA = this.node.enableLeaderMode("leader", LeaderElection.Listener.NONE);
		LeaderElection leaderB = nodeB.enableLeaderMode("leader", LeaderElection.Listener.NONE);
		this.node.startLeaderElection();
		this.engine.runDueTasks();
		nodeB.startLeaderElection();
		this.engine.runDueTasks();
		assertThat(leaderA.isLeader()).isTrue();
		assertThat(leaderB.isLeader()).isFalse();
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
	void jobExceptionsPropagateAndTheLeaseIsReleased() {
		JobDefinition job = JobDefinition.of("boom", Duration.ofMinutes(1), Duration.ZERO);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.node.execute(job, (Instant) null, () -> {
				throw new IllegalStateException("boom");
			}));
		assertThat(this.listener.outcomes).containsExactly(RunOutcome.FAILURE);
		assertThat(this.engine.store().tryAcquire(request("boom", "node-b")).isAcquired()).isTrue();
	}

	@Test
	void storeUnreachableAtTriggerSkipsTheRunWithoutThrowing() throws Throwable {
		this.engine.store().setReachable(false);
		AtomicInteger runs = new AtomicInteger();
		assertThat(this.node.execute(JobDefinition.of("unreachable", Duration.ofMinutes(1), Duration.ZERO),
				(Instant) null, runs::incrementAndGet))
			.isFalse();
		assertThat(runs).hasValue(0);
		assertThat(this.listener.acquireErrors).hasValue(1);
	}

	private void advanceUntilInterrupted(AtomicLong interruptedAt) {
		for (int i = 0; i < 10_000 && !Thread.currentThread().isInterrupted(); i++) {
			this.engine.advance(Duration.ofMillis(1));
		}
		interruptedAt.set(this.engine.clock().nanoTime());
		Thread.interrupted();
	}

	private ManualClusterSingletonEngine node(String owner) {
		return node(this.engine.anotherNode(owner));
	}

	private ManualClusterSingletonEngine node(ManualClusterSingletonEngine.Builder builder) {
		ManualClusterSingletonEngine other = builder.build();
		this.others.add(other);
		return other;
	}

	private Duration at(int ticks) {
		return TICK.multipliedBy(ticks);
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

	private static LeaseRequest request(String job, String owner) {
		return new LeaseRequest(job, owner, java.util.UUID.randomUUID().toString().replace("-", ""),
				Duration.ofSeconds(30), null);
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
	 * Records what the engine reports, with the virtual time of each renewal.
	 */
	private static final class RecordingListener implements ClusterSingletonListener {

		private final ManualClock clock;

		private final long start;

		final List<RunOutcome> outcomes = new CopyOnWriteArrayList<>();

		final List<String> lost = new CopyOnWriteArrayList<>();

		final List<Duration> renewedAt = new CopyOnWriteArrayList<>();

		final AtomicLong renewalErrors = new AtomicLong();

		final AtomicLong acquireErrors = new AtomicLong();

		RecordingListener(ManualClock clock) {
			this.clock = clock;
			this.start = clock.nanoTime();
		}

		@Override
		public void acquireFailed(JobDefinition job, @Nullable Instant slot, Throwable error, Duration duration) {
			this.acquireErrors.incrementAndGet();
		}

		@Override
		public void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
				Duration duration, @Nullable Throwable error) {
			this.outcomes.add(outcome);
		}

		@Override
		public void renewalAttempted(Collection<HeldLease> leases, int renewed, Duration duration,
				@Nullable Throwable error) {
			if (error != null) {
				this.renewalErrors.incrementAndGet();
			}
			else {
				this.renewedAt.add(Duration.ofNanos(this.clock.nanoTime() - this.start));
			}
		}

		@Override
		public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
			this.lost.add(reason);
		}

	}

}
