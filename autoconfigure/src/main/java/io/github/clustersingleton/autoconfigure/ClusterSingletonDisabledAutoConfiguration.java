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

import io.github.clustersingleton.ClusterSingletonTemplate;
import io.github.clustersingleton.aop.UnguardedClusterSingletonTemplate;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of an application that turned
 * cluster-singleton off with {@code cluster-singleton.enabled=false}: the
 * {@link ClusterSingletonTemplate} bean stays, and runs every task unguarded, as
 * annotated methods run in that mode.
 *
 * @author cluster-singleton contributors
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", havingValue = false)
public final class ClusterSingletonDisabledAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ClusterSingletonTemplate.class)
	UnguardedClusterSingletonTemplate clusterSingletonTemplate() {
		return new UnguardedClusterSingletonTemplate();
	}

}
