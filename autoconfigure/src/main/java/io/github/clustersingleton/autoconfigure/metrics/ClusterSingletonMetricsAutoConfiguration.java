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

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.clustersingleton.ClusterLeadership;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.actuate.ExistingExecutor;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.metrics.ClusterSingletonMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of cluster-singleton's Micrometer
 * meters, when Micrometer and a {@link MeterRegistry} are present.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = ClusterSingletonAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, JobRegistry.class })
public final class ClusterSingletonMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ClusterSingletonMetrics clusterSingletonMetrics(MeterRegistry meterRegistry,
			ObjectProvider<ClusterSingletonExecutor> executor, ListableBeanFactory beanFactory) {
		// the listener is called by the executor, so the executor exists whenever the
		// backend id is first needed; resolving it earlier would create the lazy engine
		// in applications without jobs
		// the gauge of held leases asks the watchdog, whose count cannot drift; before
		// the
		// engine exists no lease is held
		ExistingExecutor existing = new ExistingExecutor(beanFactory);
		return new ClusterSingletonMetrics(meterRegistry, () -> executor.getObject().getBackend().id(),
				() -> executor.getObject().clockOffset(), () -> {
					ClusterSingletonExecutor engine = existing.get();
					return (engine != null) ? engine.heldLeases() : 0;
				});
	}

	@Bean
	ApplicationListener<ContextRefreshedEvent> clusterSingletonJobMeters(
			ObjectProvider<ClusterSingletonMetrics> metrics, ListableBeanFactory beanFactory) {
		ExistingExecutor executor = new ExistingExecutor(beanFactory);
		AtomicBoolean bound = new AtomicBoolean();
		return (event) -> {
			ClusterSingletonExecutor existing = executor.get();
			ClusterSingletonMetrics meters = metrics.getIfUnique();
			if (existing != null && meters != null && bound.compareAndSet(false, true)) {
				meters.bindJobs(existing);
			}
		};
	}

	@Bean
	@ConditionalOnBooleanProperty("cluster-singleton.leader.enabled")
	MeterBinder clusterSingletonLeaderMeter(ObjectProvider<ClusterLeadership> leadership) {
		return (registry) -> Gauge
			.builder(ClusterSingletonMetrics.LEADER, leadership, (provider) -> provider.getObject().isLeader() ? 1 : 0)
			.description("Whether this node is the cluster-singleton leader (1) or not (0)")
			.strongReference(true)
			.register(registry);
	}

}
