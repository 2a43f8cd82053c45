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

package io.github.clustersingleton.test;

import java.time.Clock;

import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ConditionalOnLeaseBackend;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@link InMemoryLeaseBackend}
 * when {@code cluster-singleton.backend=in-memory}; {@code auto} never selects it, so
 * having this artifact on the class path changes nothing until a test asks for it. The
 * store's time is the application's {@link Clock} bean when there is exactly one (or one
 * marked {@code @Primary}), as for the engine, else {@link Clock#systemUTC()}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(before = ClusterSingletonAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", matchIfMissing = true)
@ConditionalOnLeaseBackend(value = InMemoryLeaseBackend.ID, matchIfAuto = false)
public final class InMemoryLeaseAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	InMemoryLeaseBackend clusterSingletonInMemoryLeaseBackend(ObjectProvider<Clock> clock) {
		return new InMemoryLeaseBackend(clock.getIfUnique(Clock::systemUTC));
	}

}
