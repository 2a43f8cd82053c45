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
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ClusterSingletonStartup;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A graceful shutdown on Spring Data Redis: the connection factory is a lifecycle bean
 * that stops in phase 0, before any bean is destroyed, so the engine must wait for the
 * runs under way, and release their leases, in an earlier stop phase.
 *
 * @author cluster-singleton contributors
 */
class RedisGracefulShutdownTests {

	private static final long TIMEOUT_SECONDS = 20;

	private final String prefix = "shutdown-" + UUID.randomUUID().toString().substring(0, 8);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				RedisLeaseAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redisUri().getHost(),
				"spring.data.redis.port=" + redisUri().getPort(), "cluster-singleton.redis.key-prefix=" + this.prefix)
		.withBean(Jobs.class);

	@Test
	void aRunThatEndsWhileTheContextClosesReleasesItsLeaseBeforeTheConnectionFactoryStops() throws Exception {
		LettuceConnectionFactory otherFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redisUri().getHost(), redisUri().getPort()));
		otherFactory.afterPropertiesSet();
		otherFactory.start();
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			// another node's view of the same store
			RedisLeaseBackend otherNode = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(otherFactory),
					this.prefix);
			this.contextRunner.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
				ClusterSingletonStartup startup = context.getBean(ClusterSingletonStartup.class);
				jobs.setFactory(factory);
				Future<?> running = threads.submit(() -> {
					jobs.longRunning();
					return null;
				});
				assertThat(jobs.entered().await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
				assertThat(tryAcquire(otherNode).isAcquired()).isFalse();
				Future<?> closing = threads.submit(context::close);
				// the engine's stop phase has begun (or, wrongly, the factory stopped
				// first): let the run end
				await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
					.until(() -> !startup.isRunning() || !factory.isRunning());
				jobs.proceed().countDown();
				running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
				closing.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
				assertThat(jobs.storeClientRunningAtTheEnd()).as("the connection factory ran when the run ended")
					.isTrue();
				assertThat(tryAcquire(otherNode).isAcquired())
					.as("the lease of the run that ended during shutdown is released")
					.isTrue();
			});
		}
		finally {
			threads.shutdownNow();
			otherFactory.destroy();
		}
	}

	private static AcquireResult tryAcquire(RedisLeaseBackend backend) {
		return backend.tryAcquire(new LeaseRequest("longRunning", "other-node",
				UUID.randomUUID().toString().replace("-", ""), Duration.ofSeconds(30), null));
	}

	private static URI redisUri() {
		return URI.create(TestStores.redisUrl());
	}

	static class Jobs {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch proceed = new CountDownLatch(1);

		private volatile LettuceConnectionFactory factory;

		private volatile boolean storeClientRunningAtTheEnd;

		@ClusterSingleton(name = "longRunning")
		public void longRunning() throws InterruptedException {
			this.entered.countDown();
			this.proceed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			this.storeClientRunningAtTheEnd = this.factory.isRunning();
		}

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch proceed() {
			return this.proceed;
		}

		public void setFactory(LettuceConnectionFactory factory) {
			this.factory = factory;
		}

		public boolean storeClientRunningAtTheEnd() {
			return this.storeClientRunningAtTheEnd;
		}

	}

}
