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
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link InMemoryLeaseAutoConfiguration}.
 *
 * @author cluster-singleton contributors
 */
class InMemoryLeaseAutoConfigurationTests {

	private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, InMemoryLeaseAutoConfiguration.class));

	@Test
	void isListedInTheAutoConfigurationImports() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
			.contains(InMemoryLeaseAutoConfiguration.class.getName());
	}

	@Test
	void runWithBackendInMemoryShouldCreateTheBackendAndGuardJobsWithIt() {
		this.contextRunner.withUserConfiguration(JobConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=in-memory")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(InMemoryLeaseBackend.class);
				InMemoryLeaseBackend backend = context.getBean(InMemoryLeaseBackend.class);
				assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend()).isSameAs(backend);
				context.getBean(CountingJob.class).run();
				assertThat(context.getBean(CountingJob.class).runs()).isEqualTo(1);
				assertThat(backend.describe("counting")).get().satisfies((info) -> {
					assertThat(info.fencingToken()).isEqualTo(1);
					assertThat(info.live()).isFalse();
				});
			});
	}

	@Test
	void runWithBackendInMemoryWrittenAsTheEnumConstantShouldCreateTheBackend() {
		this.contextRunner.withUserConfiguration(JobConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=IN_MEMORY")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(InMemoryLeaseBackend.class);
				assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
					.isSameAs(context.getBean(InMemoryLeaseBackend.class));
			});
	}

	@Test
	void runWithoutBackendPropertyShouldNotCreateTheBackend() {
		this.contextRunner
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(InMemoryLeaseBackend.class));
	}

	@Test
	void runWithAutoAndAnotherStoreShouldUseTheOtherStore() {
		// the test artifact on the class path must not compete with the application's
		// real store
		this.contextRunner.withUserConfiguration(JobConfiguration.class, CustomBackendConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=auto")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(InMemoryLeaseBackend.class);
				assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
					.isSameAs(context.getBean(CustomLeaseBackend.class));
			});
	}

	@Test
	void runWithOtherBackendShouldNotCreateTheBackend() {
		this.contextRunner.withPropertyValues("cluster-singleton.backend=jdbc")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(InMemoryLeaseBackend.class));
	}

	@Test
	void runWhenDisabledShouldNotCreateTheBackend() {
		this.contextRunner.withPropertyValues("cluster-singleton.backend=in-memory", "cluster-singleton.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(InMemoryLeaseBackend.class));
	}

	@Test
	void runWithUserInMemoryBackendShouldBackOff() {
		InMemoryLeaseBackend shared = new InMemoryLeaseBackend();
		this.contextRunner.withUserConfiguration(JobConfiguration.class)
			.withBean("sharedStore", InMemoryLeaseBackend.class, () -> shared)
			.withPropertyValues("cluster-singleton.backend=in-memory")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(InMemoryLeaseBackend.class);
				assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend()).isSameAs(shared);
			});
	}

	@Test
	void runWithOneClockShouldUseItAsTheStoresTime() {
		MutableClock clock = new MutableClock(START);
		this.contextRunner.withBean(Clock.class, () -> clock)
			.withPropertyValues("cluster-singleton.backend=in-memory")
			.run((context) -> assertThat(context.getBean(InMemoryLeaseBackend.class).getClock()).isSameAs(clock));
	}

	@Test
	void runWithTwoClocksShouldUseThePrimaryOne() {
		this.contextRunner.withUserConfiguration(TwoClocksConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=in-memory")
			.run((context) -> assertThat(context.getBean(InMemoryLeaseBackend.class).getClock())
				.isSameAs(context.getBean("primaryClock")));
	}

	@Test
	void runWithTwoClocksAndNoPrimaryShouldUseTheSystemClock() {
		this.contextRunner.withBean("first", Clock.class, () -> new MutableClock(START))
			.withBean("second", Clock.class, () -> new MutableClock(START))
			.withPropertyValues("cluster-singleton.backend=in-memory")
			.run((context) -> assertThat(context.getBean(InMemoryLeaseBackend.class).getClock())
				.isEqualTo(Clock.systemUTC()));
	}

	@Configuration(proxyBeanMethods = false)
	static class JobConfiguration {

		@Bean
		CountingJob countingJob() {
			return new CountingJob();
		}

	}

	static class CountingJob {

		private final AtomicInteger runs = new AtomicInteger();

		@ClusterSingleton(name = "counting")
		public void run() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomBackendConfiguration {

		@Bean
		CustomLeaseBackend customLeaseBackend() {
			return new CustomLeaseBackend();
		}

	}

	/**
	 * An application's own store, not an {@link InMemoryLeaseBackend}.
	 */
	static class CustomLeaseBackend implements LeaseBackend {

		private final InMemoryLeaseBackend store = new InMemoryLeaseBackend();

		@Override
		public String id() {
			return "custom";
		}

		@Override
		public void validateJobName(String jobName) {
			this.store.validateJobName(jobName);
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			return this.store.tryAcquire(request);
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			return this.store.renew(leases, ttl);
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
			this.store.release(lease, lockAtLeastFor);
		}

		@Override
		public Optional<LeaseInfo> describe(String jobName) {
			return this.store.describe(jobName);
		}

		@Override
		public boolean forceRelease(String jobName) {
			return this.store.forceRelease(jobName);
		}

		@Override
		public void probe() {
			this.store.probe();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoClocksConfiguration {

		@Bean
		@Primary
		Clock primaryClock() {
			return new MutableClock(START);
		}

		@Bean
		Clock otherClock() {
			return new MutableClock(START.plusSeconds(60));
		}

	}

}
