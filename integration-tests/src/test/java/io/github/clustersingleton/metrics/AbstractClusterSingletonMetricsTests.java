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

package io.github.clustersingleton.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.autoconfigure.metrics.ClusterSingletonMetricsAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.beans.factory.annotation.Value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Meter values after real guarded runs on a real store, with two application contexts
 * ("nodes") sharing one database, read from a {@link SimpleMeterRegistry} per node.
 *
 * @author cluster-singleton contributors
 */
abstract class AbstractClusterSingletonMetricsTests {

	private static final Duration PATIENCE = Duration.ofSeconds(15);

	private final String prefix = "metrics-" + UUID.randomUUID().toString().substring(0, 8);

	/**
	 * Return the JDBC URL of the shared database.
	 * @return the URL
	 */
	protected abstract String url();

	private ApplicationContextRunner node(String owner) {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, ClusterSingletonAutoConfiguration.class,
							JdbcLeaseAutoConfiguration.class, ClusterSingletonMetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withBean(MeteredJobs.class)
			.withPropertyValues("spring.datasource.url=" + url(), "cluster-singleton.owner-id=" + owner,
					"cluster-singleton.lease-ttl=1s", "cluster-singleton.jdbc.initialize-schema=always",
					"test.prefix=" + this.prefix);
	}

	@Test
	void acquiredHeldSlotDoneAndFailedRunsAreRecorded() {
		node("node-a").run((a) -> node("node-b").run((b) -> {
			Instant before = Instant.now();
			// node-a runs; lockAtLeastFor keeps the lease, so node-b is skipped
			a.getBean(MeteredJobs.class).kept();
			b.getBean(MeteredJobs.class).kept();
			assertThat(a.getBean(MeteredJobs.class).keptRuns()).isOne();
			assertThat(b.getBean(MeteredJobs.class).keptRuns()).isZero();
			MeterRegistry metersA = a.getBean(MeterRegistry.class);
			MeterRegistry metersB = b.getBean(MeterRegistry.class);
			String kept = this.prefix + ".kept";
			assertThat(acquire(metersA, kept, "acquired").count()).isOne();
			assertThat(acquire(metersB, kept, "held").count()).isOne();
			assertThat(metersB.find(ClusterSingletonMetrics.ACQUIRE).tag("outcome", "acquired").timer()).isNull();
			assertThat(execution(metersA, kept, "success").count()).isOne();
			assertThat(metersB.find(ClusterSingletonMetrics.EXECUTION).timer()).isNull();
			double lastSuccess = metersA.get(ClusterSingletonMetrics.LAST_SUCCESS)
				.tag("name", kept)
				.timeGauge()
				.value(TimeUnit.MILLISECONDS);
			assertThat(lastSuccess).isBetween((double) before.toEpochMilli(), (double) Instant.now().toEpochMilli());
			assertThat(metersB.find(ClusterSingletonMetrics.LAST_SUCCESS).timeGauge()).isNull();

			// one cron slot, triggered on both nodes: the second is told the slot is done
			String slotted = this.prefix + ".slotted";
			JobDefinition job = JobDefinition.of(slotted, Duration.ofMinutes(1), Duration.ZERO);
			Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
			assertThat(a.getBean(ClusterSingletonExecutor.class).execute(job, slot, () -> null)).isTrue();
			assertThat(b.getBean(ClusterSingletonExecutor.class).execute(job, slot, () -> null)).isFalse();
			assertThat(acquire(metersA, slotted, "acquired").count()).isOne();
			assertThat(acquire(metersB, slotted, "slot-done").count()).isOne();

			// a failed run
			String failing = this.prefix + ".failing";
			assertThatIllegalStateException().isThrownBy(() -> a.getBean(MeteredJobs.class).failing())
				.withMessage("job failed");
			assertThat(execution(metersA, failing, "failure").count()).isOne();
			assertThat(metersA.find(ClusterSingletonMetrics.LAST_SUCCESS).tag("name", failing).timeGauge()).isNull();

			// tags carry job names, backend and outcomes only
			assertThat(acquire(metersA, kept, "acquired").getId().getTags()).extracting("key")
				.containsExactlyInAnyOrder("name", "backend", "outcome");
			assertThat(metersA.get(ClusterSingletonMetrics.LEASES_HELD).gauge().value()).isZero();
			assertThat(metersA.find(ClusterSingletonMetrics.LEASE_LOST).counter()).isNull();
		}));
	}

