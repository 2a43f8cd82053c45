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

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2Url;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reactive {@code @Scheduled} methods ({@code Mono}, {@code Flux}) under
 * {@code @ClusterSingleton}: the lease lives from subscription to completion.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonReactiveTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
		.withUserConfiguration(SchedulingConfiguration.class)
		.withPropertyValues("cluster-singleton.lease-ttl=1s");

	@Test
	void aMonoLongerThanItsCronPeriodNeverOverlapsItselfAcrossTwoNodes() {
		Runs runs = new Runs();
		String url = h2Url();
		ApplicationContextRunner node = this.contextRunner.with(h2(url))
			.withBean(Runs.class, () -> runs)
			.withBean(SlowReactiveJob.class);
		node.withPropertyValues("cluster-singleton.owner-id=node-a").run((nodeA) -> {
			assertThat(nodeA).hasNotFailed();
			node.withPropertyValues("cluster-singleton.owner-id=node-b").run((nodeB) -> {
				assertThat(nodeB).hasNotFailed();
				await().atMost(Duration.ofSeconds(20)).until(() -> runs.finished().size() >= 4);
			});
		});
		List<Run> finished = new ArrayList<>(runs.finished());
		finished.sort(Comparator.comparing(Run::start));
		for (int i = 1; i < finished.size(); i++) {
			assertThat(finished.get(i).start()).as("run %s starts after run %s ended", i, i - 1)
				.isAfterOrEqualTo(finished.get(i - 1).end());
			assertThat(finished.get(i).fencingToken()).isGreaterThan(finished.get(i - 1).fencingToken());
		}
		assertThat(finished).allSatisfy((run) -> {
			assertThat(run.sameContext()).as("the Reactor Context holds the run's context").isTrue();
			assertThat(run.slot()).isNotNull();
			assertThat(run.trigger()).isEqualTo(RunTrigger.SCHEDULED);
		});
	}

	@Test
	void lockAtMostForCancelsThePublisherAndReleasesTheLease() {
		this.contextRunner.with(h2()).withBean(NeverEndingJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			NeverEndingJob job = context.getBean(NeverEndingJob.class);
			assertThat(job.cancelled().await(15, TimeUnit.SECONDS)).as("cancelled by lockAtMostFor").isTrue();
			LeaseBackend backend = leaseBackend(context);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> backend.describe("never-ending").map((lease) -> !lease.live()).orElse(false));
		});
	}

	@Test
	void aCronOverrideReschedulesAReactiveJob() {
		this.contextRunner.with(h2()).withBean(EverySecondReactiveJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			EverySecondReactiveJob job = context.getBean(EverySecondReactiveJob.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> job.runs().get() >= 1);
			context.getBean(ClusterSingletonOperations.class).reschedule("reactive-every-second", "0 0 0 1 1 *");
			context.getBean(ClusterSingletonExecutor.class).pollControls();
			// the trigger already scheduled may fire once more; then none until January
			AtomicInteger seen = new AtomicInteger(-1);
			await().atMost(Duration.ofSeconds(10))
				.during(Duration.ofMillis(2500))
				.until(() -> seen.getAndSet(job.runs().get()) == job.runs().get());
		});
	}

	private static LeaseBackend leaseBackend(AssertableApplicationContext context) {
		return context.getBean(LeaseBackend.class);
	}

	record Run(String node, Instant start, Instant end, long fencingToken, Instant slot, RunTrigger trigger,
			boolean sameContext) {

	}

	static class Runs {

		private final List<Run> finished = new CopyOnWriteArrayList<>();

		List<Run> finished() {
			return this.finished;
		}

	}

	static class SlowReactiveJob {

		private final Runs runs;

		private final String node;

		SlowReactiveJob(Runs runs, ConfigurableApplicationContext context) {
			this.runs = runs;
			this.node = context.getEnvironment().getProperty("cluster-singleton.owner-id", "node");
		}

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@ClusterSingleton(name = "reactive-slow", lockAtMostFor = "30s")
		public Mono<Void> run() {
			// assembled with the run's context current on the subscribing thread
			ClusterSingletonContext assembled = ClusterSingletonContext.current();
			return Mono.deferContextual((reactorContext) -> {
				ClusterSingletonContext run = reactorContext.get(ClusterSingletonContext.class);
				Instant start = Instant.now();
				return Mono.delay(Duration.ofMillis(1500))
					.doOnNext((tick) -> this.runs.finished()
						.add(new Run(this.node, start, Instant.now(), run.fencingToken(), run.slot().orElse(null),
								run.trigger(), run == assembled && run.isLeaseValid())))
					.then();
			});
		}

	}

	static class EverySecondReactiveJob {

		private final AtomicInteger runs = new AtomicInteger();

		AtomicInteger runs() {
			return this.runs;
		}

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@ClusterSingleton(name = "reactive-every-second")
		public Mono<Void> run() {
			return Mono.fromRunnable(this.runs::incrementAndGet);
		}

	}

	static class NeverEndingJob {

		private final CountDownLatch cancelled = new CountDownLatch(1);

		CountDownLatch cancelled() {
			return this.cancelled;
		}

		@Scheduled(fixedDelay = 100)
		@ClusterSingleton(name = "never-ending", lockAtMostFor = "2s")
		public Mono<Void> run() {
			return Mono.<Void>never().doOnCancel(this.cancelled::countDown);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingConfiguration {

	}

}
