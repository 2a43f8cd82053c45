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

package io.github.clustersingleton.autoconfigure.redis;

import java.io.IOException;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.redis.LocalRedisServers;
import io.github.clustersingleton.redis.RedisQuorumLeaseBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.causeOf;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisQuorumLeaseAutoConfiguration}, on three Redis servers of the
 * test's own.
 *
 * @author cluster-singleton contributors
 */
class RedisQuorumLeaseAutoConfigurationTests {

	private static LocalRedisServers servers;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				RedisLeaseAutoConfiguration.class, RedisQuorumLeaseAutoConfiguration.class));

	@BeforeAll
	static void startServers() throws IOException {
		servers = new LocalRedisServers(3);
	}

	@AfterAll
	static void stopServers() {
		servers.close();
	}

	private static String[] urls(int count) {
		StringBuilder urls = new StringBuilder("cluster-singleton.redis.quorum.urls=");
		for (int i = 0; i < count; i++) {
			urls.append((i > 0) ? "," : "").append("redis://127.0.0.1:").append(servers.port(i % 3));
		}
		return new String[] { urls.toString() };
	}

	@Test
	void runWithThreeUrlsShouldGuardJobsWithTheQuorum() {
		this.contextRunner.withBean(CronJob.class).withPropertyValues(urls(3)).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisQuorumLeaseBackend.class);
			RedisQuorumLeaseBackend quorum = context.getBean(RedisQuorumLeaseBackend.class);
			assertThat(quorum.getMemberCount()).isEqualTo(3);
			assertThat(quorum.getMajority()).isEqualTo(2);
			LeaseBackend used = context.getBean(ClusterSingletonExecutor.class).getBackend();
			assertThat(used).isSameAs(quorum);
			quorum.probe();
		});
	}

	@Test
	void runWithAnEvenNumberOfUrlsShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues(urls(4)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
				.hasMessageContaining("cluster-singleton.redis.quorum.urls")
				.hasMessageContaining("4 URL(s)");
		});
	}

	@Test
	void runWithFewerThanThreeUrlsShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues(urls(1)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
				.hasMessageContaining("cluster-singleton.redis.quorum.urls")
				.hasMessageContaining("at least 3");
		});
	}

	@Test
	void runWithARecoveryPolicyShouldFailNamingTheJobAndTheProperty() {
		this.contextRunner.withBean(CronJob.class)
			.withPropertyValues(urls(3))
			.withPropertyValues("cluster-singleton.jobs.billing.recovery=lost")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("'billing'")
					.hasMessageContaining("cluster-singleton.jobs.billing.recovery")
					.hasMessageContaining("cluster-singleton.redis.quorum.urls");
			});
	}

	@Test
	void runWithAMisfirePolicyShouldFailNamingTheJobAndTheProperty() {
		this.contextRunner.withBean(CronJob.class)
			.withPropertyValues(urls(3))
			.withPropertyValues("cluster-singleton.default-misfire=run-once")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("'billing'")
					.hasMessageContaining("cluster-singleton.jobs.billing.misfire");
			});
	}

	@Test
	void runWithAnAlertAfterPropertyShouldFailNamingTheJobAndTheProperty() {
		assertRefused(
				this.contextRunner.withBean(CronJob.class)
					.withPropertyValues("cluster-singleton.jobs.billing.alert-after=2h"),
				"'billing'", "cluster-singleton.jobs.billing.alert-after", "alert-after to PT2H");
	}

	@Test
	void runWithADefaultAlertAfterShouldFailNamingTheJobAndTheProperty() {
		assertRefused(
				this.contextRunner.withBean(RateJob.class)
					.withPropertyValues("cluster-singleton.default-alert-after=10m"),
				"'rate'", "cluster-singleton.default-alert-after");
	}

	@Test
	void runWithAnnotatedPoliciesShouldFailNamingTheJobAndEachAttribute() {
		assertRefused(this.contextRunner.withBean(AnnotatedJob.class), "'annotated'", "@ClusterSingleton(recovery)",
				"@ClusterSingleton(misfire)", "@ClusterSingleton(alertAfter)");
	}

	@Test
	void runWithADefaultRecoveryShouldFailNamingTheDefaultProperty() {
		assertRefused(
				this.contextRunner.withBean(CronJob.class)
					.withPropertyValues("cluster-singleton.default-recovery=failed"),
				"'billing'", "cluster-singleton.default-recovery sets recovery to failed",
				"cluster-singleton.jobs.billing.recovery");
	}

	@Test
	void runWithPoliciesAtTheirDefaultsShouldStart() {
		this.contextRunner.withBean(CronJob.class)
			.withBean(RateJob.class)
			.withPropertyValues(urls(3))
			.withPropertyValues("cluster-singleton.jobs.billing.recovery=none",
					"cluster-singleton.jobs.billing.misfire=skip", "cluster-singleton.default-recovery=lost")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// the alert-after each job derives from its trigger is not refused
				assertThat(context.getBean(JobRegistry.class).forName("rate").orElseThrow().policies().alertAfter())
					.isNotNull();
			});
	}

	private static void assertRefused(ApplicationContextRunner runner, String... fragments) {
		runner.withPropertyValues(urls(3)).run((context) -> {
			assertThat(context).hasFailed();
			String message = causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class)
				.getMessage();
			assertThat(message).contains(fragments).contains("cluster-singleton.redis.quorum.urls");
		});
	}

	static class RateJob {

		@Scheduled(fixedRate = 60_000)
		@ClusterSingleton(name = "rate", lockAtMostFor = "5m")
		public void run() {
		}

	}

	static class AnnotatedJob {

		@Scheduled(cron = "0 0 * * * *", zone = "UTC")
		@ClusterSingleton(name = "annotated", lockAtMostFor = "5m", recovery = "lost", misfire = "run-once",
				alertAfter = "3h")
		public void run() {
		}

	}

	static class CronJob {

		@Scheduled(cron = "0 0 * * * *", zone = "UTC")
		@ClusterSingleton(name = "billing", lockAtMostFor = "5m")
		public void run() {
		}

	}

}
