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

import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.RunObserver;
import io.github.clustersingleton.metrics.ClusterSingletonObservationConvention;
import io.github.clustersingleton.metrics.ObservationRunObserver;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the Micrometer
 * {@link io.micrometer.observation.Observation Observation} of each guarded run, when an
 * {@link ObservationRegistry} is present.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = ClusterSingletonAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, JobRegistry.class })
public final class ClusterSingletonObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(RunObserver.class)
	ObservationRunObserver clusterSingletonRunObserver(ObservationRegistry observationRegistry,
			ObjectProvider<ClusterSingletonObservationConvention> convention) {
		return new ObservationRunObserver(observationRegistry, convention.getIfUnique());
	}

}
