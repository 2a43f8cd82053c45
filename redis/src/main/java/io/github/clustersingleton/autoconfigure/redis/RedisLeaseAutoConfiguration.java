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

import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ConditionalOnLeaseBackend;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the Redis lease backend. The
 * scripts run through the application's {@link RedissonClient} when it has one
 * (preferred: Redisson's starter also registers a {@code RedissonConnectionFactory}, and
 * one backend is enough), otherwise through its {@link RedisConnectionFactory} (Spring
 * Data Redis: Lettuce by default).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(before = ClusterSingletonAutoConfiguration.class,
		afterName = { "org.redisson.spring.starter.RedissonAutoConfigurationV4",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", matchIfMissing = true)
@ConditionalOnLeaseBackend("redis")
@EnableConfigurationProperties(RedisLeaseProperties.class)
@Import({ RedisLeaseConfigurations.RedissonConfiguration.class,
		RedisLeaseConfigurations.SpringDataRedisConfiguration.class })
public final class RedisLeaseAutoConfiguration {

}
