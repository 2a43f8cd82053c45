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

import io.github.clustersingleton.actuate.ClusterSingletonEndpoint;
import io.github.clustersingleton.actuate.ClusterSingletonRunHistory;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.lease.JobRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the
 * {@link ClusterSingletonEndpoint clustersingleton} actuator endpoint and the run history
 * it shows.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = ClusterSingletonAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(JobRegistry.class)
@ConditionalOnAvailableEndpoint(ClusterSingletonEndpoint.class)
public final class ClusterSingletonEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ClusterSingletonRunHistory clusterSingletonRunHistory() {
		return new ClusterSingletonRunHistory();
	}

	@Bean
	@ConditionalOnMissingBean
	ClusterSingletonEndpoint clusterSingletonEndpoint(JobRegistry registry, ListableBeanFactory beanFactory,
			ClusterSingletonRunHistory history) {
		return new ClusterSingletonEndpoint(registry, new ExistingExecutor(beanFactory), history);
	}

}
