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

package io.github.clustersingleton.autoconfigure.actuate;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.actuate.ClusterSingletonHealthIndicator;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterSingletonHealthContributorAutoConfiguration} and
 * {@link ClusterSingletonHealthIndicator}.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				JdbcLeaseAutoConfiguration.class, ClusterSingletonHealthContributorAutoConfiguration.class,
				HealthContributorRegistryAutoConfiguration.class));

	@Test
	void healthIsUpWhenTheStoreAnswers() {
		this.contextRunner.with(h2()).withBean(Job.class).run((context) -> {
			Health health = context.getBean(ClusterSingletonHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("backend", "jdbc");
		});
	}

	@Test
	void contributorIsNamedClusterSingleton() {
		this.contextRunner.with(h2()).withBean(Job.class).run((context) -> {
			assertThat(context).hasBean("clusterSingletonHealthIndicator");
			HealthContributorRegistry registry = context.getBean(HealthContributorRegistry.class);
			assertThat(registry.getContributor("clusterSingleton")).isInstanceOf(ClusterSingletonHealthIndicator.class);
		});
	}

	@Test
	void healthIsDownWithTheErrorWhenTheDatabaseIsUnreachable() {
		this.contextRunner.withBean(DataSource.class, () -> TestStores.unreachableDataSource("postgresql"))
			.withBean(Job.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Health health = ((HealthIndicator) context.getBean(HealthContributorRegistry.class)
					.getContributor("clusterSingleton")).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsEntry("backend", "jdbc");
				assertThat(health.getDetails()).containsKey("error");
				assertThat(health.getDetails().get("error")).asString().contains("DataAccess");
			});
	}

	@Test
	void healthIsUnknownWithoutJobsAndDoesNotStartTheEngine() {
		this.contextRunner.with(h2()).run((context) -> {
			Health health = context.getBean(ClusterSingletonHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
			assertThat(context.getBeanFactory().containsSingleton("clusterSingletonExecutor")).isFalse();
		});
	}

	@Test
	void runWhenDisabledShouldNotCreateIndicator() {
		this.contextRunner.with(h2())
			.withBean(Job.class)
			.withPropertyValues("management.health.clustersingleton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonHealthIndicator.class));
	}

	@Test
	void runWhenClusterSingletonIsDisabledShouldNotCreateIndicator() {
		this.contextRunner.with(h2())
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonHealthIndicator.class));
	}

	@Test
	void runWithoutSpringBootHealthShouldNotCreateIndicator() {
		this.contextRunner.with(h2())
			.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonHealthIndicator.class)
				.hasSingleBean(JobRegistry.class));
	}

	static class Job {

		@ClusterSingleton(name = "health-job")
		public void run() {
		}

	}

}
