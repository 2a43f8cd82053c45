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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine contract's watchdog cases: a running job keeps its lease by renewal well
 * past its TTL, {@code lockAtMostFor} caps and interrupts the run, a lease taken behind
 * the run's back or not renewed in time is lost at the local deadline, a partial renewal
 * failure costs only the leases that failed, and a grant that arrives late is given back
 * unused or renewed before the run starts.
 *
 * @author cluster-singleton contributors
 */
abstract class EngineWatchdogContract extends EngineContractSupport {

	@Test
	void watchdogKeepsTheLeaseWellPastSeveralTtls() throws Exception {
		String job = jobName("watchdog");
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), listener);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		Future<Boolean> run = submit(
				() -> node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null, () -> {
					context.set(ClusterSingletonContext.current());
					started.countDown();
					return finish.await(30, TimeUnit.SECONDS);
				}));
		assertThat(awaitOpen(started, Duration.ofSeconds(10))).isTrue();
		// four TTLs: without renewal the lease would have expired three times over
		holdsFor(Duration.ofMillis(4 * TTL.toMillis()), Duration.ofSeconds(10),
				() -> !backend().tryAcquire(request(job, "node-b")).isAcquired() && context.get().isLeaseValid());
		assertThat(listener.renewals.get()).isGreaterThanOrEqualTo(3);
		finish.countDown();
		assertThat(result(run, Duration.ofSeconds(10))).isTrue();
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.SUCCESS);
		// released at the end of the run: another node gets it at once
		assertThat(backend().tryAcquire(request(job, "node-b")).isAcquired()).isTrue();
	}

	@Test
	void lockAtMostForCapsTheRunAndInterruptsIt() throws Exception {
		String job = jobName("cap");
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), listener);
		Duration lockAtMostFor = Duration.ofMillis(2500);
		AtomicLong interruptedAfter = new AtomicLong(-1);
		AtomicBoolean validAfterInterrupt = new AtomicBoolean(true);
		AtomicReference<@Nullable Throwable> checkLease = new AtomicReference<>();
		AtomicBoolean flagLeaked = new AtomicBoolean(true);
		Future<Boolean> run = submit(() -> {
			boolean ran = node.execute(JobDefinition.of(job, lockAtMostFor, Duration.ZERO), (Instant) null, () -> {
				long start = nanoTime();
				try {
					Thread.sleep(30_000);
				}
				catch (InterruptedException ex) {
					interruptedAfter.set(TimeUnit.NANOSECONDS.toMillis(nanoTime() - start));
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
		assertThat(result(run, Duration.ofSeconds(20))).isTrue();
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
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), listener);
		BlockingRun blocking = startBlockingRun(node, job);
		ClusterSingletonContext context = blocking.context();
		// an operator frees the lease and another node takes it at once
		assertThat(backend().forceRelease(job)).isTrue();
		AcquireResult other = backend().tryAcquire(request(job, "node-b"));
		assertThat(other.isAcquired()).isTrue();
		assertThat(other.fencingToken()).isGreaterThan(context.fencingToken());
		assertThat(result(blocking.run(), Duration.ofSeconds(10))).isTrue();
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
		ClusterSingletonExecutor node = executor("node-a", flaky, clock(), listener);
		BlockingRun blocking = startBlockingRun(node, job);
		awaitUntil(() -> listener.renewals.get() >= 2);
		long broken = nanoTime();
		flaky.failRenewals.set(true);
		assertThat(result(blocking.run(), Duration.ofSeconds(10))).isTrue();
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
		ClusterSingletonExecutor node = executor("node-a", flaky, clock(), listener);
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
		assertThat(awaitOpen(bothStarted, Duration.ofSeconds(10))).isTrue();
		flaky.failingJob = failing;
		assertThat(result(runs.get(1), Duration.ofSeconds(10))).isTrue();
		assertThat(contexts.get(failing).isLeaseValid()).isFalse();
		assertThat(listener.lost).singleElement().asString().contains("no renewal succeeded");
		// the other lease, renewed in the same calls, lives on for several TTLs
		holdsFor(Duration.ofMillis(3 * TTL.toMillis()), Duration.ofSeconds(10),
				() -> contexts.get(kept).isLeaseValid());
		finish.countDown();
		assertThat(result(runs.get(0), Duration.ofSeconds(10))).isTrue();
		assertThat(listener.outcomes).containsExactlyInAnyOrder(ClusterSingletonListener.RunOutcome.LEASE_LOST,
				ClusterSingletonListener.RunOutcome.SUCCESS);
	}

	@Test
	void aLeaseGrantedAfterItsTtlIsGivenBackUnused() throws Throwable {
		String job = jobName("late-grant");
		FlakyBackend slow = new FlakyBackend(backend());
		slow.acquireDelay = TTL.plusMillis(200);
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", slow, clock(), listener);
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
		ClusterSingletonExecutor node = executor("node-a", slow, clock(), listener, ttl);
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
	void aGrantThatUsedUpMostOfItsTtlIsRenewedBeforeTheRunStarts() throws Throwable {
		String job = jobName("late-renewed");
		Duration ttl = Duration.ofSeconds(3);
		FlakyBackend slow = new FlakyBackend(backend());
		slow.acquireDelay = ttl.minusMillis(700);
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", slow, clock(), listener, ttl);
		AtomicBoolean validAfterOldDeadline = new AtomicBoolean();
		boolean executed = node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null,
				() -> {
					// past the deadline the grant alone would have had
					advance(Duration.ofMillis(1200));
					validAfterOldDeadline.set(ClusterSingletonContext.current().isLeaseValid());
					return null;
				});
		assertThat(executed).isTrue();
		assertThat(validAfterOldDeadline).isTrue();
		assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.SUCCESS);
		assertThat(listener.lost).isEmpty();
	}

	private AcquireResult awaitAcquired(LeaseRequest request) {
		AtomicReference<@Nullable AcquireResult> result = new AtomicReference<>();
		awaitUntil(() -> {
			AcquireResult attempt = backend().tryAcquire(request);
			result.set(attempt);
			return attempt.isAcquired();
		});
		return result.get();
	}

}
