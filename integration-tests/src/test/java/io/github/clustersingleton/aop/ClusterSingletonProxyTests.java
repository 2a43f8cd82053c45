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

package io.github.clustersingleton.aop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import org.aopalliance.aop.Advice;
import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionInterceptor;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the proxies that {@link ClusterSingletonBeanPostProcessor} creates or joins:
 * class-based and interface-based proxies, and the position of its advisor in a proxy
 * that {@code @Transactional} or {@code @Retryable} already advise (the lease must be
 * taken before a transaction starts and outside a retry loop).
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonProxyTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
		.with(h2());

	@Test
	void classBasedProxyShouldGuardTheMethod() {
		this.contextRunner.withBean(PlainJob.class).run((context) -> {
			PlainJob job = context.getBean(PlainJob.class);
			assertThat(AopUtils.isCglibProxy(job)).isTrue();
			job.run();
			assertThat(job.jobName()).isEqualTo("plain");
		});
	}

	@Test
	void interfaceBasedProxyShouldGuardTheMethod() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(Task.class, AnnotatedImplementation::new)
			.run((context) -> {
				Task task = context.getBean(Task.class);
				assertThat(AopUtils.isJdkDynamicProxy(task)).isTrue();
				task.execute();
				assertThat(task.jobName()).isEqualTo("implementation");
			});
	}

	@Test
	void interfaceBasedProxyShouldGuardMethodAnnotatedOnTheInterface() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(AnnotatedTask.class, PlainImplementation::new)
			.run((context) -> {
				AnnotatedTask task = context.getBean(AnnotatedTask.class);
				assertThat(AopUtils.isJdkDynamicProxy(task)).isTrue();
				task.execute();
				assertThat(task.jobName()).isEqualTo("interface");
			});
	}

	@Test
	void interfaceBasedProxyShouldSkipCallWhileTheLeaseIsHeld() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(Task.class, AnnotatedImplementation::new)
			.run((context) -> {
				Task task = context.getBean(Task.class);
				task.reenter(task);
				// the nested call of the same job found the lease taken and was skipped
				assertThat(task.runs()).isOne();
			});
	}

	@Test
	void transactionalMethodShouldTakeTheLeaseBeforeTheTransactionStarts() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class,
					TransactionAutoConfiguration.class))
			.withUserConfiguration(RecordingTransactionManagerConfiguration.class)
			.withBean(TransactionalJob.class)
			.run((context) -> {
				TransactionalJob job = context.getBean(TransactionalJob.class);
				assertThat(job).isInstanceOf(Advised.class);
				List<Advice> advices = advices((Advised) job);
				assertThat(advices).hasSizeGreaterThanOrEqualTo(2);
				assertThat(advices.get(0)).isInstanceOf(ClusterSingletonInterceptor.class);
				assertThat(advices).anyMatch(TransactionInterceptor.class::isInstance);
				job.run();
				assertThat(job.transactionActive()).isTrue();
				assertThat(job.leaseHeld()).isTrue();
				RecordingTransactionManager transactionManager = context.getBean(RecordingTransactionManager.class);
				assertThat(transactionManager.leaseHeldAtBegin()).containsExactly(true);
			});
	}

	@Test
	void transactionalMethodBehindInterfaceBasedProxyShouldTakeTheLeaseBeforeTheTransactionStarts() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class,
					TransactionAutoConfiguration.class))
			.withPropertyValues("spring.aop.proxy-target-class=false")
			.withUserConfiguration(RecordingTransactionManagerConfiguration.class)
			.withBean(Task.class, TransactionalImplementation::new)
			.run((context) -> {
				Task task = context.getBean(Task.class);
				assertThat(AopUtils.isJdkDynamicProxy(task)).isTrue();
				assertThat(advices((Advised) task).get(0)).isInstanceOf(ClusterSingletonInterceptor.class);
				task.execute();
				assertThat(task.jobName()).isEqualTo("transactionalImplementation");
				assertThat(context.getBean(RecordingTransactionManager.class).leaseHeldAtBegin()).containsExactly(true);
			});
	}

	@Test
	void retryableMethodShouldRetryInsideOneLease() {
		this.contextRunner.withUserConfiguration(ResilientMethodsConfiguration.class)
			.withBean(RetryingJob.class)
			.run((context) -> {
				RetryingJob job = context.getBean(RetryingJob.class);
				job.run();
				// three attempts (two failures, then success), all under the first lease
				assertThat(job.fencingTokens()).hasSize(3).containsOnly(job.fencingTokens().get(0));
				assertThat(advices((Advised) job).get(0)).isInstanceOf(ClusterSingletonInterceptor.class);
			});
	}

	private static List<Advice> advices(Advised advised) {
		return Arrays.stream(advised.getAdvisors()).map(Advisor::getAdvice).toList();
	}

	static class PlainJob {

		private final AtomicReference<String> jobName = new AtomicReference<>();

		@ClusterSingleton(name = "plain")
		public void run() {
			this.jobName.set(ClusterSingletonContext.current().jobName());
		}

		public String jobName() {
			return this.jobName.get();
		}

	}

	interface Task {

		void execute();

		void reenter(Task self);

		String jobName();

		int runs();

	}

	static class AnnotatedImplementation implements Task {

		private final AtomicReference<String> jobName = new AtomicReference<>();

		private final AtomicInteger runs = new AtomicInteger();

		@Override
		@ClusterSingleton(name = "implementation")
		public void execute() {
			this.runs.incrementAndGet();
			this.jobName.set(ClusterSingletonContext.current().jobName());
		}

		@Override
		@ClusterSingleton(name = "implementation-reentry")
		public void reenter(Task self) {
			this.runs.incrementAndGet();
			// a call through the proxy while this run holds the lease of the same job
			self.reenter(self);
		}

		@Override
		public String jobName() {
			return this.jobName.get();
		}

		@Override
		public int runs() {
			return this.runs.get();
		}

	}

	interface AnnotatedTask {

		@ClusterSingleton(name = "interface")
		void execute();

		String jobName();

	}

	static class PlainImplementation implements AnnotatedTask {

		private final AtomicReference<String> jobName = new AtomicReference<>();

		@Override
		public void execute() {
			this.jobName.set(ClusterSingletonContext.current().jobName());
		}

		@Override
		public String jobName() {
			return this.jobName.get();
		}

	}

	static class TransactionalImplementation implements Task {

		private final AtomicReference<String> jobName = new AtomicReference<>();

		@Override
		@Transactional
		@ClusterSingleton(name = "transactionalImplementation")
		public void execute() {
			if (TransactionSynchronizationManager.isActualTransactionActive()) {
				this.jobName.set(ClusterSingletonContext.current().jobName());
			}
		}

		@Override
		public void reenter(Task self) {
		}

		@Override
		public String jobName() {
			return this.jobName.get();
		}

		@Override
		public int runs() {
			return 0;
		}

	}

	static class TransactionalJob {

		private final AtomicReference<Boolean> transactionActive = new AtomicReference<>();

		private final AtomicReference<Boolean> leaseHeld = new AtomicReference<>();

		@Transactional
		@ClusterSingleton(name = "transactional")
		public void run() {
			this.transactionActive.set(TransactionSynchronizationManager.isActualTransactionActive());
			this.leaseHeld.set(ClusterSingletonContext.find().map(ClusterSingletonContext::isLeaseValid).orElse(false));
		}

		public Boolean transactionActive() {
			return this.transactionActive.get();
		}

		public Boolean leaseHeld() {
			return this.leaseHeld.get();
		}

	}

	static class RetryingJob {

		private final List<Long> fencingTokens = new ArrayList<>();

		@Retryable(maxRetries = 2, delay = 0)
		@ClusterSingleton(name = "retrying")
		public void run() {
			this.fencingTokens.add(ClusterSingletonContext.current().fencingToken());
			if (this.fencingTokens.size() < 3) {
				throw new IllegalStateException("attempt " + this.fencingTokens.size() + " failed");
			}
		}

		public List<Long> fencingTokens() {
			return this.fencingTokens;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingTransactionManagerConfiguration {

		@Bean
		RecordingTransactionManager transactionManager(DataSource dataSource) {
			return new RecordingTransactionManager(dataSource);
		}

	}

	/**
	 * Records, as each transaction begins, whether the calling thread already holds a
	 * lease.
	 */
	static class RecordingTransactionManager extends DataSourceTransactionManager {

		private final List<Boolean> leaseHeldAtBegin = new ArrayList<>();

		RecordingTransactionManager(DataSource dataSource) {
			super(dataSource);
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.leaseHeldAtBegin.add(ClusterSingletonContext.find().isPresent());
			super.doBegin(transaction, definition);
		}

		List<Boolean> leaseHeldAtBegin() {
			return this.leaseHeldAtBegin;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class ResilientMethodsConfiguration {

	}

}
