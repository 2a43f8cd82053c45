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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine contract's cases of a single run: its lease is released when the job's
 * thread was interrupted and when the job threw, an unreachable store skips the run
 * without throwing, each cron slot runs once across nodes with skewed clocks, and the
 * run's context carries its slot and fencing token.
 *
 * @author cluster-singleton contributors
 */
abstract class EngineRunContract extends EngineLeaderElectionContract {

	@Test
	void aRunWhoseThreadWasInterruptedStillReleasesItsLease() throws Exception {
		String job = jobName("interrupted");
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), new RecordingListener(),
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
		assertThat(result(interruptedAfterwards, Duration.ofSeconds(10))).isTrue();
		assertThat(backend().tryAcquire(request(job, "node-b")).isAcquired()).isTrue();
	}

	@Test
	void storeUnreachableAtTriggerSkipsTheRunWithoutThrowing() throws Throwable {
		RecordingListener listener = new RecordingListener();
		ClusterSingletonExecutor node = executor("node-a", unreachableBackend(), clock(), listener);
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
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), listener);
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
		List<ScheduledExecutorService> schedulers = new ArrayList<>();
		try {
			for (Duration skew : List.of(Duration.ofSeconds(2), Duration.ofSeconds(-2), Duration.ZERO)) {
				String owner = "node" + skew;
				Clock clock = Clock.offset(clock(), skew);
				ClusterSingletonExecutor node = executor(owner, backend(), clock, new RecordingListener());
				ScheduledExecutorService pool = engineTime().scheduledExecutor(owner + "-scheduler");
				schedulers.add(pool);
				ConcurrentTaskScheduler scheduler = new ConcurrentTaskScheduler(pool);
				scheduler.setClock(clock);
				scheduler.schedule(() -> {
					try {
						node.execute(definition, true, () -> {
							Instant slot = ClusterSingletonContext.current().slot().orElseThrow();
							runs.computeIfAbsent(slot, (key) -> new CopyOnWriteArrayList<>()).add(owner);
							advance(Duration.ofMillis(10));
							return null;
						});
					}
					catch (Throwable ex) {
						throw new IllegalStateException(ex);
					}
				}, new CronTrigger("* * * * * *", ZoneOffset.UTC));
			}
			awaitUntil(() -> runs.size() >= 6);
		}
		finally {
			schedulers.forEach(ScheduledExecutorService::shutdownNow);
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
		ClusterSingletonExecutor node = executor("node-a", backend(), clock(), new RecordingListener());
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

}
