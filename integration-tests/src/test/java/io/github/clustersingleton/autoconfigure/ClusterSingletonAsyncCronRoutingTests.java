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
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2Url;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cron method with {@code @Async} in front of the guard stays a direct call on every
 * node when preferred-node routing is on: the scheduler decorator, which skips the
 * triggers a node leaves to another one without calling the method, leaves its triggers
 * to the guard, which cannot tell them from application calls.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonAsyncCronRoutingTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class,
				ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
		.withUserConfiguration(AsyncSchedulingConfiguration.class)
		.withPropertyValues("cluster-singleton.lease-ttl=1s", "spring.task.scheduling.pool.size=1");

	@Test
	void anAsyncCronJobIsNeitherSkippedByTheSchedulerNorSweptOnAnyNode() {
		Attempts a = new Attempts();
		Attempts b = new Attempts();
		ApplicationContextRunner node = this.contextRunner.with(h2(h2Url()));
		node.withPropertyValues("cluster-singleton.owner-id=node-a")
			.withBean(Attempts.class, () -> a)
			.withBean(AsyncJob.class)
			.run((nodeA) -> {
				assertThat(nodeA).hasNotFailed();
				node.withPropertyValues("cluster-singleton.owner-id=node-b")
					.withBean(Attempts.class, () -> b)
					.withBean(AsyncJob.class)
					.run((nodeB) -> {
						assertThat(nodeB).hasNotFailed();
						// three fire times on both nodes: routing knows both from the
						// second
						await().atMost(Duration.ofSeconds(30)).until(() -> a.seen.size() >= 3 && b.seen.size() >= 3);
					});
			});
		for (Attempts attempts : List.of(a, b)) {
			assertThat(attempts.seen).allSatisfy((attempt) -> {
				assertThat(attempt.slot()).as("a direct call has no slot").isNull();
				assertThat(attempt.outcome()).isNotEqualTo(AcquireResult.Outcome.NOT_PREFERRED);
			});
		}
	}

	/**
	 * Every attempt of a node to take the job's lease.
	 */
	static class Attempts implements ClusterSingletonListener {

		final List<Attempt> seen = new CopyOnWriteArrayList<>();

		@Override
		public void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result,
				Duration duration) {
			this.seen.add(new Attempt(slot, result.outcome()));
		}

		record Attempt(@Nullable Instant slot, AcquireResult.Outcome outcome) {

		}

	}

	/**
	 * A guarded cron method that fires far enough apart to be routed, with {@code @Async}
	 * in front of the guard.
	 */
	static class AsyncJob {

		@Async
		@Scheduled(cron = "*/5 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "async-routed")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableAsync
	static class AsyncSchedulingConfiguration {

		@Bean
		TaskExecutor taskExecutor() {
			return new SyncTaskExecutor();
		}

	}

}
