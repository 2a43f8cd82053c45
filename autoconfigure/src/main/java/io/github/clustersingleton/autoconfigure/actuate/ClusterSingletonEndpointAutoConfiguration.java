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

import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.actuate.ClusterSingletonEndpoint;
import io.github.clustersingleton.actuate.ClusterSingletonRunHistory;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.lease.JobRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the
 * {@link ClusterSingletonEndpoint clustersingleton} actuator endpoint and the run history
 * it shows. Its write operations go through the {@link ClusterSingletonOperations} bean.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = ClusterSingletonAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(JobRegistry.class)
@ConditionalOnAvailableEndpoint(ClusterSingletonEndpoint.class)
public final class ClusterSingletonEndpointAutoConfiguration {

	private static final String ENDPOINT_ID = "clustersingleton";

	@Bean
	@ConditionalOnMissingBean
	ClusterSingletonRunHistory clusterSingletonRunHistory() {
		return new ClusterSingletonRunHistory();
	}

	@Bean
	@ConditionalOnMissingBean
	ClusterSingletonEndpoint clusterSingletonEndpoint(JobRegistry registry, ListableBeanFactory beanFactory,
			ClusterSingletonRunHistory history, ObjectProvider<ClusterSingletonOperations> operations,
			ApplicationEventPublisher eventPublisher, ObjectProvider<WebEndpointProperties> webProperties) {
		return new ClusterSingletonEndpoint(registry, new ExistingExecutor(beanFactory), history,
				operations::getIfUnique, eventPublisher, webPath(webProperties.getIfAvailable()));
	}

	/**
	 * The endpoint's path under the management base path, to tell where a run-now request
	 * can be read back.
	 */
	private static String webPath(@Nullable WebEndpointProperties properties) {
		String basePath = (properties != null) ? properties.getBasePath() : "/actuator";
		String mapping = (properties != null) ? properties.getPathMapping().get(ENDPOINT_ID) : null;
		return basePath + "/" + ((mapping != null) ? mapping : ENDPOINT_ID);
	}

}
