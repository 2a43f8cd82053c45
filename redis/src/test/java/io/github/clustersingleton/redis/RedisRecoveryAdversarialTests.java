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

package io.github.clustersingleton.redis;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
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
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.test.TestStores;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adversarial review of recovery and catch-up on a real Redis: interleavings that break
 * exactly-once per slot.
 *
 * @author cluster-singleton contributors
 */
class RedisRecoveryAdversarialTests {

	private static final Duration TTL = Duration.ofSeconds(1);

	private static final Duration PATIENCE = Duration.ofSeconds(15);

	private static final Instant BASE = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofHours(2));

	private final List<ClusterSingletonExecutor> executors = new ArrayList<>();

	private RedissonClient redisson;

	private RedisLeaseBackend backend;

	@BeforeEach
	void createBackend() {
		URI url = URI.create(TestStores.redisUrl());
		Config config = new Config();
		config.setNettyThreads(4);
		config.useSingleServer()
			.setAddress("redis://" + url.getHost() + ":" + url.getPort())
			.setTimeout(5000)
			.setRetryAttempts(0);
		this.redisson = Redisson.create(config);
		this.backend = new RedisLeaseBackend(new RedissonScriptExecutor(this.redisson),
				"cs-review-" + UUID.randomUUID().toString().substring(0, 8));
		this.backend.initialize();
	}

	@AfterEach
	void close() {
		this.executors.forEach(ClusterSingletonExecutor::close);
		this.redisson.shutdown();
	}

	private static Instant minute(int n) {
		return BASE.plus(Duration.ofMinutes(n));
	}

	private static JobDefinition cronJob(String name, JobPolicies policies) {
		return JobDefinition.of(name, Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC))
			.withPolicies(policies);
	}

	private ClusterSingletonExecutor executor(String owner) {
		ClusterSingletonExecutor executor = new ClusterSingletonExecutor(this.backend,
				new ClusterSingletonExecutor.Settings(owner, TTL, Duration.ofSeconds(1), true), Clock.systemUTC(),
				new ClusterSingletonListener() {
				});
		this.executors.add(executor);
		return executor;
	}

	record Seen(String node, Instant slot, int attempt, RunTrigger trigger, long fence) {

		static Seen of(String node) {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			return new Seen(node, context.slot().orElseThrow(), context.attempt(), context.trigger(),
					context.fencingToken());
		}

	}

	/**
	 * A claim under an inactive policy (a node that still runs with the defaults during a
	 * rolling change of {@code misfire}/{@code recovery}, a node of the previous version,
	 * or the policy turned off and on again) moves {@code last_slot} but leaves the run
	 * fields where they were. The next claim under an active policy reads
	 * {@code run_slot < last_slot} as a catch-up sequence interrupted by a crash and runs
	 * again every slot in between, although each of them already ran.
	 */
	@Test
	void slotsRunUnderAnInactivePolicyAreNotRunAgainWhenThePolicyIsActive() throws Throwable {
		String name = "review-mixed-policy";
		JobDefinition active = cronJob(name,
				new JobPolicies(MisfirePolicy.RUN_ALL, 10, RecoveryPolicy.LOST, 3, Duration.ZERO, null));
		JobDefinition inactive = cronJob(name, JobPolicies.DEFAULT);
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a");
		ClusterSingletonExecutor nodeB = executor("node-b");
		assertThat(nodeA.execute(active, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		assertThat(nodeB.execute(inactive, minute(2), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-b"))))
			.isTrue();
		assertThat(nodeB.execute(inactive, minute(3), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-b"))))
			.isTrue();
		assertThat(nodeA.execute(active, minute(4), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		assertThat(seen).extracting(Seen::slot).doesNotHaveDuplicates();
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(2), minute(3), minute(4));
	}

	/**
	 * The engine marks {@code claimFence - 1} lost. When the holder that took over a dead
	 * run died itself before its first {@code startRun} (or the takeover claim was given
	 * back unused), {@code claimFence - 1} is that takeover claim, which has no ledger
	 * record, and the dead run's record stays {@code running} in the ledger for good.
	 */
	@Test
	void aRunThatDiedIsMarkedLostEvenWhenItsFirstTakeoverDiedToo() {
		String name = "review-double-death";
		JobDefinition job = cronJob(name,
				new JobPolicies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 5, Duration.ZERO, null));
		// node-a claims minute 1, records its run as running and dies
		AcquireResult claimed = this.backend.tryAcquire(new LeaseRequest(name, "node-a", "token-a", TTL, minute(1))
			.withPolicy(job.policies().claimPolicy(), minute(0)));
		assertThat(claimed.isAcquired()).isTrue();
		this.backend.runLedger()
			.record(new RunRecord(name, minute(1), 1, claimed.fencingToken(), "node-a", RunTrigger.SCHEDULED,
					RunState.RUNNING, Instant.now(), null, null), 100);
		// node-b takes the dead run over and dies before it starts the recovery attempt
		AcquireResult takeover = await().atMost(PATIENCE)
			.until(() -> this.backend
				.tryAcquire(LeaseRequest.recovery(name, "node-b", "token-b", TTL, job.policies().claimPolicy())),
					AcquireResult::isAcquired);
		assertThat(takeover.fencingToken()).isGreaterThan(claimed.fencingToken());
		// node-c recovers the slot
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeC = executor("node-c");
		nodeC.registerJob(job, () -> seen.add(Seen.of("node-c")));
		nodeC.startBackgroundWork();
		await().atMost(PATIENCE).until(() -> !seen.isEmpty());
		assertThat(seen.get(0).slot()).isEqualTo(minute(1));
		await().atMost(PATIENCE)
			.untilAsserted(() -> assertThat(this.backend.runLedger().history(name, 10))
				.filteredOn((run) -> run.state() == RunState.SUCCEEDED)
				.hasSize(1));
		assertThat(this.backend.runLedger().history(name, 10)).extracting(RunRecord::state)
			.as("no run stays 'running' once its slot has been recovered")
			.doesNotContain(RunState.RUNNING);
	}

}
