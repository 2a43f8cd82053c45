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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.ScheduledFireTime;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2Url;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Preferred-node routing through Spring's scheduler: of the triggers that fire at one
 * instant on a node, those whose slots the node claims run first, and those it leaves to
 * the other node after them.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonPreferredNodeOrderTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class,
				ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
		.withUserConfiguration(SchedulingConfiguration.class)
		.withPropertyValues("cluster-singleton.lease-ttl=1s", "spring.task.scheduling.pool.size=1")
		.withBean(EightJobs.class);

	@Test
	void aNodeClaimsItsOwnSlotsOfAnInstantBeforeItSkipsTheOthers() {
		Outcomes a = new Outcomes();
		Outcomes b = new Outcomes();
		ApplicationContextRunner node = this.contextRunner.with(h2(h2Url()));
		node.withPropertyValues("cluster-singleton.owner-id=node-a").withBean(Outcomes.class, () -> a).run((nodeA) -> {
			assertThat(nodeA).hasNotFailed();
			node.withPropertyValues("cluster-singleton.owner-id=node-b")
				.withBean(Outcomes.class, () -> b)
				.run((nodeB) -> {
					assertThat(nodeB).hasNotFailed();
					// a slot both nodes routed: each skipped some of its triggers
					await().atMost(Duration.ofSeconds(20)).until(() -> routedSlot(a, b) != null);
				});
		});
		Instant slot = routedSlot(a, b);
		for (Outcomes outcomes : List.of(a, b)) {
			List<Boolean> skipped = outcomes.of(slot);
			assertThat(skipped).hasSize(EightJobs.COUNT).contains(true, false);
			// every claim before every skip
			assertThat(skipped.indexOf(true)).as("first skip in %s", skipped).isGreaterThan(skipped.lastIndexOf(false));
		}
	}

	@Test
	void aTriggerANodeKnewItWouldLeaveToAnotherNodeDoesNotCallTheJobsMethod() {
		Outcomes a = new Outcomes();
		Outcomes b = new Outcomes();
		Observed observedA = new Observed();
		Observed observedB = new Observed();
		ApplicationContextRunner node = this.contextRunner.with(h2(h2Url()));
		node.withPropertyValues("cluster-singleton.owner-id=node-a")
			.withBean(Outcomes.class, () -> a)
			.withBean(SchedulingConfigurer.class, () -> observedA)
			.run((nodeA) -> {
				assertThat(nodeA).hasNotFailed();
				node.withPropertyValues("cluster-singleton.owner-id=node-b")
					.withBean(Outcomes.class, () -> b)
					.withBean(SchedulingConfigurer.class, () -> observedB)
					.run((nodeB) -> {
						assertThat(nodeB).hasNotFailed();
						await().atMost(Duration.ofSeconds(20)).until(() -> routedSlot(a, b) != null);
					});
			});
		Instant slot = routedSlot(a, b);
		for (Outcomes outcomes : List.of(a, b)) {
			Observed observed = (outcomes == a) ? observedA : observedB;
			List<Boolean> skipped = outcomes.of(slot);
			int claimed = (int) skipped.stream().filter((skip) -> !skip).count();
			assertThat(skipped).contains(true);
			// Spring observes each call of a scheduled method: in the routed slot, the
			// node's claims made one each, the triggers it left to the other node none
			assertThat(observed.of(slot))
				.as("scheduled-method observations for %s triggers, %s claimed", skipped.size(), claimed)
				.isGreaterThanOrEqualTo(claimed)
				.isLessThan(EightJobs.COUNT);
		}
	}

	/**
	 * Counts Spring's observations of the scheduled methods' calls.
	 */
	static class Observed implements SchedulingConfigurer {

		private final Map<Instant, Integer> calls = new ConcurrentHashMap<>();

		private final ObservationRegistry registry = ObservationRegistry.create();

		Observed() {
			this.registry.observationConfig().observationHandler(new ObservationHandler<>() {

				@Override
				public void onStart(Observation.Context context) {
					Instant fireTime = ScheduledFireTime.current();
					if ("tasks.scheduled.execution".equals(context.getName()) && fireTime != null) {
						Observed.this.calls.merge(fireTime, 1, Integer::sum);
					}
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			});
		}

		@Override
		public void configureTasks(ScheduledTaskRegistrar registrar) {
			registrar.setObservationRegistry(this.registry);
		}

		/** The calls the scheduler made for a fire time. */
		int of(@Nullable Instant fireTime) {
			return (fireTime != null) ? this.calls.getOrDefault(fireTime, 0) : 0;
		}

	}

	/**
	 * The second slot for which each node recorded every job's trigger and skipped some
	 * of them: a node decides the order of a slot's triggers when it schedules them,
	 * after the previous slot, so the first slot after the nodes saw each other is routed
	 * but not yet ordered.
	 */
	private static @Nullable Instant routedSlot(Outcomes a, Outcomes b) {
		Set<Instant> slots = a.slots();
		return slots.stream()
			.sorted()
			.filter((slot) -> List.of(a, b)
				.stream()
				.allMatch((node) -> node.of(slot).size() == EightJobs.COUNT && node.of(slot).contains(true)))
			.skip(1)
			.findFirst()
			.orElse(null);
	}

	/**
	 * Each trigger's outcome on one node, in the order the node's scheduler ran them.
	 */
	static class Outcomes implements ClusterSingletonListener {

		private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

		@Override
		public void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result,
				Duration duration) {
			if (slot != null) {
				this.outcomes.add(new Outcome(slot, result.outcome() == AcquireResult.Outcome.NOT_PREFERRED));
			}
		}

		Set<Instant> slots() {
			return this.outcomes.stream().map(Outcome::slot).collect(Collectors.toSet());
		}

		/** Whether each trigger of the slot was skipped, in order. */
		List<Boolean> of(@Nullable Instant slot) {
			Map<Instant, List<Boolean>> bySlot = this.outcomes.stream()
				.collect(Collectors.groupingBy(Outcome::slot,
						Collectors.mapping(Outcome::skipped, Collectors.toList())));
			return bySlot.getOrDefault(slot, List.of());
		}

		record Outcome(Instant slot, boolean skipped) {

		}

	}

	/**
	 * Eight jobs that fire every five seconds, far enough apart to be routed, and do
	 * nothing.
	 */
	static class EightJobs {

		static final int COUNT = 8;

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-0")
		public void job0() {
		}

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-1")
		public void job1() {
		}

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-2")
		public void job2() {
		}

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-3")
		public void job3() {
		}

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-4")
		public void job4() {
		}

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-5")
		public void job5() {
		}

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-6")
		public void job6() {
		}

		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "ordered-7")
		public void job7() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingConfiguration {

	}

}
