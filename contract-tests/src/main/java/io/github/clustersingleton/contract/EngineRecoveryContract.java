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
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The engine contract's recovery cases, on stores that support recovery: a run that died
 * with its node, noticed the loss of its lease or died of a fatal error runs again, on
 * one node only, with the same slot and a higher fence; a run that ends after its lease
 * is recorded as the store sees it; and a failed run is retried after its retry delay, up
 * to its attempt limit.
 *
 * @author cluster-singleton contributors
 */
abstract class EngineRecoveryContract extends EngineRunContract {

	@Test
	void aRunThatDiedWithItsNodeRunsAgainOnALiveNodeWithTheSameSlotAndAHigherFence() {
		assumeTrue(supportsRecovery());
		String name = jobName("recover-dead");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		// node-a claims the slot and dies at once: its lease is never renewed or released
		LeaseRequest dead = new LeaseRequest(name, "node-a", "dead-token", TTL, minute(1))
			.withPolicy(job.policies().claimPolicy(), minute(0));
		AcquireResult claimed = backend().tryAcquire(dead);
		assertThat(claimed.isAcquired()).isTrue();
		long died = nanoTime();
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeB = executor("node-b", backend(), clock(), new RecordingListener());
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		nodeB.startBackgroundWork();
		awaitUntil(() -> !seen.isEmpty());
		Duration recoveredAfter = Duration.ofNanos(nanoTime() - died);
		assertThat(recoveredAfter).as("re-run within 2 TTLs of the loss (plus scheduling slack)")
			.isLessThan(TTL.multipliedBy(2).plusMillis(1500));
		Seen run = seen.get(0);
		assertThat(run.slot()).isEqualTo(minute(1));
		assertThat(run.attempt()).isEqualTo(2);
		assertThat(run.trigger()).isEqualTo(RunTrigger.RECOVERY);
		assertThat(run.fencingToken()).isGreaterThan(claimed.fencingToken());
		// done: nothing pending any more, and the slot is never run a third time
		holdsFor(TTL.multipliedBy(2), PATIENCE, () -> seen.size() == 1);
		assertThat(backend().findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void twoLiveNodesNeverBothRecoverOneSlot() {
		assumeTrue(supportsRecovery());
		String name = jobName("recover-race");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 5, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		List<ClusterSingletonExecutor> nodes = new ArrayList<>();
		for (String owner : List.of("node-b", "node-c", "node-d")) {
			ClusterSingletonExecutor node = executor(owner, backend(), clock(), new RecordingListener());
			node.registerJob(job, () -> seen.add(Seen.of(owner)));
			nodes.add(node);
		}
		for (int slot = 1; slot <= 3; slot++) {
			LeaseRequest dead = new LeaseRequest(name, "node-a", "dead-" + slot, TTL, minute(slot))
				.withPolicy(job.policies().claimPolicy(), minute(slot - 1));
			assertThat(backend().tryAcquire(dead).isAcquired()).isTrue();
			if (slot == 1) {
				nodes.forEach(ClusterSingletonExecutor::startBackgroundWork);
			}
			int expected = slot;
			awaitUntil(() -> seen.size() >= expected);
			holdsFor(TTL, PATIENCE, () -> seen.size() == expected);
		}
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(2), minute(3));
		assertThat(seen).extracting(Seen::attempt).containsOnly(2);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void aRunThatNoticesTheLossOfItsLeaseFirstIsRecordedLostAndRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		// the case keeps the watchdog's thread busy in a listener that blocks until the
		// case goes on; in virtual time the watchdog runs on the case's own thread
		assumeFalse(engineTime().isVirtual(), "needs the watchdog on a thread of its own");
		String name = jobName("check-lease");
		// the first attempt overruns its lockAtMostFor, checking its lease in a loop as
		// the docs recommend; the watchdog's thread is kept busy meanwhile (by the loss
		// of another job's lease, whose listener blocks), so the job's own checkLease()
		// is certain to notice the loss first
		JobDefinition job = JobDefinition.of(name, Duration.ofMillis(400), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC))
			.withPolicies(policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		String blockerName = jobName("check-lease-blocker");
		CountDownLatch blockerLost = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<ClusterSingletonListener.RunOutcome> outcomes = new CopyOnWriteArrayList<>();
		List<String> lost = new CopyOnWriteArrayList<>();
		ClusterSingletonListener listener = new ClusterSingletonListener() {

			@Override
			public void runFinished(JobDefinition finished, HeldLease lease,
					ClusterSingletonListener.RunOutcome outcome, Instant startedAt, Duration duration,
					@Nullable Throwable error) {
				if (finished.name().equals(name)) {
					outcomes.add(outcome);
				}
			}

			@Override
			public void leaseLost(JobDefinition losing, HeldLease lease, String reason) {
				if (losing.name().equals(blockerName)) {
					blockerLost.countDown();
					try {
						release.await(30, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				else {
					lost.add(reason);
				}
			}

		};
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), listener);
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation body = () -> {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			seen.add(Seen.of("node-a"));
			if (context.attempt() == 1) {
				while (true) {
					context.checkLease();
					Thread.onSpinWait();
				}
			}
			return null;
		};
		node.registerJob(job, body);
		Future<Boolean> blocker = submit(() -> node
			.execute(JobDefinition.of(blockerName, Duration.ofMillis(100), Duration.ZERO), (Instant) null, () -> {
				release.await(30, TimeUnit.SECONDS);
				return null;
			}));
		try {
			assertThat(awaitOpen(blockerLost, Duration.ofSeconds(10))).isTrue();
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		}
		finally {
			release.countDown();
		}
		result(blocker, Duration.ofSeconds(10));
		assertThat(outcomes).containsExactly(ClusterSingletonListener.RunOutcome.LEASE_LOST);
		assertThat(lost).singleElement().asString().contains("lockAtMostFor");
		awaitAsserted(() -> assertThat(node.runLedger().history(name, 10)).extracting(RunRecord::state)
			.containsExactly(RunState.LOST));
		node.startBackgroundWork();
		awaitUntil(() -> seen.size() >= 2);
		assertThat(seen.get(1).slot()).isEqualTo(minute(1));
		assertThat(seen.get(1).attempt()).isEqualTo(2);
		assertThat(seen.get(1).trigger()).isEqualTo(RunTrigger.RECOVERY);
		holdsFor(TTL.multipliedBy(2), PATIENCE, () -> seen.size() == 2);
	}

	@Test
	void aRunThatReturnsAfterItsLocalDeadlineIsRecordedAsTheStoreSeesItAndNotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("late-return");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		AtomicBoolean failRenewals = new AtomicBoolean();
		LeaseBackend flaky = failingRenewals(backend(), failRenewals);
		RecordingListener listener = new RecordingListener();
		// not interrupted: the body returns normally, well after its local deadline,
		// while
		// the watchdog's thread has long declared the lease lost
		ClusterSingletonExecutor node = uninterruptingExecutor("node-a", flaky, listener);
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation body = () -> {
			seen.add(Seen.of("node-a"));
			if (ClusterSingletonContext.current().attempt() == 1) {
				failRenewals.set(true);
				awaitUntil(() -> !listener.lost.isEmpty());
				failRenewals.set(false);
			}
			return null;
		};
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, body)).isTrue();
		// no other claim took the job over: the store still records the run as the job's
		// current one, so it succeeded
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.SUCCESS);
		awaitAsserted(() -> assertThat(node.runLedger().history(name, 10)).extracting(RunRecord::state)
			.containsExactly(RunState.SUCCEEDED));
		ClusterSingletonExecutor other = executor("node-b", backend(), clock(), new RecordingListener());
		other.registerJob(job, body);
		other.startBackgroundWork();
		holdsFor(TTL.multipliedBy(3), PATIENCE, () -> seen.size() == 1);
		assertThat(backend().findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void aRunThatThrowsAfterItsLeaseEndedIsLostNotFailed() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("late-throw");
		// recovery=lost does not run a failed run again: the run must count as lost
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		AtomicBoolean failRenewals = new AtomicBoolean();
		LeaseBackend flaky = failingRenewals(backend(), failRenewals);
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = uninterruptingExecutor("node-a", flaky, listener);
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation body = () -> {
			seen.add(Seen.of("node-a"));
			ClusterSingletonContext context = ClusterSingletonContext.current();
			if (context.attempt() == 1) {
				failRenewals.set(true);
				awaitUntil(() -> !context.isLeaseValid());
				failRenewals.set(false);
				throw new IllegalStateException("downstream call failed");
			}
			return null;
		};
		node.registerJob(job, body);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.LEASE_LOST);
		node.startBackgroundWork();
		awaitUntil(() -> seen.size() >= 2);
		assertThat(seen.get(1).attempt()).isEqualTo(2);
		assertThat(seen.get(1).trigger()).isEqualTo(RunTrigger.RECOVERY);
	}

	@Test
	void aFailedRunIsRetriedAfterItsRetryDelayUpToMaxAttempts() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("recover-failed");
		JobDefinition job = cronJob(name,
				policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.FAILED, 3, Duration.ofMillis(500)));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation failing = () -> {
			seen.add(Seen.of("node"));
			throw new IllegalStateException("attempt " + ClusterSingletonContext.current().attempt() + " failed");
		};
		ClusterSingletonExecutor nodeA = executor("node-a", backend(), clock(), new RecordingListener());
		ClusterSingletonExecutor nodeB = executor("node-b", backend(), clock(), new RecordingListener());
		nodeA.registerJob(job, failing);
		nodeB.registerJob(job, failing);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, failing));
		long failed = nanoTime();
		nodeA.startBackgroundWork();
		nodeB.startBackgroundWork();
		awaitUntil(() -> seen.size() >= 3);
		holdsFor(TTL.multipliedBy(2), PATIENCE, () -> seen.size() == 3);
		assertThat(Duration.ofNanos(nanoTime() - failed)).isGreaterThanOrEqualTo(Duration.ofMillis(1000));
		assertThat(seen).extracting(Seen::attempt).containsExactly(1, 2, 3);
		assertThat(seen).extracting(Seen::slot).containsOnly(minute(1));
		assertThat(seen.subList(1, 3)).extracting(Seen::trigger).containsOnly(RunTrigger.RECOVERY);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
		awaitAsserted(() -> assertThat(nodeA.runLedger().history(name, 10)).extracting(RunRecord::state)
			.containsExactly(RunState.FAILED, RunState.FAILED, RunState.FAILED));
	}

	@Test
	void aRunThatDiesOfAFatalErrorIsRunAgainByItsOwnNode() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("fatal");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor.Invocation body = () -> {
			seen.add(Seen.of("node-a"));
			if (ClusterSingletonContext.current().attempt() == 1) {
				throw new StackOverflowError("simulated");
			}
			return null;
		};
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), new RecordingListener());
		node.registerJob(job, body);
		node.startBackgroundWork();
		assertThatExceptionOfType(StackOverflowError.class)
			.isThrownBy(() -> node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		awaitUntil(() -> seen.size() >= 2);
		assertThat(seen.get(1).attempt()).isEqualTo(2);
		assertThat(seen.get(1).trigger()).isEqualTo(RunTrigger.RECOVERY);
	}

}