	@Test
	void aNodeWhoseClockRunsAheadIsRefusedItsSlotAndShowsItsOffset() {
		Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(5));
		node("node-a").withBean(Clock.class, () -> ahead).run((a) -> {
			ClusterSingletonExecutor executor = a.getBean(ClusterSingletonExecutor.class);
			String job = this.prefix + ".skewed";
			JobDefinition definition = JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO);
			// a slot-less run measures the offset; the slot this node's clock names lies
			// five seconds ahead of the database's clock
			assertThat(executor.execute(definition, (Instant) null, () -> null)).isTrue();
			Instant slot = ahead.instant().truncatedTo(ChronoUnit.SECONDS);
			assertThat(executor.execute(definition, slot, () -> null)).isFalse();
			MeterRegistry meters = a.getBean(MeterRegistry.class);
			assertThat(acquire(meters, job, "clock-skew").count()).isOne();
			double offset = meters.get(ClusterSingletonMetrics.CLOCK_OFFSET).tag("backend", "jdbc").gauge().value();
			assertThat(offset).isBetween(4.0, 6.0);
		});
	}

	@Test
	void storeErrorAtAcquisitionIsRecordedAsError() {
		node("node-a")
			.withPropertyValues("spring.datasource.url=" + unreachableUrl(),
					"spring.datasource.hikari.connection-timeout=250",
					"spring.datasource.hikari.initialization-fail-timeout=-1")
			.run((a) -> {
				assertThat(a).hasNotFailed();
				a.getBean(MeteredJobs.class).kept();
				assertThat(a.getBean(MeteredJobs.class).keptRuns()).isZero();
				MeterRegistry meters = a.getBean(MeterRegistry.class);
				assertThat(acquire(meters, this.prefix + ".kept", "error").count()).isOne();
			});
	}

	@Test
	void renewalsAndALeaseLostDuringTheRunAreRecorded() {
		node("node-a").run((a) -> {
			MeteredJobs jobs = a.getBean(MeteredJobs.class);
			MeterRegistry meters = a.getBean(MeterRegistry.class);
			String blocking = this.prefix + ".blocking";
			CompletableFuture<Void> run = CompletableFuture.runAsync(jobs::blocking);
			try {
				assertThat(jobs.entered().await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
				assertThat(meters.get(ClusterSingletonMetrics.LEASES_HELD).gauge().value()).isOne();
				// the watchdog renews every third of the 1 s TTL
				await().atMost(PATIENCE).until(() -> renewalCount(meters, "ok") >= 1);
				// an operator frees the lease behind the run's back
				assertThat(a.getBean(LeaseBackend.class).forceRelease(blocking)).isTrue();
				run.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
			}
			finally {
				jobs.release().countDown();
			}
			assertThat(jobs.interrupted()).isTrue();
			assertThat(meters.get(ClusterSingletonMetrics.LEASE_LOST).tag("name", blocking).counter().count()).isOne();
			assertThat(execution(meters, blocking, "lease-lost").count()).isOne();
			// the watchdog reports the round trip right after it declared the loss
			await().atMost(PATIENCE).until(() -> renewalCount(meters, "lost") == 1);
			assertThat(meters.get(ClusterSingletonMetrics.RENEWAL).tag("outcome", "ok").timer().getId().getTags())
				.extracting("key")
				.containsExactlyInAnyOrder("backend", "outcome");
			assertThat(meters.get(ClusterSingletonMetrics.LEASES_HELD).gauge().value()).isZero();
		});
	}

	/**
	 * Return the URL of a database of the same kind that cannot be reached.
	 * @return the JDBC URL
	 */
	protected String unreachableUrl() {
		return "jdbc:postgresql://127.0.0.1:1/postgres?user=postgres&connectTimeout=1&loginTimeout=1";
	}

	private static Timer acquire(MeterRegistry meters, String name, String outcome) {
		return meters.get(ClusterSingletonMetrics.ACQUIRE)
			.tag("name", name)
			.tag("backend", "jdbc")
			.tag("outcome", outcome)
			.timer();
	}

	private static Timer execution(MeterRegistry meters, String name, String outcome) {
		return meters.get(ClusterSingletonMetrics.EXECUTION).tag("name", name).tag("outcome", outcome).timer();
	}

	private static long renewalCount(MeterRegistry meters, String outcome) {
		Timer timer = meters.find(ClusterSingletonMetrics.RENEWAL)
			.tag("backend", "jdbc")
			.tag("outcome", outcome)
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

	static class MeteredJobs {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private volatile int keptRuns;

		private volatile boolean interrupted;

		@Value("${test.prefix}")
		private @Nullable String prefix;

		@ClusterSingleton(name = "${test.prefix}.kept", lockAtLeastFor = "1m")
		public void kept() {
			this.keptRuns++;
		}

		@ClusterSingleton(name = "${test.prefix}.failing")
		public void failing() {
			throw new IllegalStateException("job failed");
		}

		@ClusterSingleton(name = "${test.prefix}.blocking")
		public void blocking() {
			this.entered.countDown();
			try {
				this.release.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				this.interrupted = true;
				Thread.currentThread().interrupt();
			}
		}

		int keptRuns() {
			return this.keptRuns;
		}

		boolean interrupted() {
			return this.interrupted;
		}

		CountDownLatch entered() {
			return this.entered;
		}

		CountDownLatch release() {
			return this.release;
		}

	}

}
