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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.LeaderElection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine contract's leader-mode cases: one node is elected and only the leader runs
 * jobs, leadership moves when the leader cannot renew or its clock runs ahead of the
 * store's, and a leader that shuts down hands over at once.
 *
 * @author cluster-singleton contributors
 */
abstract class EngineLeaderElectionContract extends EngineWatchdogContract {

	@Test
	void leaderModeElectsOneLeaderAndOnlyTheLeaderRunsJobs() throws Throwable {
		String leaseName = jobName("leader");
		String job = jobName("led");
		FlakyBackend backendA = new FlakyBackend(backend());
		FlakyBackend backendB = new FlakyBackend(backend());
		ClusterSingletonExecutor a = executor("node-a", backendA, clock(), new RecordingListener());
		ClusterSingletonExecutor b = executor("node-b", backendB, clock(), new RecordingListener());
		LeaderElection leaderA = a.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		a.startLeaderElection();
		b.startLeaderElection();
		awaitUntil(() -> leaderA.isLeader() || leaderB.isLeader());
		// exactly one leader, the same one, over several TTLs of renewals and attempts
		holdsFor(TTL.multipliedBy(3), TTL.multipliedBy(6), () -> leaderA.isLeader() != leaderB.isLeader());
		ClusterSingletonExecutor leader = leaderA.isLeader() ? a : b;
		ClusterSingletonExecutor follower = leaderA.isLeader() ? b : a;
		FlakyBackend followerBackend = leaderA.isLeader() ? backendB : backendA;
		assertThat((leaderA.isLeader() ? leaderA : leaderB).term()).isPositive();
		assertThat((leaderA.isLeader() ? leaderB : leaderA).term()).isZero();
		JobDefinition definition = JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO);
		followerBackend.acquiredJobs.clear();
		assertThat(follower.execute(definition, (Instant) null, () -> null)).isFalse();
		// skipped locally: the follower never asked the store for the job's lease
		assertThat(followerBackend.acquiredJobs).doesNotContain(job);
		assertThat(leader.execute(definition, (Instant) null, () -> null)).isTrue();
	}

	@Test
	void leadershipMovesWhenTheLeaderCannotRenewAndTheOldLeaderIsTold() throws Throwable {
		String leaseName = jobName("leader-move");
		FlakyBackend backendA = new FlakyBackend(backend());
		ClusterSingletonExecutor a = executor("node-a", backendA, clock(), new RecordingListener());
		List<String> eventsA = new CopyOnWriteArrayList<>();
		LeaderElection leaderA = a.enableLeaderMode(leaseName, new LeaderElection.Listener() {

			@Override
			public void granted(long term) {
				eventsA.add("granted " + term);
			}

			@Override
			public void revoked(long term, String reason) {
				eventsA.add("revoked " + term);
			}

		});
		a.startLeaderElection();
		awaitUntil(leaderA::isLeader);
		long termA = leaderA.term();
		ClusterSingletonExecutor b = executor("node-b", backend(), clock(), new RecordingListener());
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		b.startLeaderElection();
		holdsFor(TTL, TTL.multipliedBy(3), () -> leaderA.isLeader() && !leaderB.isLeader());
		// the leader loses its store: it is revoked at its local deadline, and the other
		// node takes the lease once the store expired it, within two TTLs
		long cut = nanoTime();
		backendA.failAcquisitions.set(true);
		backendA.failRenewals.set(true);
		awaitUntil(TTL.multipliedBy(2).plusMillis(500), leaderB::isLeader);
		assertThat(Duration.ofNanos(nanoTime() - cut)).isLessThan(TTL.multipliedBy(2).plusMillis(500));
		assertThat(leaderA.isLeader()).isFalse();
		assertThat(leaderB.term()).isGreaterThan(termA);
		assertThat(eventsA).containsExactly("granted " + termA, "revoked " + termA);
	}

	@Test
	void aLeaderWhoseClockRunsAheadOfTheStoreStepsDownSoThatItsSlotsRunElsewhere() throws Throwable {
		String leaseName = jobName("leader-skew");
		String job = jobName("skewed");
		Clock ahead = Clock.offset(clock(), Duration.ofSeconds(4));
		ClusterSingletonExecutor a = executor("node-a", backend(), ahead, new RecordingListener());
		LeaderElection leaderA = a.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		a.startLeaderElection();
		awaitUntil(leaderA::isLeader);
		ClusterSingletonExecutor b = executor("node-b", backend(), clock(), new RecordingListener());
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		b.startLeaderElection();
		JobDefinition definition = JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO);
		// the slot the leader's scheduler fires for, 4 s ahead of the store: refused
		Instant slot = ahead.instant().truncatedTo(ChronoUnit.SECONDS);
		assertThat(a.execute(definition, slot, () -> null)).isFalse();
		assertThat(leaderA.isLeader()).as("a leader whose slot was refused").isFalse();
		awaitUntil(TTL.multipliedBy(3), leaderB::isLeader);
		assertThat(leaderA.isLeader()).isFalse();
		// the new leader's scheduler fires for that slot at its time, and runs it
		awaitUntil(() -> !clock().instant().isBefore(slot));
		assertThat(b.execute(definition, slot, () -> null)).isTrue();
	}

	@Test
	void aLeaderThatShutsDownHandsOverAtOnce() {
		String leaseName = jobName("leader-close");
		ClusterSingletonExecutor a = executor("node-a", backend(), clock(), new RecordingListener());
		LeaderElection leaderA = a.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		a.startLeaderElection();
		awaitUntil(leaderA::isLeader);
		ClusterSingletonExecutor b = executor("node-b", backend(), clock(), new RecordingListener());
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		b.startLeaderElection();
		a.close();
		assertThat(leaderA.isLeader()).isFalse();
		// given back, not left to expire: the next attempt, within a third of the TTL,
		// wins
		awaitUntil(TTL.dividedBy(3).plusMillis(700), leaderB::isLeader);
	}

}
