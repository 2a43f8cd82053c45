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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Preferred-node routing in virtual time, on nodes sharing the in-memory store: each cron
 * slot is claimed at its fire time by one node, the jobs spread evenly over the live
 * nodes, the other nodes ask the store nothing for them, and a slot whose preferred node
 * did not claim it is claimed by the others' sweep, once, after the sweep delay.
 *
 * @author cluster-singleton contributors
 */
class InMemoryPreferredNodeVirtualTimeTests {

	private static final Duration TTL = Duration.ofSeconds(3);

	private static final Duration SWEEP_DELAY = Duration.ofMillis(250);

	private static final int JOBS = 12;

	private final ManualClock clock = new ManualClock();

	private final List<Ran> ran = new CopyOnWriteArrayList<>();

	private final List<String> notPreferred = new CopyOnWriteArrayList<>();

	/** Every claim that reached the store, as node and job. */
	private final List<String> claims = new CopyOnWriteArrayList<>();

	private final ManualClusterSingletonEngine engine = ManualClusterSingletonEngine.builder()
		.scheduler(new DeterministicScheduler(this.clock))
		.owner("node-a")
		.leaseTtl(TTL)
		.listener(listener("node-a"))
		.build();

	private final List<ManualClusterSingletonEngine> others = new ArrayList<>();

	private final List<JobDefinition> jobs = new ArrayList<>();

	private ClusterSingletonExecutor nodeC;

