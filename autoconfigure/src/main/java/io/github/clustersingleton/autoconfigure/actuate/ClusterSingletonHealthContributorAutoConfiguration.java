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

import io.github.clustersingleton.actuate.ClusterSingletonHealthIndicator;
import io.github.clustersingleton.actuate.ClusterSingletonJobsHealthIndicator;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code clusterSingleton}
 * health contributor: the reachability of the lease store.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = ClusterSingletonAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(JobRegistry.class)
@ConditionalOnEnabledHealthIndicator("clustersingleton")
public final class ClusterSingletonHealthContributorAutoConfiguration {

	/**
	 * Boot names the contributor after the bean without its {@code HealthIndicator}
	 * suffix: {@code clusterSingleton}.
	 */
	@Bean
	@ConditionalOnMissingBean(name = { "clusterSingletonHealthIndicator", "clusterSingletonHealthContributor" })
	ClusterSingletonHealthIndicator clusterSingletonHealthIndicator(ListableBeanFactory beanFactory) {
		ExistingExecutor executor = new ExistingExecutor(beanFactory);
		return new ClusterSingletonHealthIndicator(() -> {
			ClusterSingletonExecutor existing = executor.get();
			return (existing != null) ? existing.getBackend() : null;
		});
	}

	/**
	 * The dead man's switch of the jobs, named {@code clusterSingletonJobs}; in no health
	 * group unless the application puts it there.
	 */
	@Bean
	@ConditionalOnMissingBean(name = { "clusterSingletonJobsHealthIndicator", "clusterSingletonJobsHealthContributor" })
	ClusterSingletonJobsHealthIndicator clusterSingletonJobsHealthIndicator(ListableBeanFactory beanFactory) {
		return new ClusterSingletonJobsHealthIndicator(new ExistingExecutor(beanFactory));
	}

}
