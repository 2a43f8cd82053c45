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
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
import io.github.clustersingleton.StoreClockObserver;
import io.github.clustersingleton.PartialRenewalException;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.LeaderElection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The engine half of the contract suite: the executor and its watchdog running real jobs
 * on the backend under test. {@link AbstractLeaseBackendContractTests} adds the store
 * half; every backend runs both: the store half in every build, this half in the full
 * build ({@code -Pfull}) and, on the stores that say so with
 * {@link #runsEngineContractInEveryBuild()}, in every build
 * ({@link EngineContractScope}).
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(EngineContractScope.class)
public abstract class AbstractLeaseEngineContractTests {

	/**
	 * The shortest TTL the engine accepts: renewals every third of a second.
	 */
	private static final Duration TTL = Duration.ofSeconds(1);

	private static final Duration PATIENCE = Duration.ofSeconds(15);

	private final List<ClusterSingletonExecutor> executors = new CopyOnWriteArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	/**
	 * Return the backend under test, on a reachable store.
	 * @return the backend
	 */
	protected abstract LeaseBackend backend();

	/**
	 * Return a backend whose store cannot be reached.
	 * @return the backend
	 */
	protected abstract LeaseBackend unreachableBackend();

	/**
	 * Return a job name unique to this test class.
	 * @param name the name within the test
	 * @return the job name
	 */
	protected abstract String jobName(String name);

	/**
	 * Whether this store runs the engine contract in every build, not only in the full
	 * one (none of this project's stores does: their default build checks the engine in
	 * virtual time instead).
	 * @return {@code true} to run it in every build
	 */
	protected boolean runsEngineContractInEveryBuild() {
		return false;
	}

	@AfterEach
	void closeExecutors() {
		this.executors.forEach(ClusterSingletonExecutor::close);
		this.executors.clear();
	}

	@Test
	void watchdogKeepsTheLeaseWellPastSeveralTtls() throws Exception {
		String job = jobName("watchdog");
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), listener);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		Future<Boolean> run = submit(
				() -> node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null, () -> {
					context.set(ClusterSingletonContext.current());
					started.countDown();
					return finish.await(30, TimeUnit.SECONDS);
				}));
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		// four TTLs: without renewal the lease would have expired three times over
		await().during(Duration.ofMillis(4 * TTL.toMillis()))
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> !backend().tryAcquire(request(job, "node-b")).isAcquired() && context.get().isLeaseValid());
		assertThat(listener.renewals.get()).isGreaterThanOrEqualTo(3);
		finish.countDown();
		assertThat(run.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.SUCCESS);
		// released at the end of the run: another node gets it at once
		assertThat(backend().tryAcquire(request(job, "node-b")).isAcquired()).isTrue();
	}

	@Test
	void lockAtMostForCapsTheRunAndInterruptsIt() throws Exception {
		String job = jobName("cap");
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), listener);
		Duration lockAtMostFor = Duration.ofMillis(2500);
		AtomicLong interruptedAfter = new AtomicLong(-1);
		AtomicBoolean validAfterInterrupt = new AtomicBoolean(true);
		AtomicReference<@Nullable Throwable> checkLease = new AtomicReference<>();
		AtomicBoolean flagLeaked = new AtomicBoolean(true);
		Future<Boolean> run = submit(() -> {
			boolean ran = node.execute(JobDefinition.of(job, lockAtMostFor, Duration.ZERO), (Instant) null, () -> {
				long start = System.nanoTime();
				try {
					Thread.sleep(30_000);
				}
				catch (InterruptedException ex) {
					interruptedAfter.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
					ClusterSingletonContext context = ClusterSingletonContext.current();
					validAfterInterrupt.set(context.isLeaseValid());
					try {
						context.checkLease();
					}
					catch (LeaseLostException lost) {
						checkLease.set(lost);
					}
				}
				return null;
			});
			flagLeaked.set(Thread.currentThread().isInterrupted());
			return ran;
		});
		assertThat(run.get(20, TimeUnit.SECONDS)).isTrue();
		assertThat(interruptedAfter.get()).isBetween(lockAtMostFor.toMillis() - 200, lockAtMostFor.toMillis() + 1500);
		assertThat(validAfterInterrupt).isFalse();
		assertThat(checkLease.get()).isInstanceOf(LeaseLostException.class)
			.hasMessageContaining(job)
			.hasMessageContaining("lockAtMostFor");
		assertThat(flagLeaked).as("our interrupt must not leak into the thread's next task").isFalse();
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.LEASE_LOST);
		assertThat(listener.lost).hasSize(1);
	}

	@Test
	void leaseTakenBehindTheRunsBackIsDetectedAsLost() throws Exception {
		String job = jobName("taken");
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), listener);
		BlockingRun blocking = startBlockingRun(node, job);
		ClusterSingletonContext context = blocking.context();
		// an operator frees the lease and another node takes it at once
		assertThat(backend().forceRelease(job)).isTrue();
		AcquireResult other = backend().tryAcquire(request(job, "node-b"));
		assertThat(other.isAcquired()).isTrue();
		assertThat(other.fencingToken()).isGreaterThan(context.fencingToken());
		assertThat(blocking.run().get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(blocking.interruptedAt().get()).isNotZero();
		assertThat(context.isLeaseValid()).isFalse();
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.LEASE_LOST);
		// the run's release must not touch node-b's lease
		LeaseInfo info = backend().describe(job).orElseThrow();
		assertThat(info.live()).isTrue();
		assertThat(info.holder()).isEqualTo("node-b");
	}

	@Test
	void renewalFailuresLoseTheLeaseOnlyAtTheLocalDeadline() throws Exception {
		String job = jobName("flaky");
		FlakyBackend flaky = new FlakyBackend(backend());
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", flaky, Clock.systemUTC(), listener);
		BlockingRun blocking = startBlockingRun(node, job);
		await().atMost(PATIENCE).until(() -> listener.renewals.get() >= 2);
		long broken = System.nanoTime();
		flaky.failRenewals.set(true);
		assertThat(blocking.run().get(10, TimeUnit.SECONDS)).isTrue();
		long lostAfter = TimeUnit.NANOSECONDS.toMillis(blocking.interruptedAt().get() - broken);
		// the last good renewal left at most one tick (a third of the TTL) before the
		// break,
		// so the local deadline falls between two thirds of a TTL and one TTL after it
		assertThat(lostAfter).isBetween(TTL.toMillis() * 2 / 3 - 100, TTL.toMillis() + 500);
		assertThat(listener.renewalErrors.get()).isGreaterThanOrEqualTo(1);
		assertThat(listener.lost).singleElement().asString().contains("no renewal succeeded");
		// the store was never told: the lease expires there by itself, then another node
		// takes over
		AcquireResult other = awaitAcquired(request(job, "node-b"));
		assertThat(other.fencingToken()).isGreaterThan(blocking.context().fencingToken());
	}

	@Test
	void aPartialRenewalFailureCostsOnlyTheLeasesThatFailed() throws Exception {
		String kept = jobName("partial-kept");
		String failing = jobName("partial-failing");
		FlakyBackend flaky = new FlakyBackend(backend());
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", flaky, Clock.systemUTC(), listener);
		CountDownLatch bothStarted = new CountDownLatch(2);
		CountDownLatch finish = new CountDownLatch(1);
		Map<String, ClusterSingletonContext> contexts = new ConcurrentHashMap<>();
		List<Future<Boolean>> runs = new ArrayList<>();
		for (String job : List.of(kept, failing)) {
			runs.add(submit(() -> node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO),
					(Instant) null, () -> {
						contexts.put(job, ClusterSingletonContext.current());
						bothStarted.countDown();
						try {
							return finish.await(30, TimeUnit.SECONDS);
						}
						catch (InterruptedException ex) {
							// the failing run is interrupted when its lease is lost
							return null;
						}
					})));
		}
		assertThat(bothStarted.await(10, TimeUnit.SECONDS)).isTrue();
		flaky.failingJob = failing;
		assertThat(runs.get(1).get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(contexts.get(failing).isLeaseValid()).isFalse();
		assertThat(listener.lost).singleElement().asString().contains("no renewal succeeded");
		// the other lease, renewed in the same calls, lives on for several TTLs
		await().during(Duration.ofMillis(3 * TTL.toMillis()))
			.atMost(Duration.ofSeconds(10))
			.until(() -> contexts.get(kept).isLeaseValid());
		finish.countDown();
		assertThat(runs.get(0).get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(listener.outcomes).containsExactlyInAnyOrder(ClusterSingletonListener.RunOutcome.LEASE_LOST,
				ClusterSingletonListener.RunOutcome.SUCCESS);
	}

	@Test
	void aLeaseGrantedAfterItsTtlIsGivenBackUnused() throws Throwable {
		String job = jobName("late-grant");
		FlakyBackend slow = new FlakyBackend(backend());
		slow.acquireDelay = TTL.plusMillis(200);
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", slow, Clock.systemUTC(), listener);
		AtomicBoolean ran = new AtomicBoolean();
		AtomicBoolean validInRun = new AtomicBoolean();
		boolean executed = node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null,
				() -> {
					ran.set(true);
					validInRun.set(ClusterSingletonContext.current().isLeaseValid());
					return null;
				});
		if (renewsALeaseNobodyTookAfterItsTtl()) {
			// the renewal before the run confirmed that nobody took the lease meanwhile
			assertThat(executed).isTrue();
			assertThat(validInRun).isTrue();
			return;
		}
		assertThat(executed).isFalse();
		assertThat(ran).isFalse();
		// given back at once, not left to expire
		assertThat(backend().tryAcquire(request(job, "node-b")).isAcquired()).isTrue();
	}

	@Test
	void aLateGrantThatCannotBeRenewedBeforeTheRunIsGivenBackUnused() throws Throwable {
		String job = jobName("late-deadline");
		Duration ttl = Duration.ofSeconds(3);
		FlakyBackend slow = new FlakyBackend(backend());
		// the grant arrives 0.5 s before the local deadline, and the store cannot be
		// reached for the renewal that would make it usable
		slow.acquireDelay = ttl.minusMillis(500);
		slow.failRenewals.set(true);
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", slow, Clock.systemUTC(), listener, ttl);
		AtomicBoolean ran = new AtomicBoolean();
		boolean executed = node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null,
				() -> {
					ran.set(true);
					return null;
				});
		assertThat(executed).isFalse();
		assertThat(ran).isFalse();
		assertThat(listener.outcomes).isEmpty();
		// given back at once, not left to expire
		assertThat(backend().tryAcquire(request(job, "node-b")).isAcquired()).isTrue();
	}

	@Test
	void leaderModeElectsOneLeaderAndOnlyTheLeaderRunsJobs() throws Throwable {
		String leaseName = jobName("leader");
		String job = jobName("led");
		FlakyBackend backendA = new FlakyBackend(backend());
		FlakyBackend backendB = new FlakyBackend(backend());
		ClusterSingletonExecutor a = executor("node-a", backendA, Clock.systemUTC(), new RecordingListener());
		ClusterSingletonExecutor b = executor("node-b", backendB, Clock.systemUTC(), new RecordingListener());
		LeaderElection leaderA = a.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		a.startLeaderElection();
		b.startLeaderElection();
		await().atMost(PATIENCE).until(() -> leaderA.isLeader() || leaderB.isLeader());
		// exactly one leader, the same one, over several TTLs of renewals and attempts
		await().during(TTL.multipliedBy(3))
			.atMost(TTL.multipliedBy(6))
			.until(() -> leaderA.isLeader() != leaderB.isLeader());
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
		ClusterSingletonExecutor a = executor("node-a", backendA, Clock.systemUTC(), new RecordingListener());
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
		await().atMost(PATIENCE).until(leaderA::isLeader);
		long termA = leaderA.term();
		ClusterSingletonExecutor b = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		b.startLeaderElection();
		await().during(TTL).atMost(TTL.multipliedBy(3)).until(() -> leaderA.isLeader() && !leaderB.isLeader());
		// the leader loses its store: it is revoked at its local deadline, and the other
		// node takes the lease once the store expired it, within two TTLs
		long cut = System.nanoTime();
		backendA.failAcquisitions.set(true);
		backendA.failRenewals.set(true);
		await().atMost(TTL.multipliedBy(2).plusMillis(500)).until(leaderB::isLeader);
		assertThat(Duration.ofNanos(System.nanoTime() - cut)).isLessThan(TTL.multipliedBy(2).plusMillis(500));
		assertThat(leaderA.isLeader()).isFalse();
		assertThat(leaderB.term()).isGreaterThan(termA);
		assertThat(eventsA).containsExactly("granted " + termA, "revoked " + termA);
	}

	@Test
	void aLeaderWhoseClockRunsAheadOfTheStoreStepsDownSoThatItsSlotsRunElsewhere() throws Throwable {
		String leaseName = jobName("leader-skew");
		String job = jobName("skewed");
		Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(4));
		ClusterSingletonExecutor a = executor("node-a", backend(), ahead, new RecordingListener());
		LeaderElection leaderA = a.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		a.startLeaderElection();
		await().atMost(PATIENCE).until(leaderA::isLeader);
		ClusterSingletonExecutor b = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		b.startLeaderElection();
		JobDefinition definition = JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO);
		// the slot the leader's scheduler fires for, 4 s ahead of the store: refused
		Instant slot = ahead.instant().truncatedTo(ChronoUnit.SECONDS);
		assertThat(a.execute(definition, slot, () -> null)).isFalse();
		assertThat(leaderA.isLeader()).as("a leader whose slot was refused").isFalse();
		await().atMost(TTL.multipliedBy(3)).until(leaderB::isLeader);
		assertThat(leaderA.isLeader()).isFalse();
		// the new leader's scheduler fires for that slot at its time, and runs it
		await().atMost(PATIENCE).until(() -> !Instant.now().isBefore(slot));
		assertThat(b.execute(definition, slot, () -> null)).isTrue();
	}

	@Test
	void aLeaderThatShutsDownHandsOverAtOnce() {
		String leaseName = jobName("leader-close");
		ClusterSingletonExecutor a = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		LeaderElection leaderA = a.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		a.startLeaderElection();
		await().atMost(PATIENCE).until(leaderA::isLeader);
		ClusterSingletonExecutor b = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		LeaderElection leaderB = b.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		b.startLeaderElection();
		a.close();
		assertThat(leaderA.isLeader()).isFalse();
		// given back, not left to expire: the next attempt, within a third of the TTL,
		// wins
		await().atMost(TTL.dividedBy(3).plusMillis(700)).until(leaderB::isLeader);
	}

	@Test
	void aRunWhoseThreadWasInterruptedStillReleasesItsLease() throws Exception {
		String job = jobName("interrupted");
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener(),
				Duration.ofSeconds(30));
		Future<Boolean> interruptedAfterwards = this.threads.submit(() -> {
			try {
				node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null, () -> {
					// as Spring's shutdownNow does to the scheduler's threads
					Thread.currentThread().interrupt();
					return null;
				});
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
			return Thread.interrupted();
		});
		// the caller's interrupt stays; the lease was released, not left for its 30 s TTL
		assertThat(interruptedAfterwards.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(backend().tryAcquire(request(job, "node-b")).isAcquired()).isTrue();
	}

	@Test
	void storeUnreachableAtTriggerSkipsTheRunWithoutThrowing() throws Throwable {
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", unreachableBackend(), Clock.systemUTC(), listener);
		AtomicBoolean ran = new AtomicBoolean();
		boolean executed = node.execute(JobDefinition.of(jobName("unreachable"), Duration.ofMinutes(1), Duration.ZERO),
				(Instant) null, () -> {
					ran.set(true);
					return null;
				});
		assertThat(executed).isFalse();
		assertThat(ran).isFalse();
		assertThat(listener.acquireErrors.get()).isEqualTo(1);
	}

	@Test
	void jobExceptionsPropagateAndTheLeaseIsReleased() {
		String job = jobName("failing");
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), listener);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(
				() -> node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null, () -> {
					throw new IllegalStateException("job failed");
				}))
			.withMessage("job failed");
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.FAILURE);
		assertThat(backend().tryAcquire(request(job, "node-b")).isAcquired()).isTrue();
	}

	@Test
	void eachCronSlotRunsOnceAcrossNodesWithSkewedClocks() throws Exception {
		String job = jobName("slots");
		JobDefinition definition = JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("* * * * * *", ZoneOffset.UTC));
		Map<Instant, List<String>> runs = new ConcurrentHashMap<>();
		List<ThreadPoolTaskScheduler> schedulers = new ArrayList<>();
		try {
			for (Duration skew : List.of(Duration.ofSeconds(2), Duration.ofSeconds(-2), Duration.ZERO)) {
				String owner = "node" + skew;
				Clock clock = Clock.offset(Clock.systemUTC(), skew);
				ClusterSingletonExecutor node = executor(owner, backend(), clock, new RecordingListener());
				ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
				scheduler.setClock(clock);
				scheduler.setThreadNamePrefix(owner + "-");
				scheduler.initialize();
				schedulers.add(scheduler);
				scheduler.schedule(() -> {
					try {
						node.execute(definition, true, () -> {
							Instant slot = ClusterSingletonContext.current().slot().orElseThrow();
							runs.computeIfAbsent(slot, (key) -> new CopyOnWriteArrayList<>()).add(owner);
							Thread.sleep(10);
							return null;
						});
					}
					catch (Throwable ex) {
						throw new IllegalStateException(ex);
					}
				}, new CronTrigger("* * * * * *", ZoneOffset.UTC));
			}
			await().atMost(PATIENCE).until(() -> runs.size() >= 6);
		}
		finally {
			schedulers.forEach(ThreadPoolTaskScheduler::shutdown);
		}
		assertThat(runs).allSatisfy((slot, owners) -> assertThat(owners).as("runs of slot " + slot).hasSize(1));
		assertThat(runs.keySet()).allSatisfy((slot) -> assertThat(slot.getNano()).isZero());
		// the node 2 s ahead is more than the slot tolerance (1 s) ahead of the store:
		// every
		// slot it names is refused, so it can never claim a slot before its time
		assertThat(runs.values())
			.allSatisfy((owners) -> assertThat(owners).doesNotContain("node" + Duration.ofSeconds(2)));
	}

	@Test
	void contextCarriesSlotAndFencingTokenOfTheRun() throws Throwable {
		String job = jobName("context");
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		Instant slot = Instant.parse("2026-01-01T10:00:00Z");
		List<ClusterSingletonContext> seen = new ArrayList<>();
		for (Instant s : List.of(slot, slot.plusSeconds(60))) {
			node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), s, () -> {
				seen.add(ClusterSingletonContext.current());
				return null;
			});
		}
		assertThat(seen).hasSize(2);
		assertThat(seen.get(0).slot()).contains(slot);
		assertThat(seen.get(0).jobName()).isEqualTo(job);
		assertThat(seen.get(1).fencingToken()).isGreaterThan(seen.get(0).fencingToken());
		// the first slot is done: it never runs again
		AtomicBoolean ran = new AtomicBoolean();
		assertThat(node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), slot, () -> {
			ran.set(true);
			return null;
		})).isFalse();
		assertThat(ran).isFalse();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(ClusterSingletonContext::current);
	}

	/**
	 * Return whether the backend supports claim policies, {@code startRun},
	 * {@code findPending} and a run ledger.
	 * @return whether the recovery and catch-up cases apply
	 */
	/**
	 * Whether the store renews a lease whose TTL has passed while no other node took it
	 * (a compare-and-set on the record rather than a check of its expiry).
	 * @return {@code true} when it does
	 */
	protected boolean renewsALeaseNobodyTookAfterItsTtl() {
		return false;
	}

	protected boolean supportsRecovery() {
		return true;
	}

	private static final Instant BASE = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofHours(2));

	private static Instant minute(int n) {
		return BASE.plus(Duration.ofMinutes(n));
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
		long died = System.nanoTime();
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeB = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		nodeB.startBackgroundWork();
		await().atMost(PATIENCE).until(() -> !seen.isEmpty());
		Duration recoveredAfter = Duration.ofNanos(System.nanoTime() - died);
		assertThat(recoveredAfter).as("re-run within 2 TTLs of the loss (plus scheduling slack)")
			.isLessThan(TTL.multipliedBy(2).plusMillis(1500));
		Seen run = seen.get(0);
		assertThat(run.slot()).isEqualTo(minute(1));
		assertThat(run.attempt()).isEqualTo(2);
		assertThat(run.trigger()).isEqualTo(RunTrigger.RECOVERY);
		assertThat(run.fencingToken()).isGreaterThan(claimed.fencingToken());
		// done: nothing pending any more, and the slot is never run a third time
		await().during(TTL.multipliedBy(2)).atMost(PATIENCE).until(() -> seen.size() == 1);
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
			ClusterSingletonExecutor node = executor(owner, backend(), Clock.systemUTC(), new RecordingListener());
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
			await().atMost(PATIENCE).until(() -> seen.size() >= expected);
			await().during(TTL).atMost(PATIENCE).until(() -> seen.size() == expected);
		}
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(2), minute(3));
		assertThat(seen).extracting(Seen::attempt).containsOnly(2);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void aRunThatNoticesTheLossOfItsLeaseFirstIsRecordedLostAndRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
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
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), listener);
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
			assertThat(blockerLost.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LeaseLostException.class)
				.isThrownBy(() -> node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		}
		finally {
			release.countDown();
		}
		blocker.get(10, TimeUnit.SECONDS);
		assertThat(outcomes).containsExactly(ClusterSingletonListener.RunOutcome.LEASE_LOST);
		assertThat(lost).singleElement().asString().contains("lockAtMostFor");
		await().atMost(PATIENCE)
			.untilAsserted(() -> assertThat(node.runLedger().history(name, 10)).extracting(RunRecord::state)
				.containsExactly(RunState.LOST));
		node.startBackgroundWork();
		await().atMost(PATIENCE).until(() -> seen.size() >= 2);
		assertThat(seen.get(1).slot()).isEqualTo(minute(1));
		assertThat(seen.get(1).attempt()).isEqualTo(2);
		assertThat(seen.get(1).trigger()).isEqualTo(RunTrigger.RECOVERY);
		await().during(TTL.multipliedBy(2)).atMost(PATIENCE).until(() -> seen.size() == 2);
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
				await().atMost(PATIENCE).until(() -> !listener.lost.isEmpty());
				failRenewals.set(false);
			}
			return null;
		};
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, body)).isTrue();
		// no other claim took the job over: the store still records the run as the job's
		// current one, so it succeeded
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.SUCCESS);
		await().atMost(PATIENCE)
			.untilAsserted(() -> assertThat(node.runLedger().history(name, 10)).extracting(RunRecord::state)
				.containsExactly(RunState.SUCCEEDED));
		ClusterSingletonExecutor other = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		other.registerJob(job, body);
		other.startBackgroundWork();
		await().during(TTL.multipliedBy(3)).atMost(PATIENCE).until(() -> seen.size() == 1);
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
				await().atMost(PATIENCE).until(() -> !context.isLeaseValid());
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
		await().atMost(PATIENCE).until(() -> seen.size() >= 2);
		assertThat(seen.get(1).attempt()).isEqualTo(2);
		assertThat(seen.get(1).trigger()).isEqualTo(RunTrigger.RECOVERY);
	}

	@Test
	void aGrantThatUsedUpMostOfItsTtlIsRenewedBeforeTheRunStarts() throws Throwable {
		String job = jobName("late-renewed");
		Duration ttl = Duration.ofSeconds(3);
		FlakyBackend slow = new FlakyBackend(backend());
		slow.acquireDelay = ttl.minusMillis(700);
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", slow, Clock.systemUTC(), listener, ttl);
		AtomicBoolean validAfterOldDeadline = new AtomicBoolean();
		boolean executed = node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null,
				() -> {
					// past the deadline the grant alone would have had
					Thread.sleep(1200);
					validAfterOldDeadline.set(ClusterSingletonContext.current().isLeaseValid());
					return null;
				});
		assertThat(executed).isTrue();
		assertThat(validAfterOldDeadline).isTrue();
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.SUCCESS);
		assertThat(listener.lost).isEmpty();
	}

	/**
	 * An executor that does not interrupt a run whose lease is lost, so that its body
	 * returns or throws when it chooses.
	 */
	private ClusterSingletonExecutor uninterruptingExecutor(String owner, LeaseBackend backend,
			ClusterSingletonListener listener) {
		ClusterSingletonExecutor executor = new ClusterSingletonExecutor(backend,
				new ClusterSingletonExecutor.Settings(owner, TTL, Duration.ofSeconds(1), false), Clock.systemUTC(),
				listener);
		this.executors.add(executor);
		return executor;
	}

	/**
	 * The real backend, with renewals that fail while {@code fail} is set.
	 */
	private static LeaseBackend failingRenewals(LeaseBackend real, AtomicBoolean fail) {
		return (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("renew") && fail.get()) {
						throw new IllegalStateException("store unreachable (simulated)");
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
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
		ClusterSingletonExecutor nodeA = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		ClusterSingletonExecutor nodeB = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		nodeA.registerJob(job, failing);
		nodeB.registerJob(job, failing);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, failing));
		long failed = System.nanoTime();
		nodeA.startBackgroundWork();
		nodeB.startBackgroundWork();
		await().atMost(PATIENCE).until(() -> seen.size() >= 3);
		await().during(TTL.multipliedBy(2)).atMost(PATIENCE).until(() -> seen.size() == 3);
		assertThat(Duration.ofNanos(System.nanoTime() - failed)).isGreaterThanOrEqualTo(Duration.ofMillis(1000));
		assertThat(seen).extracting(Seen::attempt).containsExactly(1, 2, 3);
		assertThat(seen).extracting(Seen::slot).containsOnly(minute(1));
		assertThat(seen.subList(1, 3)).extracting(Seen::trigger).containsOnly(RunTrigger.RECOVERY);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
		await().atMost(PATIENCE)
			.untilAsserted(() -> assertThat(nodeA.runLedger().history(name, 10)).extracting(RunRecord::state)
				.containsExactly(RunState.FAILED, RunState.FAILED, RunState.FAILED));
	}

	@Test
	void aSuccessTheStoreCouldNotRecordAtOnceIsRecordedByARetryAndNotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("completion-retry");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		AtomicInteger failedReleases = new AtomicInteger();
		LeaseBackend real = backend();
		// the first release that carries a completion fails, as during a failover
		LeaseBackend flaky = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun") && failedReleases.getAndIncrement() == 0) {
						throw new IllegalStateException("connection reset");
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", flaky, Clock.systemUTC(), new RecordingListener());
		node.registerJob(job, () -> seen.add(Seen.of("node-a")));
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		await().atMost(PATIENCE).until(() -> failedReleases.get() == 2 && node.undeliveredCompletions() == 0);
		node.startBackgroundWork();
		await().during(TTL.multipliedBy(3)).atMost(PATIENCE).until(() -> seen.size() == 1);
		assertThat(real.findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void aSuccessTheStoreTakesOnlyAfterTheLeaseExpiredAndAnotherNodeMarkedTheRunIsNotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("late-completion");
		Duration ttl = Duration.ofSeconds(3);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		// node-a cannot reach the store when its run ends, until node-b has found the
		// run's lease expired and marked the run
		AtomicBoolean storeDown = new AtomicBoolean(true);
		AtomicInteger completions = new AtomicInteger();
		LeaseBackend cutOff = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun")) {
						completions.incrementAndGet();
						if (storeDown.get()) {
							throw new IllegalStateException("connection refused (simulated)");
						}
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		AtomicInteger marks = new AtomicInteger();
		LeaseBackend watched = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					Object result;
					try {
						result = method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
					if (method.getName().equals("tryAcquire") && ((LeaseRequest) args[0]).recovery()
							&& !((AcquireResult) result).isAcquired()) {
						marks.incrementAndGet();
					}
					return result;
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", cutOff, Clock.systemUTC(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", watched, Clock.systemUTC(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		nodeB.startBackgroundWork();
		assertThat(nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		assertThat(nodeA.undeliveredCompletions()).isEqualTo(1);
		await().atMost(PATIENCE).until(() -> marks.get() > 0);
		assertThat(completions.get()).as("attempts while the store was unreachable").isGreaterThan(1);
		storeDown.set(false);
		await().atMost(PATIENCE).until(() -> nodeA.undeliveredCompletions() == 0);
		await().during(ttl.multipliedBy(2)).atMost(PATIENCE).until(() -> seen.size() == 1);
		assertThat(seen).extracting(Seen::node).containsExactly("node-a");
		assertThat(real.findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
		await().atMost(PATIENCE)
			.untilAsserted(() -> assertThat(nodeA.runLedger().history(name, 10)).extracting(RunRecord::state)
				.containsExactly(RunState.SUCCEEDED));
	}

	@Test
	void aDirectCallBetweenARunsEndAndItsLateCompletionDoesNotMakeTheSlotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("direct-between");
		Duration ttl = Duration.ofSeconds(2);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		// node-a cannot tell the store its run ended (a pause longer than the TTL, a
		// short partition) until node-b has made a direct call of the job
		AtomicBoolean storeDown = new AtomicBoolean(true);
		LeaseBackend cutOff = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun") && storeDown.get()) {
						throw new IllegalStateException("connection refused (simulated)");
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", cutOff, Clock.systemUTC(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", real, Clock.systemUTC(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		assertThat(nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		Thread.sleep(ttl.toMillis() + 300);
		List<Seen> direct = new CopyOnWriteArrayList<>();
		// the direct call may be refused while the run awaits its completion, as while
		// the lease is live, but once the completion is recorded it runs
		boolean ranBefore = nodeB.execute(job, null, RunTrigger.DIRECT, () -> direct.add(Seen.of("node-b")));
		storeDown.set(false);
		await().atMost(PATIENCE).until(() -> nodeA.undeliveredCompletions() == 0);
		if (!ranBefore) {
			assertThat(nodeB.execute(job, null, RunTrigger.DIRECT, () -> direct.add(Seen.of("node-b")))).isTrue();
		}
		assertThat(direct).hasSize(1);
		nodeB.startBackgroundWork();
		Thread.sleep(ttl.multipliedBy(3).toMillis());
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1));
	}

	@Test
	protected void aCatchUpRunWhoseNextRunCannotStartIsRecordedAndNotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("catch-up-pause");
		Duration ttl = Duration.ofSeconds(2);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		// node-a pauses (a GC, SIGSTOP) after the first catch-up run ended and before it
		// starts the next one, for longer than the TTL: the store refuses that start
		AtomicInteger starts = new AtomicInteger();
		LeaseBackend paused = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("startRun") && starts.incrementAndGet() == 2) {
						Thread.sleep(ttl.toMillis() + 700);
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", paused, Clock.systemUTC(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", real, Clock.systemUTC(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		assertThat(nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		nodeA.execute(job, minute(4), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")));
		assertThat(starts.get()).isEqualTo(2);
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(2));
		// node-b takes up what node-a left (the slots after the one node-a ran, up to
		// what its misfire limit keeps), but not the slot node-a ran before its pause
		nodeB.startBackgroundWork();
		await().atMost(PATIENCE).until(() -> seen.size() >= 3);
		Thread.sleep(ttl.multipliedBy(3).toMillis());
		assertThat(seen).extracting(Seen::slot).doesNotHaveDuplicates();
		assertThat(seen).filteredOn((s) -> s.node().equals("node-b"))
			.extracting(Seen::slot)
			.allMatch((slot) -> slot.isAfter(minute(2)));
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void aCatchUpRunWhoseNextStartFailsBeforeReachingTheStoreIsRecordedAndNotRunAgain() throws Throwable {
		assertNextStartFailureLosesNoSlotAndRunsNoneTwice("start-unsent", false);
	}

	@Test
	void aCatchUpRunWhoseNextStartReachesTheStoreButIsAnsweredWithAnErrorDoesNotEndTheNextRun() throws Throwable {
		assertNextStartFailureLosesNoSlotAndRunsNoneTwice("start-reply-lost", true);
	}

	/**
	 * node-a runs slot 1, then a catch-up of slots 2 and 3 before slot 4; the start of
	 * slot 3 throws, after it reached the store ({@code reached}) or before: node-a sends
	 * slot 2's end, and node-b takes up the rest. Every slot runs exactly once. The slots
	 * are a few minutes back, so that node-b's catch-up at its start reaches back to them
	 * within the misfire limit.
	 */
	private void assertNextStartFailureLosesNoSlotAndRunsNoneTwice(String jobName, boolean reached) throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName(jobName);
		Duration ttl = Duration.ofSeconds(2);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		Instant base = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(6));
		List<Instant> slots = List.of(base.plusSeconds(60), base.plusSeconds(120), base.plusSeconds(180),
				base.plusSeconds(240));
		LeaseBackend real = backend();
		AtomicInteger starts = new AtomicInteger();
		LeaseBackend failing = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					boolean fail = method.getName().equals("startRun") && starts.incrementAndGet() == 2;
					if (fail && !reached) {
						throw new IllegalStateException("connection refused (simulated)");
					}
					Object result;
					try {
						result = method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
					if (fail) {
						throw new IllegalStateException("read timed out (simulated, after the store took it)");
					}
					return result;
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", failing, Clock.systemUTC(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", real, Clock.systemUTC(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		assertThat(nodeA.execute(job, slots.get(0), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		nodeA.execute(job, slots.get(3), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")));
		assertThat(starts.get()).isEqualTo(2);
		assertThat(seen).extracting(Seen::slot).containsExactly(slots.get(0), slots.get(1));
		assertThat(nodeA.undeliveredCompletions()).as("slot 2's end was taken").isZero();
		nodeB.startBackgroundWork();
		await().atMost(PATIENCE).until(() -> seen.stream().map(Seen::slot).toList().containsAll(slots.subList(2, 4)));
		Thread.sleep(ttl.multipliedBy(3).toMillis());
		assertThat(seen).extracting(Seen::slot).doesNotHaveDuplicates().containsAll(slots);
		assertThat(seen).filteredOn((s) -> s.node().equals("node-a"))
			.extracting(Seen::slot)
			.containsExactly(slots.get(0), slots.get(1));
		// a start that reached the store made slot 3 a run that died before it ran:
		// node-b runs it as a recovery attempt
		assertThat(seen).filteredOn((s) -> slots.get(2).equals(s.slot()))
			.extracting(Seen::attempt)
			.containsExactly(reached ? 2 : 1);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void aCatchUpLongerThanTheTtlKeepsItsLeaseBetweenShortRuns() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("long-catch-up");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 8, RecoveryPolicy.NONE, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		ClusterSingletonExecutor.Invocation shortRun = () -> {
			seen.add(Seen.of("node-a"));
			Thread.sleep(TTL.toMillis() / 4);
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
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
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
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
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
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
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
		ClusterSingletonExecutor before = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		assertThat(before.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the whole cluster was down from minute 1 on; a node starts
		ClusterSingletonExecutor node = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		node.registerJob(job, () -> seen.add(Seen.of("node-b")));
		node.startBackgroundWork();
		await().atMost(PATIENCE).until(() -> !seen.isEmpty());
		Seen catchUp = seen.get(0);
		assertThat(catchUp.trigger()).isEqualTo(RunTrigger.CATCH_UP);
		assertThat(catchUp.slot()).isAfter(minute(100));
		long missed = Duration.between(minute(1), catchUp.slot()).toMinutes() - 1;
		assertThat(catchUp.missedSlots()).hasSize((int) missed).startsWith(minute(2));
		await().during(TTL).atMost(PATIENCE).until(() -> seen.size() == 1);
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
		ClusterSingletonExecutor node = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		node.registerJob(job, body);
		node.startBackgroundWork();
		assertThatExceptionOfType(StackOverflowError.class)
			.isThrownBy(() -> node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		await().atMost(PATIENCE).until(() -> seen.size() >= 2);
		assertThat(seen.get(1).attempt()).isEqualTo(2);
		assertThat(seen.get(1).trigger()).isEqualTo(RunTrigger.RECOVERY);
	}

	@Test
	void aLateCatchUpClaimGivenBackLeavesItsMissedSlotsToALaterCatchUp() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("late-catch-up");
		// recovery=none: only the misfire policy can bring the slots back
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ONCE, 10, RecoveryPolicy.NONE, 3, Duration.ZERO));
		ClusterSingletonExecutor before = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		assertThat(before.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// slots 2 to 4 were missed; the claim of slot 5 carries them, and is granted
		// after
		// its whole TTL: it is given back unused
		FlakyBackend slow = new FlakyBackend(backend());
		slow.acquireDelay = TTL.plusMillis(200);
		ClusterSingletonExecutor late = executor("node-b", slow, Clock.systemUTC(), new RecordingListener());
		List<Seen> seen = new CopyOnWriteArrayList<>();
		if (renewsALeaseNobodyTookAfterItsTtl()) {
			// the store confirms the late claim: it runs the missed slots itself
			slow.failRenewals.set(true);
		}
		assertThat(late.execute(job, minute(5), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-b")))).isFalse();
		assertThat(seen).isEmpty();
		// the next slot's winner catches them up, and the slot the claim was for, before
		// its own
		ClusterSingletonExecutor node = executor("node-c", backend(), Clock.systemUTC(), new RecordingListener());
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
		ClusterSingletonExecutor before = executor("node-a", backend(), Clock.systemUTC(), new RecordingListener());
		assertThat(before.execute(job, minute(1), RunTrigger.SCHEDULED, () -> null)).isTrue();
		// the whole cluster restarts within a TTL: the old leader's lease is still live
		// when the node starts, so its start-up catch-up is skipped
		LeaseRequest oldLeader = new LeaseRequest(leaseName, "node-a", "old-leader-token", TTL.multipliedBy(2), null);
		assertThat(backend().tryAcquire(oldLeader).isAcquired()).isTrue();
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		LeaderElection leader = node.enableLeaderMode(leaseName, LeaderElection.Listener.NONE);
		node.registerJob(job, () -> seen.add(Seen.of("node-b")));
		node.startLeaderElection();
		node.startBackgroundWork();
		assertThat(leader.isLeader()).isFalse();
		await().atMost(PATIENCE).until(leader::isLeader);
		await().atMost(PATIENCE).until(() -> !seen.isEmpty());
		Seen catchUp = seen.get(0);
		assertThat(catchUp.trigger()).isEqualTo(RunTrigger.CATCH_UP);
		assertThat(catchUp.slot()).isAfter(minute(100));
		await().during(TTL).atMost(PATIENCE).until(() -> seen.size() == 1);
	}

	@Test
	void aNodeNeverTakesOverTheRunWhoseCompletionItIsStillSending() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("own-takeover");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		CountDownLatch completing = new CountDownLatch(1);
		CountDownLatch proceed = new CountDownLatch(1);
		// the first completion waits, as for a pool connection or a slow commit, while
		// the run's lease expires in the store
		LeaseBackend slow = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun") && completing.getCount() > 0) {
						completing.countDown();
						proceed.await(30, TimeUnit.SECONDS);
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", slow, Clock.systemUTC(), new RecordingListener());
		ClusterSingletonExecutor.Invocation body = () -> seen.add(Seen.of("node-a"));
		node.registerJob(job, body);
		node.startBackgroundWork();
		Future<Boolean> run = submit(() -> node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		try {
			assertThat(completing.await(10, TimeUnit.SECONDS)).isTrue();
			// the lease expires, the grace passes: this node's own recovery must not run
			// the slot again while it still sends the run's end
			await().during(TTL.multipliedBy(3)).atMost(PATIENCE).until(() -> seen.size() == 1);
			// nor may the next slot's trigger here, which would take the run over first
			assertThat(node.execute(job, minute(2), RunTrigger.SCHEDULED, body)).isFalse();
			assertThat(seen).hasSize(1);
		}
		finally {
			proceed.countDown();
		}
		assertThat(run.get(10, TimeUnit.SECONDS)).isTrue();
		await().during(TTL.multipliedBy(2)).atMost(PATIENCE).until(() -> seen.size() == 1);
		assertThat(real.findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void aJobThatNeverRanHasNothingToCatchUp() {
		assumeTrue(supportsRecovery());
		String name = jobName("never-ran");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-b", backend(), Clock.systemUTC(), new RecordingListener());
		node.registerJob(job, () -> seen.add(Seen.of("node-b")));
		node.startBackgroundWork();
		await().during(TTL.multipliedBy(2)).atMost(PATIENCE).until(seen::isEmpty);
		assertThat(backend().describe(name)).isEmpty();
	}

	private ClusterSingletonExecutor executor(String owner, LeaseBackend backend, Clock clock,
			ClusterSingletonListener listener) {
		return executor(owner, backend, clock, listener, TTL);
	}

	private ClusterSingletonExecutor executor(String owner, LeaseBackend backend, Clock clock,
			ClusterSingletonListener listener, Duration ttl) {
		ClusterSingletonExecutor executor = new ClusterSingletonExecutor(backend,
				new ClusterSingletonExecutor.Settings(owner, ttl, Duration.ofSeconds(1), true), clock, listener);
		this.executors.add(executor);
		return executor;
	}

	/**
	 * Start a run of {@code job} on another thread that sleeps until interrupted, and
	 * wait until it holds its lease.
	 */
	private BlockingRun startBlockingRun(ClusterSingletonExecutor node, String job) throws InterruptedException {
		CountDownLatch started = new CountDownLatch(1);
		AtomicLong interruptedAt = new AtomicLong();
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		Future<Boolean> run = submit(
				() -> node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null, () -> {
					context.set(ClusterSingletonContext.current());
					started.countDown();
					try {
						Thread.sleep(30_000);
					}
					catch (InterruptedException ex) {
						interruptedAt.set(System.nanoTime());
					}
					return null;
				}));
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		return new BlockingRun(run, context.get(), interruptedAt);
	}

	private record BlockingRun(Future<Boolean> run, ClusterSingletonContext context, AtomicLong interruptedAt) {

	}

	private Future<Boolean> submit(GuardedCall call) {
		return this.threads.submit(() -> {
			try {
				return call.call();
			}
			catch (Exception | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	@FunctionalInterface
	private interface GuardedCall {

		boolean call() throws Throwable;

	}

	private AcquireResult awaitAcquired(LeaseRequest request) {
		AtomicReference<@Nullable AcquireResult> result = new AtomicReference<>();
		await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50)).until(() -> {
			AcquireResult attempt = backend().tryAcquire(request);
			result.set(attempt);
			return attempt.isAcquired();
		});
		return result.get();
	}

	private static LeaseRequest request(String job, String owner) {
		return new LeaseRequest(job, owner, java.util.UUID.randomUUID().toString().replace("-", ""),
				Duration.ofSeconds(30), null);
	}

	/**
	 * Records what the engine reports; shared with the backends' own engine tests.
	 */
	protected static final class RecordingListener implements ClusterSingletonListener {

		public final List<RunOutcome> outcomes = new CopyOnWriteArrayList<>();

		public final List<String> lost = new CopyOnWriteArrayList<>();

		public final AtomicLong renewals = new AtomicLong();

		public final AtomicLong renewalErrors = new AtomicLong();

		public final AtomicLong acquireErrors = new AtomicLong();

		public RecordingListener() {
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
				this.renewals.incrementAndGet();
			}
		}

		@Override
		public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
			this.lost.add(reason);
		}

	}

	/**
	 * The real backend, with renewals that fail on demand, as when the store goes away in
	 * the middle of a run.
	 */
	static final class FlakyBackend implements LeaseBackend {

		final AtomicBoolean failRenewals = new AtomicBoolean();

		/** Whether acquisitions fail, as when the store is unreachable. */
		final AtomicBoolean failAcquisitions = new AtomicBoolean();

		/** The job names of every acquisition asked for through this backend. */
		final List<String> acquiredJobs = new CopyOnWriteArrayList<>();

		/** How long the store takes to answer an acquisition. */
		volatile Duration acquireDelay = Duration.ZERO;

		/** When set, only this job's renewals fail, reported as a partial failure. */
		volatile @Nullable String failingJob;

		private final LeaseBackend delegate;

		FlakyBackend(LeaseBackend delegate) {
			this.delegate = delegate;
		}

		@Override
		public String id() {
			return this.delegate.id();
		}

		@Override
		public void validateJobName(String jobName) {
			this.delegate.validateJobName(jobName);
		}

		@Override
		public void setStoreClockObserver(StoreClockObserver observer) {
			this.delegate.setStoreClockObserver(observer);
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			this.acquiredJobs.add(request.jobName());
			if (this.failAcquisitions.get()) {
				throw new IllegalStateException("store unreachable (simulated)");
			}
			AcquireResult result = this.delegate.tryAcquire(request);
			if (!this.acquireDelay.isZero()) {
				try {
					Thread.sleep(this.acquireDelay.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return result;
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			if (this.failRenewals.get()) {
				throw new IllegalStateException("store unreachable (simulated)");
			}
			String failing = this.failingJob;
			if (failing != null) {
				List<HeldLease> others = leases.stream().filter((lease) -> !lease.jobName().equals(failing)).toList();
				Set<String> renewed = this.delegate.renew(others, ttl);
				throw new PartialRenewalException(renewed, Set.of(),
						new IllegalStateException("429 Too Many Requests (simulated)"));
			}
			return this.delegate.renew(leases, ttl);
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
			this.delegate.release(lease, lockAtLeastFor);
		}

		@Override
		public java.util.Optional<LeaseInfo> describe(String jobName) {
			return this.delegate.describe(jobName);
		}

		@Override
		public boolean forceRelease(String jobName) {
			return this.delegate.forceRelease(jobName);
		}

		@Override
		public void probe() {
			this.delegate.probe();
		}

	}

}