	@BeforeEach
	void jobs() {
		for (int i = 0; i < JOBS; i++) {
			this.jobs.add(JobDefinition.of("routed-" + i, Duration.ofMinutes(1), Duration.ZERO)
				.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC)));
		}
	}

	@AfterEach
	void close() {
		this.others.forEach(ManualClusterSingletonEngine::close);
		this.engine.close();
	}

	@Test
	void eachSlotIsClaimedAtItsFireTimeByItsPreferredNodeAndTheJobsSpreadEvenly() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		ClusterSingletonExecutor c = routed(node("node-c"), "node-c");
		this.engine.runDueTasks();
		toNextMinute();
		long operations = this.engine.store().getOperationCount();
		for (JobDefinition job : this.jobs) {
			a.execute(job, true, body("node-a"));
			b.execute(job, true, body("node-b"));
			c.execute(job, true, body("node-c"));
		}
		// every job ran once at its fire time, on one node; the other two asked nothing
		assertThat(this.ran).hasSize(JOBS);
		assertThat(this.ran).extracting(Ran::job).doesNotHaveDuplicates();
		assertThat(this.ran).allSatisfy((run) -> assertThat(run.trigger()).isEqualTo(RunTrigger.SCHEDULED));
		assertThat(this.notPreferred).hasSize(2 * JOBS);
		Map<String, Long> perNode = this.ran.stream().collect(Collectors.groupingBy(Ran::node, Collectors.counting()));
		assertThat(perNode).containsOnlyKeys("node-a", "node-b", "node-c")
			.allSatisfy((node, count) -> assertThat(count).isEqualTo(JOBS / 3));
		// the run ledger's writes, behind the runs
		this.engine.runDueTasks();
		long triggerOperations = this.engine.store().getOperationCount() - operations;
		// the preferred node's claim, and the run's record in the ledger (its start and
		// end went in one write), nothing from the others
		assertThat(triggerOperations).isEqualTo(JOBS * 2L);
		long beforeSweeps = this.engine.store().getOperationCount();
		this.engine.advance(SWEEP_DELAY.plusMillis(10));
		// one read by each node (each skipped the jobs of the other two), and no claim:
		// every slot was claimed
		assertThat(this.engine.store().getOperationCount() - beforeSweeps).isEqualTo(3);
		assertThat(this.ran).hasSize(JOBS);
		// the releases come once the instant's claims and first sweeps are made
		assertThat(this.jobs).allSatisfy((job) -> assertThat(heldFor(job.name())).isNotNull());
		long beforeReleases = this.engine.store().getOperationCount();
		this.engine.advance(SWEEP_DELAY);
		// and the second sweeps, one read by each node
		assertThat(this.engine.store().getOperationCount() - beforeReleases).isEqualTo(JOBS + 3);
		assertThat(this.jobs).allSatisfy((job) -> assertThat(heldFor(job.name())).isNull());
	}

	@Test
	void theLeaseOfARoutedRunIsGivenBackTwoSweepDelaysAfterItsSlotAndRenewedUntilThen() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		this.engine.runDueTasks();
		toNextMinute();
		Instant slot = this.clock.instant();
		JobDefinition job = ownJob(a, slot);
		assertThat(a.execute(job, true, body("node-a"))).isTrue();
		assertThat(heldFor(job.name())).as("held right after the run").isEqualTo("node-a");
		this.engine.advance(SWEEP_DELAY.multipliedBy(2).minusMillis(10));
		assertThat(heldFor(job.name())).as("held until two sweep delays after the slot").isEqualTo("node-a");
		this.engine.advance(Duration.ofMillis(20));
		assertThat(heldFor(job.name())).as("given back").isNull();
		assertThat(this.engine.store().describe(job.name())).get()
			.extracting(io.github.clustersingleton.LeaseInfo::lastSlot)
			.isEqualTo(slot);
		assertThat(b).isNotNull();
	}

	@Test
	void aRunThatReturnsPastTheReleaseTimeGivesItsLeaseBackAtOnce() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		routed(node("node-b"), "node-b");
		this.engine.runDueTasks();
		toNextMinute();
		Instant slot = this.clock.instant();
		JobDefinition job = ownJob(a, slot);
		assertThat(a.execute(job, true, () -> {
			this.clock.advance(SWEEP_DELAY.multipliedBy(3));
			return null;
		})).isTrue();
		assertThat(heldFor(job.name())).isNull();
	}

	@Test
	void aJobThatRecoversOrFiresAgainWithinATtlGivesItsLeaseBackAtOnce() throws Throwable {
		JobDefinition recovering = JobDefinition.of("recovering", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC))
			.withPolicies(new JobPolicies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO, null));
		// routed (beyond the routing horizon), but a node killed while its release waited
		// would still hold the lease at the next fire time
		JobDefinition everyFourSeconds = JobDefinition.of("every-four-seconds", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("*/4 * * * * *", ZoneOffset.UTC));
		JobDefinition everySecond = JobDefinition.of("every-second", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("* * * * * *", ZoneOffset.UTC));
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		routed(node("node-b"), "node-b");
		this.engine.runDueTasks();
		toNextMinute();
		Instant slot = this.clock.instant();
		for (JobDefinition job : List.of(recovering, everyFourSeconds, everySecond)) {
			a.registerJob(job, body("node-a"));
			assertThat(a.execute(job, slot, RunTrigger.SCHEDULED, body("node-a"))).as(job.name()).isTrue();
			assertThat(heldFor(job.name())).as(job.name()).isNull();
		}
		// while a job that fires every minute waits for its release
		JobDefinition everyMinute = this.jobs.get(0);
		assertThat(a.execute(everyMinute, slot, RunTrigger.SCHEDULED, body("node-a"))).isTrue();
		assertThat(heldFor(everyMinute.name())).isEqualTo("node-a");
	}

	/**
	 * A job whose slot the node claims itself, rather than leave to another node.
	 */
	private JobDefinition ownJob(ClusterSingletonExecutor node, Instant slot) {
		return this.jobs.stream().filter((candidate) -> !node.defersTrigger(candidate, slot)).findFirst().orElseThrow();
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

	@Test
	void aTriggerIsDeferredExactlyWhenItWillBeLeftToAnotherNodeAndDeferringPutsNothingOnASweep() throws Throwable {
		List<ClusterSingletonExecutor> nodes = List.of(routed(this.engine.executor(), "node-a"),
				routed(node("node-b"), "node-b"), routed(node("node-c"), "node-c"));
		this.engine.runDueTasks();
		toNextMinute();
		Instant slot = this.clock.instant();
		List<String> deferred = new ArrayList<>();
		for (JobDefinition job : this.jobs) {
			for (int i = 0; i < nodes.size(); i++) {
				if (nodes.get(i).defersTrigger(job, slot)) {
					deferred.add("node-" + (char) ('a' + i) + ":" + job.name());
				}
			}
		}
		// asking changes nothing: no sweep looks, and every node still claims its own
		long beforeSweeps = this.engine.store().getOperationCount();
		this.engine.advance(SWEEP_DELAY.multipliedBy(3));
		assertThat(this.engine.store().getOperationCount()).isEqualTo(beforeSweeps);
		for (JobDefinition job : this.jobs) {
			for (int i = 0; i < nodes.size(); i++) {
				nodes.get(i).execute(job, true, body("node-" + (char) ('a' + i)));
			}
		}
		assertThat(deferred).hasSize(2 * JOBS).containsExactlyInAnyOrderElementsOf(this.notPreferred);
		// deferred by four fifths of the sweep delay: behind the cluster's claims, before
		// the first sweep
		assertThat(nodes).allSatisfy(
				(node) -> assertThat(node.triggerDeferral()).isEqualTo(SWEEP_DELAY.multipliedBy(4).dividedBy(5)));
		// a job that fires again too soon to be routed is never deferred
		JobDefinition everySecond = this.jobs.get(0).withSchedule(CronSlotSchedule.of("* * * * * *", ZoneOffset.UTC));
		assertThat(nodes).noneMatch((node) -> node.defersTrigger(everySecond, slot));
	}

	@Test
	void aSlotItsPreferredNodeDidNotClaimIsClaimedOnceByTheOthersAfterTheSweepDelay() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		ClusterSingletonExecutor c = routed(node("node-c"), "node-c");
		this.engine.runDueTasks();
		toNextMinute();
		Instant slot = this.clock.instant();
		// node-c is still listed as live but its scheduler does not fire (stopped, or
		// busy): only a and b see the triggers
		fireOnAAndB(a, b);
		assertThat(this.ran).hasSize(2 * JOBS / 3);
		this.engine.advance(SWEEP_DELAY.minusMillis(10));
		assertThat(this.ran).hasSize(2 * JOBS / 3);
		this.engine.advance(Duration.ofMillis(20));
		// node-c's jobs: both a and b swept them, and each ran once, for its slot
		assertThat(this.ran).hasSize(JOBS);
		assertThat(this.ran).extracting(Ran::job).doesNotHaveDuplicates();
		assertThat(this.ran).allSatisfy((run) -> {
			assertThat(run.slot()).isEqualTo(slot);
			assertThat(run.node()).isNotEqualTo("node-c");
		});
		assertThat(c).isNotNull();
	}

	@Test
	void aPreferredNodeStillClaimingItsJobsIsGivenAnotherSweepDelay() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		ClusterSingletonExecutor c = routed(node("node-c"), "node-c");
		this.engine.runDueTasks();
		toNextMinute();
		Instant slot = this.clock.instant();
		fireOnAAndB(a, b);
		List<JobDefinition> ofC = this.jobs.stream()
			.filter((job) -> this.ran.stream().noneMatch((run) -> run.job().equals(job.name())))
			.toList();
		assertThat(ofC).hasSize(JOBS / 3);
		// node-c is late: it claims its jobs one by one, the second only after the
		// first sweep's look, and then stops
		assertThat(c.execute(ofC.get(0), true, body("node-c"))).isTrue();
		this.claims.clear();
		this.engine.advance(SWEEP_DELAY.plusMillis(10));
		assertThat(this.claims).as("claims at the first look, while node-c is at work").isEmpty();
		assertThat(c.execute(ofC.get(1), true, body("node-c"))).isTrue();
		this.claims.clear();
		this.engine.advance(SWEEP_DELAY);
		assertThat(this.claims).as("claims at the second look, node-c having claimed one more").isEmpty();
		this.engine.advance(SWEEP_DELAY);
		// no progress since: the rest of node-c's jobs are claimed, and each runs once
		assertThat(this.claims).isNotEmpty()
			.allMatch(
					(claim) -> ofC.subList(2, ofC.size()).stream().anyMatch((job) -> claim.endsWith(":" + job.name())));
		assertThat(this.ran).hasSize(JOBS).extracting(Ran::job).doesNotHaveDuplicates();
		assertThat(this.ran).allSatisfy((run) -> assertThat(run.slot()).isEqualTo(slot));
		assertThat(this.ran.stream().filter((run) -> run.node().equals("node-c"))).hasSize(2);
	}

	@Test
	void aLookIsNotPutOffWhenTheJobFiresAgainTooSoon() throws Throwable {
		// jobs that fire every three seconds: routed (more than two delays, the slot
		// tolerance and a second apart), but a look put off too close to the next fire
		// time could come after the next slot's claim, which refuses this slot
		List<JobDefinition> ofC = lateNodeC("*/3 * * * * *");
		assertTheSecondLookClaimsTheRestOfNodeCsJobs(ofC, this.clock.instant());
	}

	@Test
	void aLookFollowsTheJobsCronOverride() throws Throwable {
		// registered every minute, rescheduled cluster-wide to every three seconds: the
		// looks are bounded by the override, as the triggers are
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		this.nodeC = routed(node("node-c"), "node-c");
		JobControls controls = this.engine.store().controls().orElseThrow();
		for (JobDefinition job : this.jobs) {
			controls.reschedule(job.name(), "*/3 * * * * *");
		}
		// the nodes read the controls every third of the TTL
		this.engine.advance(TTL);
		assertThat(a.cronOverrides().expression(this.jobs.get(0).name())).isEqualTo("*/3 * * * * *");
		List<JobDefinition> ofC = fireAtTheNextMinuteWithNodeCLate(a, b);
		assertTheSecondLookClaimsTheRestOfNodeCsJobs(ofC, this.clock.instant());
	}

	@Test
	void aLookIsBoundedOnTheStoresClockWhenTheSweepingNodesClockIsBehind() throws Throwable {
		// every three seconds; node-a is the late preferred node of half the jobs, node-b
		// (its clock 500 ms behind the store's) sweeps them
		this.jobs.replaceAll((job) -> job.withSchedule(CronSlotSchedule.of("*/3 * * * * *", ZoneOffset.UTC)));
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		// built last: the in-memory store reports its clock to the last node built
		ManualClusterSingletonEngine behind = this.engine.anotherNode("node-b")
			.nodeClock(Clock.offset(this.clock, Duration.ofMillis(-500)))
			.listener(listener("node-b"))
			.build();
		this.others.add(behind);
		ClusterSingletonExecutor b = routed(behind.executor(), "node-b");
		this.engine.runDueTasks();
		// a direct call: node-b measures the store's clock
		assertThat(b.execute(this.jobs.get(0), false, body("node-b"))).isTrue();
		this.ran.clear();
		toNextMinute();
		Instant slot = this.clock.instant();
		List<JobDefinition> ofA = new ArrayList<>();
		// node-b's triggers fire when its clock reads the slot: 500 ms later on the
		// store's
		this.engine.advance(Duration.ofMillis(500));
		for (JobDefinition job : this.jobs) {
			b.execute(job, true, body("node-b"));
			if (this.ran.stream().noneMatch((run) -> run.job().equals(job.name()))) {
				ofA.add(job);
			}
		}
		assertThat(ofA).hasSize(JOBS / 2);
		// node-a, at work on the slot, claims its first job
		assertThat(a.execute(ofA.get(0), slot, RunTrigger.SCHEDULED, body("node-a"))).isTrue();
		this.claims.clear();
		// node-b's first look, at once (the sweep delay has passed on the store's clock):
		// the next fire time is 2.5 s away on the store's clock, within the horizon, so
		// node-a's other jobs are claimed now (node-b's own clock would say 3 s)
		this.engine.advance(Duration.ofMillis(10));
		assertClaimedNow(ofA.subList(1, ofA.size()));
		assertThat(this.ran).hasSize(JOBS).extracting(Ran::job).doesNotHaveDuplicates();
		assertThat(this.ran).allSatisfy((run) -> assertThat(run.slot()).isEqualTo(slot));
	}

	@Test
	void aJobThatFiresAgainWithinTheRoutingHorizonIsClaimedByEveryNodeAtItsFireTime() throws Throwable {
		// every second: a node whose clock is ahead may claim the next slot before a
		// sweep
		// of this one, so no node leaves the trigger to another
		this.jobs.replaceAll((job) -> job.withSchedule(CronSlotSchedule.of("* * * * * *", ZoneOffset.UTC)));
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		ClusterSingletonExecutor c = routed(node("node-c"), "node-c");
		this.engine.runDueTasks();
		toNextMinute();
		for (JobDefinition job : this.jobs) {
			a.execute(job, true, body("node-a"));
			b.execute(job, true, body("node-b"));
			c.execute(job, true, body("node-c"));
		}
		assertThat(this.notPreferred).isEmpty();
		assertThat(this.claims).hasSize(3 * JOBS);
		assertThat(this.ran).hasSize(JOBS).extracting(Ran::job).doesNotHaveDuplicates();
	}

	/**
	 * Give every job the cron expression, start three nodes and fire every trigger at the
	 * next minute on node-a and node-b, then the first of node-c's jobs on node-c.
	 * @return node-c's jobs
	 */
	private List<JobDefinition> lateNodeC(String cron) throws Throwable {
		this.jobs.replaceAll((job) -> job.withSchedule(CronSlotSchedule.of(cron, ZoneOffset.UTC)));
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		this.nodeC = routed(node("node-c"), "node-c");
		this.engine.runDueTasks();
		return fireAtTheNextMinuteWithNodeCLate(a, b);
	}

	/**
	 * Fire every trigger at the next minute on node-a and node-b, then the first of
	 * node-c's jobs on node-c.
	 * @return node-c's jobs
	 */
	private List<JobDefinition> fireAtTheNextMinuteWithNodeCLate(ClusterSingletonExecutor a, ClusterSingletonExecutor b)
			throws Throwable {
		toNextMinute();
		fireOnAAndB(a, b);
		List<JobDefinition> ofC = this.jobs.stream()
			.filter((job) -> this.ran.stream().noneMatch((run) -> run.job().equals(job.name())))
			.toList();
		assertThat(ofC).hasSize(JOBS / 3);
		claimOnC(ofC.get(0), this.clock.instant());
		return ofC;
	}

	/**
	 * For jobs that fire every three seconds: at the first look (250 ms after the slot)
	 * the next fire time is 2.75 s away, and node-c, at work, is given another delay;
	 * node-c claims one more job of the slot (its triggers fired late, for this slot); at
	 * the second look (500 ms after the slot) the next fire time is within two delays,
	 * the slot tolerance and a second, so the rest of node-c's jobs are claimed then,
	 * although it claimed one more. Each job runs once, for the slot.
	 */
	private void assertTheSecondLookClaimsTheRestOfNodeCsJobs(List<JobDefinition> ofC, Instant slot) throws Throwable {
		this.engine.advance(SWEEP_DELAY.plusMillis(10));
		assertThat(this.claims).as("claims at the first look, while node-c is at work").isEmpty();
		claimOnC(ofC.get(1), slot);
		this.engine.advance(SWEEP_DELAY);
		assertClaimedNow(ofC.subList(2, ofC.size()));
		assertThat(this.ran).hasSize(JOBS).extracting(Ran::job).doesNotHaveDuplicates();
		assertThat(this.ran).allSatisfy((run) -> assertThat(run.slot()).isEqualTo(slot));
	}

	private void claimOnC(JobDefinition job, Instant slot) throws Throwable {
		assertThat(this.nodeC.execute(job, slot, RunTrigger.SCHEDULED, body("node-c"))).isTrue();
		this.claims.clear();
	}

	/**
	 * Assert that the claims since the last were of the given jobs, each at least once
	 * (node-a and node-b both look: one claim wins, the other is refused).
	 */
	private void assertClaimedNow(List<JobDefinition> jobs) {
		List<String> names = jobs.stream().map(JobDefinition::name).toList();
		assertThat(this.claims).isNotEmpty()
			.map((claim) -> claim.substring(claim.indexOf(':') + 1))
			.containsOnlyElementsOf(names)
			.containsAll(names);
	}

	@Test
	void theNextNodeInLineSweepsFirstAndTheOthersFindTheSlotClaimed() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		routed(node("node-c"), "node-c");
		this.engine.runDueTasks();
		toNextMinute();
		// node-c's triggers do not fire: for its jobs node-a is next in line (the live
		// nodes in order a, b, c, round robin), node-b comes after
		fireOnAAndB(a, b);
		this.claims.clear();
		this.engine.advance(SWEEP_DELAY.plusMillis(10));
		assertThat(this.ran).hasSize(JOBS);
		assertThat(this.claims).as("claims at the sweep delay")
			.hasSize(JOBS / 3)
			.allMatch((claim) -> claim.startsWith("node-a:"));
		this.engine.advance(SWEEP_DELAY);
		// node-b read the store at twice the delay and found every slot claimed
		assertThat(this.claims).hasSize(JOBS / 3);
		assertThat(this.ran).hasSize(JOBS).extracting(Ran::job).doesNotHaveDuplicates();
	}

	@Test
	void aNodeThatLeftIsNoLongerPreferredAfterTheNextHeartbeat() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ManualClusterSingletonEngine leaving = this.engine.anotherNode("node-b").build();
		ClusterSingletonExecutor b = routed(leaving.executor(), "node-b");
		this.engine.runDueTasks();
		assertThat(b).isNotNull();
		leaving.close();
		// node-a's next heartbeat no longer sees node-b: it claims every job at once
		this.engine.advance(TTL.dividedBy(3));
		toNextMinute();
		for (JobDefinition job : this.jobs) {
			a.execute(job, true, body("node-a"));
		}
		assertThat(this.ran).hasSize(JOBS).allSatisfy((run) -> assertThat(run.node()).isEqualTo("node-a"));
	}

	@Test
	void aSingleNodeClaimsEveryJobItself() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		this.engine.runDueTasks();
		toNextMinute();
		for (JobDefinition job : this.jobs) {
			a.execute(job, true, body("node-a"));
		}
		assertThat(this.ran).hasSize(JOBS);
		assertThat(this.notPreferred).isEmpty();
	}

	@Test
	void directCallsAreNotRouted() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ClusterSingletonExecutor b = routed(node("node-b"), "node-b");
		this.engine.runDueTasks();
		for (JobDefinition job : this.jobs) {
			assertThat(b.execute(job, false, body("node-b"))).isTrue();
		}
		assertThat(this.notPreferred).isEmpty();
		assertThat(a).isNotNull();
	}

	@Test
	void aNodeShuttingDownWithARunningJobStaysOutOfTheLiveNodes() throws Throwable {
		routed(this.engine.executor(), "node-a");
		ManualClusterSingletonEngine leaving = this.engine.anotherNode("node-b")
			.shutdownGracePeriod(TTL.multipliedBy(2))
			.build();
		ClusterSingletonExecutor b = routed(leaving.executor(), "node-b");
		this.engine.runDueTasks();
		JobDefinition longJob = JobDefinition.of("long", Duration.ofMinutes(1), Duration.ZERO);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread running = new Thread(() -> {
			try {
				b.execute(longJob, (Instant) null, () -> {
					started.countDown();
					release.await();
					return null;
				});
			}
			catch (Throwable ex) {
				// the run's end does not matter here
			}
		});
		running.start();
		started.await();
		// the shutdown waits for the run through the grace period, in virtual time, past
		// several heartbeat periods
		leaving.close();
		Set<String> live = this.engine.store().presence().orElseThrow().heartbeat("probe", TTL);
		release.countDown();
		running.join();
		assertThat(live).as("live nodes right after node-b's shutdown").doesNotContain("node-b");
	}

	@Test
	void aNodeWhoseClockRunsAheadWaitsForTheStoresClockBeforeItSweeps() throws Throwable {
		ClusterSingletonExecutor a = routed(this.engine.executor(), "node-a");
		ManualClusterSingletonEngine ahead = this.engine.anotherNode("node-b")
			.nodeClock(Clock.offset(this.clock, Duration.ofMillis(500)))
			.listener(listener("node-b"))
			.build();
		this.others.add(ahead);
		ClusterSingletonExecutor b = routed(ahead.executor(), "node-b");
		this.engine.runDueTasks();
		toNextMinute();
		// 500 ms before the next minute: node-b's clock reads the fire time
		this.engine.advance(Duration.ofSeconds(60).minusMillis(500));
		for (JobDefinition job : this.jobs) {
			b.execute(job, true, body("node-b"));
		}
		this.engine.advance(SWEEP_DELAY.plusMillis(10));
		this.engine.advance(Duration.ofMillis(240));
		// node-a's fire time
		for (JobDefinition job : this.jobs) {
			a.execute(job, true, body("node-a"));
		}
		this.engine.advance(SWEEP_DELAY.plusMillis(10));
		Map<String, Long> perNode = this.ran.stream().collect(Collectors.groupingBy(Ran::node, Collectors.counting()));
		assertThat(this.ran).hasSize(JOBS);
		assertThat(perNode).as("runs per node").containsEntry("node-a", (long) JOBS / 2);
	}

	private ClusterSingletonExecutor routed(ClusterSingletonExecutor executor, String node) {
		for (JobDefinition job : this.jobs) {
			executor.registerJob(job, body(node));
		}
		assertThat(executor.enablePreferredNodes(SWEEP_DELAY)).isTrue();
		executor.startBackgroundWork();
		return executor;
	}

	private ClusterSingletonExecutor node(String owner) {
		ManualClusterSingletonEngine other = this.engine.anotherNode(owner).listener(listener(owner)).build();
		this.others.add(other);
		return other.executor();
	}

	private ClusterSingletonExecutor.Invocation body(String node) {
		return () -> {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			this.ran.add(new Ran(node, context.jobName(), context.slot().orElse(null), context.trigger()));
			return null;
		};
	}

	/**
	 * Fire every job's trigger on node-a and node-b only, as if node-c's scheduler did
	 * not fire.
	 */
	private void fireOnAAndB(ClusterSingletonExecutor a, ClusterSingletonExecutor b) throws Throwable {
		for (JobDefinition job : this.jobs) {
			a.execute(job, true, body("node-a"));
			b.execute(job, true, body("node-b"));
		}
	}

	private void toNextMinute() {
		Instant now = this.clock.instant();
		Instant next = now.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(60);
		this.engine.advance(Duration.between(now, next));
	}

	private ClusterSingletonListener listener(String node) {
		return new ClusterSingletonListener() {

			@Override
			public void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result,
					Duration duration) {
				if (result.outcome() == AcquireResult.Outcome.NOT_PREFERRED) {
					InMemoryPreferredNodeVirtualTimeTests.this.notPreferred.add(node + ":" + job.name());
				}
				else {
					InMemoryPreferredNodeVirtualTimeTests.this.claims.add(node + ":" + job.name());
				}
			}

		};
	}

	record Ran(String node, String job, @Nullable Instant slot, RunTrigger trigger) {
	}

}
