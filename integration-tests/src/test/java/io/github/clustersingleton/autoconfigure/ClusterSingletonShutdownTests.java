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

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import org.h2.Driver;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the shutdown of the engine that {@link ClusterSingletonAutoConfiguration}
 * sets up: once the context starts closing no new run starts, a run under way goes on,
 * and its lease is released when it returns.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonShutdownTests {

	private static final long TIMEOUT_SECONDS = 10;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class));

	@Test
	void closeWhileAJobRunsShouldSkipNewRunsAndReleaseTheLeaseWhenTheRunEnds() {
		String url = ClusterSingletonTestSupport.h2Url();
		// another node's view of the same database
		JdbcLeaseBackend otherNode = new JdbcLeaseBackend(new SimpleDriverDataSource(new Driver(), url, "sa", ""),
				JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		this.contextRunner.with(h2(url)).withBean(Jobs.class).withBean(CloseProbe.class).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CloseProbe probe = context.getBean(CloseProbe.class);
			jobs.other();
			assertThat(jobs.otherRuns()).isOne();
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try {
				Future<?> running = threads.submit(() -> {
					jobs.longRunning();
					return null;
				});
				assertThat(jobs.entered().await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
				assertThat(tryAcquire(otherNode, "longRunning").isAcquired()).isFalse();
				Future<?> closing = threads.submit(context::close);
				// the context-closed event was published and lifecycle beans are stopping
				assertThat(probe.stopping().await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
				jobs.other();
				assertThat(jobs.otherRuns()).as("runs started after close() began").isOne();
				probe.mayStop().countDown();
				// the run under way still holds its lease while the context closes
				assertThat(tryAcquire(otherNode, "longRunning").isAcquired()).isFalse();
				jobs.proceed().countDown();
				running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
				closing.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
				assertThat(jobs.longRunningRuns()).isOne();
				assertThat(jobs.completedRuns()).isOne();
				assertThat(tryAcquire(otherNode, "longRunning").isAcquired())
					.as("lease of the run that ended during shutdown is released")
					.isTrue();
			}
			finally {
				probe.mayStop().countDown();
				jobs.proceed().countDown();
				threads.shutdownNow();
			}
		});
	}

	private static AcquireResult tryAcquire(JdbcLeaseBackend backend, String jobName) {
		return backend.tryAcquire(new LeaseRequest(jobName, "other-node", UUID.randomUUID().toString().replace("-", ""),
				Duration.ofSeconds(30), null));
	}

	static class Jobs {

		private final AtomicInteger longRunningRuns = new AtomicInteger();

		private final AtomicInteger completedRuns = new AtomicInteger();

		private final AtomicInteger otherRuns = new AtomicInteger();

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch proceed = new CountDownLatch(1);

		@ClusterSingleton(name = "longRunning")
		public void longRunning() throws InterruptedException {
			this.longRunningRuns.incrementAndGet();
			this.entered.countDown();
			if (this.proceed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				this.completedRuns.incrementAndGet();
			}
		}

		@ClusterSingleton(name = "other")
		public void other() {
			this.otherRuns.incrementAndGet();
		}

		public int longRunningRuns() {
			return this.longRunningRuns.get();
		}

		public int completedRuns() {
			return this.completedRuns.get();
		}

		public int otherRuns() {
			return this.otherRuns.get();
		}

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch proceed() {
			return this.proceed;
		}

	}

	/**
	 * Holds the closing thread in the lifecycle stop phase, after the context-closed
	 * event and before any bean is destroyed, until the test lets it go.
	 */
	static class CloseProbe implements SmartLifecycle {

		private final CountDownLatch stopping = new CountDownLatch(1);

		private final CountDownLatch mayStop = new CountDownLatch(1);

		private volatile boolean running;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.stopping.countDown();
			try {
				this.mayStop.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		CountDownLatch stopping() {
			return this.stopping;
		}

		CountDownLatch mayStop() {
			return this.mayStop;
		}

	}

}
