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

import java.net.URI;
import java.util.function.Function;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.LeaseBackendUnavailableException;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.RedissonScriptExecutor;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.spring.data.connection.RedissonConnectionFactory;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.causeOf;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLeaseAutoConfiguration}, on the test Redis server.
 *
 * @author cluster-singleton contributors
 */
class RedisLeaseAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, RedisLeaseAutoConfiguration.class));

	@Test
	void runWithRedissonClientShouldUseRedisson() {
		this.contextRunner.withUserConfiguration(RedissonConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLeaseBackend.class);
			RedisLeaseBackend backend = context.getBean(RedisLeaseBackend.class);
			assertThat(backend.getExecutor()).isInstanceOf(RedissonScriptExecutor.class);
			assertThat(backend.getKeyPrefix()).isEqualTo(RedisLeaseBackend.DEFAULT_KEY_PREFIX);
			backend.probe();
		});
	}

	@Test
	void runWithDataRedisShouldUseSpringDataRedis() {
		this.contextRunner.with(dataRedis()).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLeaseBackend.class);
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(LettuceConnectionFactory.class);
			RedisLeaseBackend backend = context.getBean(RedisLeaseBackend.class);
			assertThat(backend.getExecutor()).isInstanceOf(SpringDataRedisScriptExecutor.class);
			backend.probe();
		});
	}

	@Test
	void runWithRedissonClientAndLettuceShouldCreateOneBackendOnRedisson() {
		this.contextRunner.with(dataRedis()).withUserConfiguration(RedissonConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLeaseBackend.class);
			assertThat(context.getBean(RedisLeaseBackend.class).getExecutor())
				.isInstanceOf(RedissonScriptExecutor.class);
		});
	}

	@Test
	void runWithRedissonStarterShouldCreateOneBackendOnRedisson() {
		// Redisson's starter registers a RedissonClient and a RedissonConnectionFactory:
		// ordered after it, the backend sees both and uses the client
		this.contextRunner.with(dataRedis())
			.withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLeaseBackend.class);
				assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(RedissonConnectionFactory.class);
				RedisLeaseBackend backend = context.getBean(RedisLeaseBackend.class);
				assertThat(backend.getExecutor()).isInstanceOf(RedissonScriptExecutor.class);
				backend.probe();
			});
	}

	@Test
	void runWithoutRedissonOnClasspathShouldUseSpringDataRedis() {
		this.contextRunner.with(dataRedis()).withClassLoader(new FilteredClassLoader("org.redisson")).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLeaseBackend.class);
			assertThat(context.getBean(RedisLeaseBackend.class).getExecutor())
				.isInstanceOf(SpringDataRedisScriptExecutor.class);
		});
	}

	@Test
	void runWithoutSpringDataRedisOnClasspathShouldUseRedisson() {
		this.contextRunner.withUserConfiguration(RedissonConfiguration.class)
			.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLeaseBackend.class);
				assertThat(context.getBean(RedisLeaseBackend.class).getExecutor())
					.isInstanceOf(RedissonScriptExecutor.class);
			});
	}

	@Test
	void runWithoutRedisClientShouldNotCreateBackend() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(RedisLeaseBackend.class);
		});
	}

	@Test
	void runWithJdbcBackendSelectedShouldNotCreateBackend() {
		this.contextRunner.with(dataRedis())
			.withUserConfiguration(RedissonConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=jdbc")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RedisLeaseBackend.class)
					.doesNotHaveBean(RedisLeaseProperties.class);
			});
	}

	@Test
	void runWithRedisBackendSelectedShouldCreateBackend() {
		this.contextRunner.with(dataRedis())
			.withPropertyValues("cluster-singleton.backend=redis")
			.run((context) -> assertThat(context).hasSingleBean(RedisLeaseBackend.class));
	}

	@Test
	void runWhenDisabledShouldNotCreateBackend() {
		this.contextRunner.with(dataRedis())
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisLeaseBackend.class));
	}

	@Test
	void runWithUserBackendShouldBackOff() {
		this.contextRunner.with(dataRedis()).withUserConfiguration(UserBackendConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisLeaseBackend.class);
			assertThat(context.getBean(RedisLeaseBackend.class).getKeyPrefix()).isEqualTo("user");
		});
	}

	@Test
	void runWithCustomKeyPrefixShouldUseIt() {
		this.contextRunner.with(dataRedis())
			.withPropertyValues("cluster-singleton.redis.key-prefix=billing-app")
			.run((context) -> {
				RedisLeaseBackend backend = context.getBean(RedisLeaseBackend.class);
				assertThat(backend.getKeyPrefix()).isEqualTo("billing-app");
				assertThat(backend.leaseKey("job")).isEqualTo("{billing-app:job}:lease");
			});
	}

	@Test
	void runWithMinReplicasShouldSetIt() {
		this.contextRunner.with(dataRedis())
			.withPropertyValues("cluster-singleton.redis.min-replicas=1")
			.run((context) -> {
				assertThat(context.getBean(RedisLeaseBackend.class).getMinReplicas()).isEqualTo(1);
			});
	}

	@Test
	void runWithNegativeMinReplicasShouldFailNamingTheProperty() {
		this.contextRunner.with(dataRedis())
			.withPropertyValues("cluster-singleton.redis.min-replicas=-1")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("cluster-singleton.redis.min-replicas");
			});
	}

	@Test
	void runWithKeyPrefixWithBracesShouldFailNamingTheProperty() {
		this.contextRunner.with(dataRedis())
			.withPropertyValues("cluster-singleton.redis.key-prefix={app}")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("cluster-singleton.redis.key-prefix")
					.hasMessageContaining("hash tag");
			});
	}

	@Test
	void runWithJobShouldGuardItWithRedis() {
		String prefix = "cs-autoconfig-" + System.nanoTime();
		this.contextRunner.with(dataRedis())
			.withBean(Job.class)
			.withPropertyValues("cluster-singleton.redis.key-prefix=" + prefix)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(Job.class).run();
				RedisLeaseBackend backend = context.getBean(RedisLeaseBackend.class);
				assertThat(backend.describe("redis-job")).get().satisfies((info) -> {
					assertThat(info.fencingToken()).isEqualTo(1);
					assertThat(info.live()).isFalse();
				});
				// leave nothing behind
				new StringRedisTemplate(context.getBean(RedisConnectionFactory.class))
					.delete(backend.metaKey("redis-job"));
			});
	}

	@Test
	void runWithJobAndDataSourceAndRedisShouldFailWithSeveralStores() {
		this.contextRunner.with(dataRedis())
			.with(h2())
			.withConfiguration(AutoConfigurations.of(JdbcLeaseAutoConfiguration.class))
			.withBean(Job.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), LeaseBackendUnavailableException.class))
					.hasMessageContaining("several lease stores")
					.hasMessageContaining("redis")
					.hasMessageContaining("jdbc");
			});
	}

	private static Function<ApplicationContextRunner, ApplicationContextRunner> dataRedis() {
		URI url = URI.create(TestStores.redisUrl());
		return (runner) -> runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + url.getHost(), "spring.data.redis.port=" + url.getPort());
	}

	@Configuration(proxyBeanMethods = false)
	static class RedissonConfiguration {

		@Bean(destroyMethod = "shutdown")
		RedissonClient redissonClient() {
			URI url = URI.create(TestStores.redisUrl());
			Config config = new Config();
			config.setNettyThreads(2);
			config.useSingleServer()
				.setAddress("redis://" + url.getHost() + ":" + url.getPort())
				.setConnectionMinimumIdleSize(1)
				.setSubscriptionConnectionMinimumIdleSize(0);
			return Redisson.create(config);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBackendConfiguration {

		@Bean
		RedisLeaseBackend userBackend(RedisConnectionFactory connectionFactory) {
			return new RedisLeaseBackend(new SpringDataRedisScriptExecutor(connectionFactory), "user");
		}

	}

	static class Job {

		@ClusterSingleton(name = "redis-job")
		public void run() {
		}

	}

}
