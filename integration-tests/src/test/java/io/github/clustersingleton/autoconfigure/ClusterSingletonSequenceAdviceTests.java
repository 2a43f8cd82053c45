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
package io.github.clustersingleton.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.autoconfigure.metrics.ClusterSingletonMetricsAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every run of a catch-up or recovery sequence that a scheduled trigger starts goes
 * through the whole advice chain of the job's method, not only the first one.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonSequenceAdviceTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				JdbcLeaseAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				TransactionAutoConfiguration.class, ClusterSingletonMetricsAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.with(h2());

	@Test
	void aTransactionalJobWhoseSequenceRunsThreeSlotsSeesThreeTransactions() {
		this.contextRunner.withBean(TransactionalJob.class).run((context) -> {
			ClusterSingletonExecutor executor = context.getBean(ClusterSingletonExecutor.class);
			executor.initializeBackend();
			JobDefinition job = context.getBean(JobRegistry.class).forName("tx-sequence").orElseThrow();
			// the slot this trigger claims, and the job's last run three slots before it:
			// the trigger below derives its slot from the clock, so it must come before
			// the next minute
			await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().atZone(ZoneOffset.UTC).getSecond() < 45);
			Instant slot = executor.slotOf(job);
			assertThat(slot).isNotNull();
			Instant lastRun = slot.minus(Duration.ofMinutes(3));
			LeaseRequest earlier = new LeaseRequest("tx-sequence", "another-node", "earlier-token",
					Duration.ofSeconds(30), lastRun)
				.withPolicy(job.policies().claimPolicy(), lastRun.minus(Duration.ofMinutes(1)));
			long fence = executor.getBackend().tryAcquire(earlier).fencingToken();
			assertThat(executor.getBackend()
				.completeRun(HeldLease.of(earlier, fence), Duration.ZERO, RunCompletion.succeeded())).isTrue();
			TransactionalJob bean = context.getBean(TransactionalJob.class);
			// the scheduler's own call: a scheduled trigger, which owns the slot
			new ScheduledMethodRunnable(bean, TransactionalJob.class.getMethod("run")).run();
			assertThat(bean.slots()).containsExactly(slot.minus(Duration.ofMinutes(2)),
					slot.minus(Duration.ofMinutes(1)), slot);
			assertThat(bean.triggers()).containsExactly(RunTrigger.CATCH_UP, RunTrigger.CATCH_UP, RunTrigger.SCHEDULED);
			assertThat(bean.inTransaction()).containsExactly(true, true, true);
			assertThat(bean.completedTransactions()).isEqualTo(3);
			// one lease for the three runs: the gauge of held leases is back to 0, not
			// below it
			assertThat(context.getBean(MeterRegistry.class).get("cluster.singleton.leases.held").gauge().value())
				.isZero();
		});
	}

	static class TransactionalJob {

		final List<Instant> slots = new CopyOnWriteArrayList<>();

		final List<RunTrigger> triggers = new CopyOnWriteArrayList<>();

		final List<Boolean> inTransaction = new CopyOnWriteArrayList<>();

		final AtomicInteger completedTransactions = new AtomicInteger();

		List<Instant> slots() {
			return this.slots;
		}

		List<RunTrigger> triggers() {
			return this.triggers;
		}

		List<Boolean> inTransaction() {
			return this.inTransaction;
		}

		int completedTransactions() {
			return this.completedTransactions.get();
		}

		@Scheduled(cron = "0 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "tx-sequence", misfire = "run-all")
		@Transactional
		public void run() {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			this.slots.add(context.slot().orElseThrow());
			this.triggers.add(context.trigger());
			boolean active = TransactionSynchronizationManager.isActualTransactionActive();
			this.inTransaction.add(active);
			if (active) {
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void afterCompletion(int status) {
						TransactionalJob.this.completedTransactions.incrementAndGet();
					}

				});
			}
		}

	}

}
