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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.LeaderElection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The engine half of the contract suite: the executor and its watchdog running real jobs
 * on the backend under test. {@link AbstractLeaseBackendContractTests} adds the store
 * half; every backend runs both: the store half in every build, this half in the full
 * build ({@code -Pfull}) and, on the stores that say so with
 * {@link #runsEngineContractInEveryBuild()}, in every build
 * ({@link EngineContractScope}).
 * <p>
 * The cases run in the time {@link #engineTime()} gives: real time by default, where they
 * wait for the store's TTLs to run out; or virtual time, for a store whose expiry reads a
 * manual clock, where the same cases run in seconds, in every build, with no sleeps. A
 * case that needs the engine's background work on a thread of its own is skipped in
 * virtual time.
 * <p>
 * This class holds the catch-up cases: the misfire policies {@code RUN_ALL}, {@code
 * RUN_ONCE} and {@code SKIP}, on a starting node, on a new leader and after a late claim.
 * The other groups are in its abstract superclasses, one group each: completion,
 * recovery, single runs, leader election and the watchdog, over the fixtures they share.
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(EngineContractScope.class)
public abstract class AbstractLeaseEngineContractTests extends EngineCompletionContract {

	@Test
	void aCatchUpLongerThanTheTtlKeepsItsLeaseBetweenShortRuns() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("long-catch-up");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 8, RecoveryPolicy.NONE, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), new RecordingListener());
		ClusterSingletonExecutor.Invocation shortRun = () -> {
			seen.add(Seen.of("node-a"));
			advance(TTL.dividedBy(4));
			return null;
		};
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, shortRun)).isTrue();
		// eight missed slots of a quarter TTL each: twice the TTL without a watchdog
		// renewal
		assertThat(node.execute(job, minute(10), RunTrigger.SCHEDULED, shortRun)).isTrue();
		assertThat(seen).extracting(Seen::slot)
			.containsExactly(minute(1), minute(2), minute(3), minute(4), minute(5), minute(6), minute(7), minute(8),
					minute(9), minute(10));
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void runAllCatchesUpEachMissedSlotOldestFirstUpToTheLimit() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("run-all");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 3, RecoveryPolicy.NONE, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), new RecordingListener());
		ClusterSingletonExecutor.Invocation record = () -> seen.add(Seen.of("node-a"));
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, record)).isTrue();
		// minutes 2 to 5 were missed; the limit keeps the newest three
		assertThat(node.execute(job, minute(6), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(3), minute(4), minute(5), minute(6));
		assertThat(seen).extracting(Seen::trigger)
			.containsExactly(RunTrigger.SCHEDULED, RunTrigger.CATCH_UP, RunTrigger.CATCH_UP, RunTrigger.CATCH_UP,
					RunTrigger.SCHEDULED);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
		// the catch-up claimed the slots: a late trigger of one of them does not run it
		assertThat(node.execute(job, minute(4), RunTrigger.SCHEDULED, record)).isFalse();
		// no gap any more: the next slot runs alone
		assertThat(node.execute(job, minute(7), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(seen).hasSize(6);
	}

	@Test
	void runOnceCatchesUpMissedSlotsWithOneRun() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("run-once");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), new RecordingListener());
		ClusterSingletonExecutor.Invocation record = () -> seen.add(Seen.of("node-a"));
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(node.execute(job, minute(5), RunTrigger.SCHEDULED, record)).isTrue();
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
		String name = jobName("skip");
		JobDefinition job = cronJob(name, JobPolicies.DEFAULT);
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), new RecordingListener());
		ClusterSingletonExecutor.Invocation record = () -> seen.add(Seen.of("node-a"));
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(node.execute(job, minute(5), RunTrigger.SCHEDULED, record)).isTrue();
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(5));
	}

	@Test
	void aStartingNodeCatchesUpTheSlotsMissedWhileNoNodeRan() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("startup-catch-up");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor before = executor("node-a", backend(), clock(), new RecordingListener());
		assertThat(before.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the whole cluster was down from minute 1 on; a node starts
		ClusterSingletonExecutor node = executor("node-b", backend(), clock(), new RecordingListener());
		node.registerJob(job, () -> seen.add(Seen.of("node-b")));
		node.startBackgroundWork();
		awaitUntil(() -> !seen.isEmpty());
		Seen catchUp = seen.get(0);
		assertThat(catchUp.trigger()).isEqualTo(RunTrigger.CATCH_UP);
		assertThat(catchUp.slot()).isAfter(minute(100));
		long missed = Duration.between(minute(1), catchUp.slot()).toMinutes() - 1;
		assertThat(catchUp.missedSlots()).hasSize((int) missed).startsWith(minute(2));
		holdsFor(TTL, PATIENCE, () -> seen.size() == 1);
	}

	@Test
	void aLateCatchUpClaimGivenBackLeavesItsMissedSlotsToALaterCatchUp() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("late-catch-up");
		// recovery=none: only the misfire policy can bring the slots back
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		ClusterSingletonExecutor before = executor("node-a", backend(), clock(), new RecordingListener());
		assertThat(before.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// slots 2 to 4 were missed; the claim of slot 5 carries them, and is granted
		// after
		// its whole TTL: it is given back unused
		FlakyBackend slow = new FlakyBackend(backend());
		slow.acquireDelay = TTL.plusMillis(200);
		ClusterSingletonExecutor late = executor("node-b", slow, clock(), new RecordingListener());
		List<Seen> seen = new CopyOnWriteArrayList<>();
		if (renewsALeaseNobodyTookAfterItsTtl()) {
			// the store confirms the late claim: it runs the missed slots itself
			slow.failRenewals.set(true);
		}
		assertThat(late.execute(job, minute(5), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-b")))).isFalse();
		assertThat(seen).isEmpty();
		// the next slot's winner catches them up, and the slot the claim was for, before
		// its own
		ClusterSingletonExecutor node = executor("node-c", backend(), clock(), new RecordingListener());
		assertThat(node.execute(job, minute(6), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-c")))).isTrue();
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(5), minute(6));
		assertThat(seen.get(0).trigger()).isEqualTo(RunTrigger.CATCH_UP);
		assertThat(seen.get(0).missedSlots()).containsExactly(minute(2), minute(3), minute(4));
		assertThat(backend().findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void aNodeThatBecomesTheLeaderCatchesUpTheSlotsMissedWhileNoNodeRan() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("leader-catch-up");
		String leaseName = jobName("catch-up-leader");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		ClusterSingletonExecutor before = executor("node-a", backend(), clock(), new RecordingListener());
		assertThat(before.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the whole cluster restarts within a TTL: the old leader's lease is still live
		// when the node starts, so its start-up catch-up is skipped
		LeaseRequest oldLeader = new LeaseRequest(leaseName, "node-a", "old-leader-token", TTL.multipliedBy(2), null);
		assertThat(backend().tryAcquire(oldLeader).isAcquired()).isTrue();
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-b", backend(), clock(), new RecordingListener());
		LeaderElection leader = node.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		node.registerJob(job, () -> seen.add(Seen.of("node-b")));
		node.startLeaderElection();
		node.startBackgroundWork();
		assertThat(leader.isLeader()).isFalse();
		awaitUntil(leader::isLeader);
		awaitUntil(() -> !seen.isEmpty());
		Seen catchUp = seen.get(0);
		assertThat(catchUp.trigger()).isEqualTo(RunTrigger.CATCH_UP);
		assertThat(catchUp.slot()).isAfter(minute(100));
		holdsFor(TTL, PATIENCE, () -> seen.size() == 1);
	}

	@Test
	void aJobThatNeverRanHasNothingToCatchUp() {
		assumeTrue(supportsRecovery());
		String name = jobName("never-ran");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-b", backend(), clock(), new RecordingListener());
		node.registerJob(job, () -> seen.add(Seen.of("node-b")));
		node.startBackgroundWork();
		holdsFor(TTL.multipliedBy(2), PATIENCE, seen::isEmpty);
		assertThat(backend().describe(name)).isEmpty();
	}

}
