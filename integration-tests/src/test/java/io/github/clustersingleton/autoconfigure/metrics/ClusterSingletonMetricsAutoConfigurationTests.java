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

package io.github.clustersingleton.autoconfigure.metrics;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.metrics.ClusterSingletonMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterSingletonMetricsAutoConfiguration}.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				JdbcLeaseAutoConfiguration.class, ClusterSingletonMetricsAutoConfiguration.class))
		.with(h2());

	@Test
	void runWithMeterRegistryShouldRecordMeters() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).withBean(Job.class).run((context) -> {
			assertThat(context).hasSingleBean(ClusterSingletonMetrics.class);
			context.getBean(Job.class).run();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get(ClusterSingletonMetrics.ACQUIRE).tag("outcome", "acquired").timer().count()).isOne();
		});
	}

	@Test
	void runWithBootMetricsAutoConfigurationShouldUseItsRegistry() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class))
			.withBean(Job.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(ClusterSingletonMetrics.class);
				context.getBean(Job.class).run();
				assertThat(context.getBean(MeterRegistry.class).find(ClusterSingletonMetrics.EXECUTION).timer())
					.isNotNull();
			});
	}

	@Test
	void runWithoutJobsShouldNotStartTheEngine() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(ClusterSingletonMetrics.class);
			assertThat(context.getBean(MeterRegistry.class).get(ClusterSingletonMetrics.LEASES_HELD).gauge().value())
				.isZero();
			assertThat(context.getBeanFactory().containsSingleton("clusterSingletonExecutor")).isFalse();
		});
	}

	@Test
	void runWithoutMeterRegistryShouldNotCreateMetrics() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonMetrics.class));
	}

	@Test
	void runWithoutMicrometerShouldNotCreateMetrics() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonMetrics.class));
	}

	@Test
	void runWhenClusterSingletonIsDisabledShouldNotCreateMetrics() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonMetrics.class));
	}

	@Test
	void userDefinedMetricsShouldWin() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withBean("customMetrics", ClusterSingletonMetrics.class,
					() -> new ClusterSingletonMetrics(new SimpleMeterRegistry(), () -> "jdbc"))
			.run((context) -> assertThat(context).hasSingleBean(ClusterSingletonMetrics.class)
				.hasBean("customMetrics"));
	}

	static class Job {

		@ClusterSingleton(name = "metered")
		public void run() {
		}

	}

}
