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

package io.github.clustersingleton.cluster;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two application contexts, each with its own scheduler and a clock skewed from the
 * other's, run one every-second cron job against one PostgreSQL database, through the
 * real {@code @Scheduled} and {@code @ClusterSingleton} machinery.
 *
 * @author cluster-singleton contributors
 */
class TwoNodeScheduledPostgresTests {

	static final List<Run> runs = new CopyOnWriteArrayList<>();

	@Test
	void everyCronSlotRunsOnExactlyOneNode() {
		String job = "two-nodes-" + UUID.randomUUID().toString().substring(0, 8);
		List<ConfigurableApplicationContext> nodes = new ArrayList<>();
		try {
			nodes.add(start(job, "node-fast", Duration.ofMillis(1500)));
			nodes.add(start(job, "node-slow", Duration.ofMillis(-1500)));
			await().atMost(Duration.ofSeconds(20)).until(() -> runsOf(job).size() >= 6);
		}
		finally {
			nodes.forEach(ConfigurableApplicationContext::close);
		}
		List<Run> runs = runsOf(job);
		Map<Instant, List<Run>> bySlot = runs.stream().collect(Collectors.groupingBy(Run::slot));
		assertThat(bySlot).allSatisfy((slot, inSlot) -> assertThat(inSlot).as("runs of slot %s", slot).hasSize(1));
		List<Run> inSlotOrder = runs.stream().sorted(Comparator.comparing(Run::slot)).toList();
		for (int i = 1; i < inSlotOrder.size(); i++) {
			assertThat(inSlotOrder.get(i).fencingToken()).isGreaterThan(inSlotOrder.get(i - 1).fencingToken());
		}
		assertThat(runs).allSatisfy((run) -> assertThat(run.slot().getNano()).isZero());
	}

	private static List<Run> runsOf(String job) {
		return runs.stream().filter((run) -> run.job().equals(job)).toList();
	}

	private static ConfigurableApplicationContext start(String job, String node, Duration skew) {
		return new SpringApplicationBuilder(NodeConfiguration.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + TestStores.postgresUrl(), "cluster-singleton.lease-ttl=2s",
					"cluster-singleton.jdbc.initialize-schema=always", "cluster-singleton.owner-id=" + node,
					"test.job=" + job, "test.node=" + node, "test.skew=" + skew.toMillis(),
					"spring.main.banner-mode=off")
			.run();
	}

	record Run(String job, String node, Instant slot, long fencingToken) {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, ClusterSingletonAutoConfiguration.class,
			JdbcLeaseAutoConfiguration.class })
	static class NodeConfiguration {

		@Bean
		Clock clock(@Value("${test.skew}") long skewMillis) {
			return Clock.offset(Clock.systemUTC(), Duration.ofMillis(skewMillis));
		}

		@Bean
		ThreadPoolTaskScheduler taskScheduler(Clock clock, @Value("${test.node}") String node) {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setClock(clock);
			scheduler.setThreadNamePrefix(node + "-");
			return scheduler;
		}

		@Bean
		EverySecondJob everySecondJob(@Value("${test.job}") String job, @Value("${test.node}") String node) {
			return new EverySecondJob(job, node);
		}

	}

	static class EverySecondJob {

		private final String job;

		private final String node;

		EverySecondJob(String job, String node) {
			this.job = job;
			this.node = node;
		}

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@ClusterSingleton(name = "${test.job}", lockAtMostFor = "10s")
		public void run() throws InterruptedException {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			runs.add(new Run(this.job, this.node, context.slot().orElseThrow(), context.fencingToken()));
			Thread.sleep(20);
		}

	}

}
