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

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.ClusterSingletonTemplate;
import io.github.clustersingleton.aop.ClusterSingletonBeanPostProcessor;
import io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.StubLeaseBackend;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.causeOf;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterSingletonAutoConfiguration}: back-off, switches and the choice
 * of the lease store.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class));

	@Test
	void runWithDataSourceShouldCreateEngineAndJdbcBackend() {
		this.contextRunner.with(h2()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(ClusterSingletonBeanPostProcessor.class)
				.hasSingleBean(JobRegistry.class)
				.hasSingleBean(ClusterSingletonExecutor.class)
				.hasSingleBean(ClusterSingletonProperties.class)
				.hasSingleBean(JdbcLeaseBackend.class);
		});
	}

	@Test
	void runWithJobAndDataSourceShouldGuardItWithTheJdbcBackend() {
		this.contextRunner.with(h2()).withUserConfiguration(CountingJobConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			CountingJob job = context.getBean(CountingJob.class);
			assertThat(AopUtils.isAopProxy(job)).isTrue();
			assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
				.isSameAs(context.getBean(JdbcLeaseBackend.class));
			assertThat(context.getBean(JobRegistry.class).names()).containsExactly("counting");
			job.run();
			assertThat(job.runs()).isEqualTo(1);
			assertThat(job.lastRunGuarded()).isTrue();
		});
	}

	@Test
	void runWhenDisabledShouldNotCreateAnyBean() {
		this.contextRunner.with(h2()).withPropertyValues("cluster-singleton.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(ClusterSingletonBeanPostProcessor.class)
				.doesNotHaveBean(JobRegistry.class)
				.doesNotHaveBean(ClusterSingletonExecutor.class)
				.doesNotHaveBean(ClusterSingletonStartup.class)
				.doesNotHaveBean(ClusterSingletonProperties.class)
				.doesNotHaveBean(JdbcLeaseBackend.class);
		});
	}

	@Test
	void runWhenDisabledShouldRunAnnotatedMethodUnguarded() {
		// no DataSource either: a disabled starter must not ask for a lease store
		this.contextRunner.withUserConfiguration(CountingJobConfiguration.class)
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				CountingJob job = context.getBean(CountingJob.class);
				assertThat(AopUtils.isAopProxy(job)).isFalse();
				job.run();
				job.run();
				assertThat(job.runs()).isEqualTo(2);
				assertThat(job.lastRunGuarded()).isFalse();
			});
	}

	@Test
	void runWhenDisabledShouldKeepAnUnguardedTemplate() {
		// an application that injects the template keeps starting, and its code runs
		// on every node, as annotated methods do in this mode
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
					ClusterSingletonDisabledAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(ClusterSingletonTemplate.class)
					.doesNotHaveBean(ClusterSingletonExecutor.class);
				ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
				AtomicInteger runs = new AtomicInteger();
				assertThat(template.runIfAcquired("import", runs::incrementAndGet)).isTrue();
				assertThat(template.runIfAcquired("import", runs::incrementAndGet)).isTrue();
				assertThat(runs).hasValue(2);
				assertThat(template.callIfAcquired("report", () -> "value")).contains("value");
			});
	}

	@Test
	void runWhenEnabledShouldNotCreateTheUnguardedTemplate() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
					ClusterSingletonDisabledAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
			.with(h2())
			.run((context) -> assertThat(context).hasSingleBean(ClusterSingletonTemplate.class)
				.doesNotHaveBean(io.github.clustersingleton.aop.UnguardedClusterSingletonTemplate.class));
	}

	@Test
	void runWithUserJdbcLeaseBackendShouldBackOff() {
		this.contextRunner.with(h2()).withUserConfiguration(UserJdbcLeaseBackendConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(JdbcLeaseBackend.class);
			assertThat(context).getBean(JdbcLeaseBackend.class)
				.isSameAs(context.getBean("userJdbcLeaseBackend"))
				.extracting(JdbcLeaseBackend::getTableName)
				.isEqualTo("user_leases");
		});
	}

	@Test
	void runWithUserExecutorShouldBackOffAndGuardJobsWithIt() {
		this.contextRunner.with(h2())
			.withUserConfiguration(UserExecutorConfiguration.class, CountingJobConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(ClusterSingletonExecutor.class);
				assertThat(context).getBean(ClusterSingletonExecutor.class).isSameAs(context.getBean("userExecutor"));
				StubLeaseBackend backend = context.getBean(StubLeaseBackend.class);
				context.getBean(CountingJob.class).run();
				assertThat(context.getBean(CountingJob.class).runs()).isEqualTo(1);
				assertThat(backend.acquisitions()).isEqualTo(1);
			});
	}

	@Test
	void runWithUserJobRegistryShouldBackOff() {
		this.contextRunner.withBean("userJobRegistry", JobRegistry.class, JobRegistry::new).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(JobRegistry.class);
			assertThat(context).getBean(JobRegistry.class).isSameAs(context.getBean("userJobRegistry"));
		});
	}

	@Test
	void runWithRedisBackendShouldNotCreateJdbcBackend() {
		this.contextRunner.with(h2()).withPropertyValues("cluster-singleton.backend=redis").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class);
			assertThat(context).hasSingleBean(ClusterSingletonBeanPostProcessor.class);
		});
	}

	@Test
	void runWithoutSpringJdbcShouldNotCreateJdbcBackend() {
		this.contextRunner.with(h2()).withClassLoader(new FilteredClassLoader(JdbcTemplate.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class);
			assertThat(context).hasSingleBean(ClusterSingletonBeanPostProcessor.class);
		});
	}

	@Test
	void runWithoutDataSourceShouldNotCreateJdbcBackend() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class);
		});
	}

	@Test
	void runWithoutJobsAndWithoutLeaseStoreShouldStart() {
		this.contextRunner.withUserConfiguration(PlainBeanConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(ClusterSingletonBeanPostProcessor.class);
			assertThat(context.getBean(JobRegistry.class).isEmpty()).isTrue();
			assertThat(AopUtils.isAopProxy(context.getBean(PlainBean.class))).isFalse();
		});
	}

	@Test
	void runWithJobAndNoLeaseStoreShouldFailNamingTheJob() {
		this.contextRunner.withUserConfiguration(CountingJobConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			LeaseBackendUnavailableException ex = causeOf(context.getStartupFailure(),
					LeaseBackendUnavailableException.class);
			assertThat(ex).hasMessageContaining("no lease store").hasMessageContaining("counting");
		});
	}

	@Test
	void runWithRedisBackendAndDataSourceAndJobShouldFail() {
		this.contextRunner.with(h2())
			.withUserConfiguration(CountingJobConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=redis")
			.run((context) -> {
				assertThat(context).hasFailed();
				LeaseBackendUnavailableException ex = causeOf(context.getStartupFailure(),
						LeaseBackendUnavailableException.class);
				assertThat(ex).hasMessageContaining("cluster-singleton.backend=redis").hasMessageContaining("counting");
			});
	}

	@Test
	void runWithInMemoryBackendAndNoTestArtifactShouldSayWhichArtifactToAdd() {
		this.contextRunner.with(h2())
			.withUserConfiguration(CountingJobConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=in-memory")
			.run((context) -> {
				assertThat(context).hasFailed();
				LeaseBackendUnavailableException ex = causeOf(context.getStartupFailure(),
						LeaseBackendUnavailableException.class);
				// the DataSource's jdbc backend is not offered instead
				assertThat(ex).hasMessageContaining("cluster-singleton.backend=in-memory but no in-memory lease store")
					.hasMessageContaining("add io.github.clustersingleton:cluster-singleton-spring-boot-test")
					.hasMessageContaining("counting")
					.hasMessageEndingWith("Available: none.");
			});
	}

	@Test
	void runWithInMemoryBackendShouldChooseTheBackendWhoseIdIsInMemory() {
		for (String value : new String[] { "in-memory", "IN_MEMORY", "inMemory" }) {
			this.contextRunner.withUserConfiguration(CountingJobConfiguration.class)
				.withBean("inMemory", StubLeaseBackend.class, () -> new StubLeaseBackend("in-memory"))
				.withBean("other", StubLeaseBackend.class, () -> new StubLeaseBackend("in_memory"))
				.withPropertyValues("cluster-singleton.backend=" + value)
				.run((context) -> {
					assertThat(context).as(value).hasNotFailed();
					assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
						.isSameAs(context.getBean("inMemory"));
				});
		}
	}

	@Test
	void runWithTwoLeaseBackendsAndJobShouldFail() {
		this.contextRunner.withUserConfiguration(TwoLeaseBackendsConfiguration.class, CountingJobConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				LeaseBackendUnavailableException ex = causeOf(context.getStartupFailure(),
						LeaseBackendUnavailableException.class);
				assertThat(ex).hasMessageContaining("several")
					.hasMessageContaining("first")
					.hasMessageContaining("second")
					.hasMessageContaining("counting");
			});
	}

	@Test
	void runWithTwoLeaseBackendsOneOfThemPrimaryShouldUseThePrimaryOne() {
		this.contextRunner
			.withUserConfiguration(TwoLeaseBackendsWithPrimaryConfiguration.class, CountingJobConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
					.isSameAs(context.getBean("second"));
			});
	}

	@Test
	void runWithJdbcBackendChosenAmongSeveralShouldUseTheJdbcOne() {
		this.contextRunner.with(h2())
			.withUserConfiguration(TwoLeaseBackendsConfiguration.class, CountingJobConfiguration.class)
			.withPropertyValues("cluster-singleton.backend=jdbc")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
					.isSameAs(context.getBean(JdbcLeaseBackend.class));
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class CountingJobConfiguration {

		@Bean
		CountingJob countingJob() {
			return new CountingJob();
		}

	}

	static class CountingJob {

		private final AtomicInteger runs = new AtomicInteger();

		private final AtomicReference<Boolean> lastRunGuarded = new AtomicReference<>();

		@ClusterSingleton(name = "counting")
		public void run() {
			this.runs.incrementAndGet();
			this.lastRunGuarded.set(ClusterSingletonContext.find().isPresent());
		}

		public int runs() {
			return this.runs.get();
		}

		public Boolean lastRunGuarded() {
			return this.lastRunGuarded.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlainBeanConfiguration {

		@Bean
		PlainBean plainBean() {
			return new PlainBean();
		}

	}

	static class PlainBean {

		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserJdbcLeaseBackendConfiguration {

		@Bean
		JdbcLeaseBackend userJdbcLeaseBackend(DataSource dataSource) {
			return new JdbcLeaseBackend(dataSource, "user_leases");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserExecutorConfiguration {

		@Bean
		StubLeaseBackend stubLeaseBackend() {
			return new StubLeaseBackend("stub");
		}

		@Bean
		ClusterSingletonExecutor userExecutor(StubLeaseBackend backend) {
			return new ClusterSingletonExecutor(backend, new ClusterSingletonExecutor.Settings("user-node",
					Duration.ofSeconds(30), Duration.ofSeconds(1), true), Clock.systemUTC(),
					new ClusterSingletonListener() {
					});
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoLeaseBackendsConfiguration {

		@Bean
		StubLeaseBackend first() {
			return new StubLeaseBackend("first");
		}

		@Bean
		StubLeaseBackend second() {
			return new StubLeaseBackend("second");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoLeaseBackendsWithPrimaryConfiguration {

		@Bean
		StubLeaseBackend first() {
			return new StubLeaseBackend("first");
		}

		@Bean
		@Primary
		StubLeaseBackend second() {
			return new StubLeaseBackend("second");
		}

	}

}
