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

package io.github.clustersingleton.autoconfigure.redis;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.RedisScriptExecutor;
import io.github.clustersingleton.redis.RedissonScriptExecutor;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The configurations of the Redis lease backend, one per client, imported by
 * {@link RedisLeaseAutoConfiguration} in order of preference: the first that applies
 * defines the backend and the others back off.
 *
 * @author cluster-singleton contributors
 */
final class RedisLeaseConfigurations {

	private RedisLeaseConfigurations() {
	}

	static RedisLeaseBackend newBackend(RedisScriptExecutor executor, RedisLeaseProperties properties) {
		if (properties.getMinReplicas() < 0) {
			throw new ClusterSingletonConfigurationException("Invalid cluster-singleton.redis.min-replicas: "
					+ properties.getMinReplicas() + " must not be negative");
		}
		try {
			RedisLeaseBackend backend = new RedisLeaseBackend(executor, properties.getKeyPrefix());
			backend.setMinReplicas(properties.getMinReplicas(), RedisLeaseBackend.DEFAULT_MAX_REPLICA_WAIT);
			return backend;
		}
		catch (IllegalArgumentException ex) {
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.redis.key-prefix: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Scripts through the application's {@link RedissonClient}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedissonClient.class)
	@ConditionalOnSingleCandidate(RedissonClient.class)
	static class RedissonConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisLeaseBackend clusterSingletonRedisLeaseBackend(RedissonClient redisson, RedisLeaseProperties properties) {
			return newBackend(new RedissonScriptExecutor(redisson), properties);
		}

	}

	/**
	 * Scripts through the application's {@link RedisConnectionFactory} (Spring Data
	 * Redis), when there is no Redisson client.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisConnectionFactory.class, StringRedisTemplate.class })
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	static class SpringDataRedisConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisLeaseBackend clusterSingletonRedisLeaseBackend(RedisConnectionFactory connectionFactory,
				RedisLeaseProperties properties) {
			return newBackend(new SpringDataRedisScriptExecutor(connectionFactory), properties);
		}

	}

}
