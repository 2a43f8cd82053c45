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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.ClusterLeadership;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.LeadershipGrantedEvent;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.autoconfigure.metrics.ClusterSingletonMetricsAutoConfiguration;
import io.github.clustersingleton.metrics.ClusterSingletonMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.core.NestedExceptionUtils;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader mode through the auto-configuration: the leadership bean, its events and gauge,
 * guarded jobs on the leader, and the reserved lease name.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonLeaderModeTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				JdbcLeaseAutoConfiguration.class, ClusterSingletonMetricsAutoConfiguration.class,
				MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
		.with(h2())
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("cluster-singleton.leader.enabled=true", "cluster-singleton.lease-ttl=1s");

	@Test
	void withoutLeaderModeThereIsNoLeadershipBean() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
			.with(h2())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ClusterLeadership.class));
	}

	@Test
	void theOnlyNodeBecomesLeaderAnnouncesItAndRunsGuardedJobs() {
		this.contextRunner.withBean(Job.class).withBean(Grants.class).run((context) -> {
			assertThat(context).hasNotFailed();
			ClusterLeadership leadership = context.getBean(ClusterLeadership.class);
			List<Long> granted = context.getBean(Grants.class).terms;
			await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
			assertThat(leadership.term()).isPositive();
			await().atMost(Duration.ofSeconds(5)).until(() -> !granted.isEmpty());
			assertThat(granted).containsExactly(leadership.term());
			context.getBean(Job.class).run();
			assertThat(context.getBean(Job.class).runs()).isOne();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get(ClusterSingletonMetrics.LEADER).gauge().value()).isOne();
		});
	}

	@Test
	void aJobNamedLikeTheLeaderLeaseFailsStartup() {
		this.contextRunner.withBean(LeaderNamedJob.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(ClusterSingletonConfigurationException.class)
				.hasMessageContaining("'leader'")
				.hasMessageContaining("reserved for the leader lease")
				.hasMessageContaining("cluster-singleton.leader.lease-name");
		});
	}

	static class Grants implements ApplicationListener<LeadershipGrantedEvent> {

		final List<Long> terms = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LeadershipGrantedEvent event) {
			this.terms.add(event.getTerm());
		}

	}

	static class Job {

		final AtomicInteger runs = new AtomicInteger();

		@ClusterSingleton(name = "led")
		public void run() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

	static class LeaderNamedJob {

		@ClusterSingleton(name = "leader")
		public void run() {
		}

	}

}
