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

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import io.github.clustersingleton.ClusterLeadership;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.ClusterSingletonTemplate;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeadershipGrantedEvent;
import io.github.clustersingleton.LeadershipRevokedEvent;
import io.github.clustersingleton.aop.ClusterSingletonBeanPostProcessor;
import io.github.clustersingleton.aop.DefaultClusterSingletonOperations;
import io.github.clustersingleton.aop.DefaultClusterSingletonTemplate;
import io.github.clustersingleton.aop.JobDefaults;
import io.github.clustersingleton.aop.JobDefaults.JobOverride;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.aop.JobDefinitionFactory;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CompositeClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.LeaderElection;
import io.github.clustersingleton.lease.RunObserver;
import io.github.clustersingleton.lease.ScheduledFireTime;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.util.StringUtils;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of cluster-singleton's engine: the
 * post-processor that guards {@code @ClusterSingleton} methods, the job registry, and the
 * executor with its watchdog over the selected lease store.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = TaskSchedulingAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ClusterSingletonProperties.class)
public final class ClusterSingletonAutoConfiguration {

	private static final Duration MINIMUM_LEASE_TTL = Duration.ofSeconds(1);

	/**
	 * Grace period for running jobs at shutdown when Spring's scheduler does not await
	 * its tasks: enough for an interrupted job to unwind and release its lease.
	 */
	private static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(5);

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static JobRegistry clusterSingletonJobRegistry() {
		return new JobRegistry();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ClusterSingletonBeanPostProcessor clusterSingletonBeanPostProcessor(Environment environment,
			ObjectProvider<JobRegistry> registry, ObjectProvider<ClusterSingletonExecutor> executor) {
		// a post-processor is created before ordinary beans: bind the properties here
		// rather than depend on the properties bean
		JobDefinitionFactory factory = jobDefinitionFactory(environment);
		ClusterSingletonBeanPostProcessor postProcessor = new ClusterSingletonBeanPostProcessor(factory,
				registry.getObject(), executor::getObject);
		postProcessor
			.setProxyTargetClass(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
		return postProcessor;
	}

	private static JobDefinitionFactory jobDefinitionFactory(Environment environment) {
		ClusterSingletonProperties properties = Binder.get(environment)
			.bindOrCreate("cluster-singleton", ClusterSingletonProperties.class);
		validate(properties);
		JobDefaults defaults = new JobDefaults(properties.getDefaultLockAtMostFor(),
				properties.getDefaultLockAtLeastFor(), properties.getLeaseTtl(),
				(name) -> findOverride(properties, name),
				new JobPolicies(properties.getDefaultMisfire(), properties.getDefaultMisfireLimit(),
						properties.getDefaultRecovery(), properties.getDefaultMaxAttempts(),
						properties.getDefaultRetryDelay(), properties.getDefaultAlertAfter()));
		return new JobDefinitionFactory(environment::resolveRequiredPlaceholders, defaults);
	}

	@Bean
	@ConditionalOnMissingBean(ClusterSingletonTemplate.class)
	DefaultClusterSingletonTemplate clusterSingletonTemplate(Environment environment,
			ObjectProvider<ClusterSingletonExecutor> executor) {
		return new DefaultClusterSingletonTemplate(jobDefinitionFactory(environment), executor::getObject);
	}

	@Bean
	@ConditionalOnMissingBean(ClusterSingletonOperations.class)
	DefaultClusterSingletonOperations clusterSingletonOperations(JobRegistry registry,
			ObjectProvider<ClusterSingletonExecutor> executor, ApplicationEventPublisher eventPublisher) {
		return new DefaultClusterSingletonOperations(registry, executor::getObject, eventPublisher);
	}

	@Bean(destroyMethod = "close")
	@Lazy
	@ConditionalOnMissingBean
	ClusterSingletonExecutor clusterSingletonExecutor(ClusterSingletonProperties properties,
			ObjectProvider<LeaseBackend> backends, ObjectProvider<Clock> clock,
			ObjectProvider<ClusterSingletonListener> listeners, ObjectProvider<RunObserver> runObserver,
			JobRegistry registry, Environment environment, ApplicationEventPublisher eventPublisher,
			ObjectProvider<LeaseBackendDecorator> decorators) {
		validate(properties);
		LeaseBackend backend = LeaseBackendSelector.select(properties.getBackend(), backends.orderedStream().toList(),
				backends.getIfUnique(), registry.jobs().stream().map((job) -> job.name()).toList());
		for (LeaseBackendDecorator decorator : decorators.orderedStream().toList()) {
			backend = decorator.decorate(backend);
		}
		String owner = (properties.getOwnerId() != null) ? properties.getOwnerId() : defaultOwnerId();
		ClusterSingletonExecutor.Settings settings = new ClusterSingletonExecutor.Settings(owner,
				properties.getLeaseTtl(), properties.getSlotTolerance(), properties.isInterruptOnLeaseLoss());
		ClusterSingletonExecutor executor = new ClusterSingletonExecutor(backend, settings,
				clock.getIfUnique(Clock::systemUTC),
				new CompositeClusterSingletonListener(listeners.orderedStream().toList()));
		executor.setShutdownGracePeriod(shutdownGracePeriod(environment));
		executor.setHistoryMaxRuns(properties.getHistory().getMaxRuns());
		runObserver.ifUnique(executor::setRunObserver);
		if (properties.getLeader().isEnabled()) {
			executor.enableLeaderMode(properties.getLeader().getLeaseName(), new LeadershipEvents(eventPublisher));
		}
		else if (properties.getPreferredNode().isEnabled()) {
			executor.enablePreferredNodes(properties.getPreferredNode().getSweepDelay());
		}
		return executor;
	}

	/**
	 * Lets each cron run claim the fire time its scheduler meant: decorates the task
	 * scheduler that {@code @Scheduled} methods run on with {@link ScheduledFireTime}.
	 * @param beanFactory the bean factory to find the scheduler in
	 * @return the configurer
	 */
	@Bean
	static SchedulingConfigurer clusterSingletonFireTimeConfigurer(ListableBeanFactory beanFactory) {
		return new FireTimeSchedulingConfigurer(beanFactory);
	}

	@Bean
	@ConditionalOnBooleanProperty("cluster-singleton.leader.enabled")
	ClusterLeadership clusterSingletonLeadership(ObjectProvider<ClusterSingletonExecutor> executor) {
		return executor.getObject()
			.leadership()
			.orElseThrow(() -> new IllegalStateException("Leader mode is off in the ClusterSingletonExecutor bean"));
	}

	@Bean
	static ClusterSingletonStartup clusterSingletonStartup(ObjectProvider<JobRegistry> registry,
			ObjectProvider<ClusterSingletonExecutor> executor, ObjectProvider<ClusterSingletonProperties> properties) {
		return new ClusterSingletonStartup(registry, executor, properties);
	}

	static void validate(ClusterSingletonProperties properties) {
		if (properties.getLeaseTtl().compareTo(MINIMUM_LEASE_TTL) < 0) {
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.lease-ttl (" + properties.getLeaseTtl() + "): it must be at least "
							+ MINIMUM_LEASE_TTL + ", since the watchdog renews every third of it");
		}
		if (properties.getDefaultLockAtMostFor().compareTo(properties.getLeaseTtl()) <= 0) {
			throw new ClusterSingletonConfigurationException("Invalid cluster-singleton.default-lock-at-most-for ("
					+ properties.getDefaultLockAtMostFor() + "): it must be longer than cluster-singleton.lease-ttl ("
					+ properties.getLeaseTtl() + ")");
		}
		if (properties.getDefaultLockAtLeastFor().isNegative()) {
			throw new ClusterSingletonConfigurationException("Invalid cluster-singleton.default-lock-at-least-for ("
					+ properties.getDefaultLockAtLeastFor() + "): it must not be negative");
		}
		if (properties.getDefaultLockAtLeastFor().compareTo(properties.getDefaultLockAtMostFor()) > 0) {
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.default-lock-at-least-for (" + properties.getDefaultLockAtLeastFor()
							+ "): it must not be longer than cluster-singleton.default-lock-at-most-for ("
							+ properties.getDefaultLockAtMostFor() + ")");
		}
		if (properties.getSlotTolerance().isNegative()) {
			throw new ClusterSingletonConfigurationException("Invalid cluster-singleton.slot-tolerance ("
					+ properties.getSlotTolerance() + "): it must not be negative");
		}
		if (properties.getLeader().isEnabled() && !StringUtils.hasText(properties.getLeader().getLeaseName())) {
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.leader.lease-name: it must not be empty in leader mode");
		}
		Duration sweepDelay = properties.getPreferredNode().getSweepDelay();
		if (sweepDelay == null || sweepDelay.isNegative() || sweepDelay.isZero()
				|| sweepDelay.compareTo(properties.getLeaseTtl().dividedBy(3)) > 0) {
			throw new ClusterSingletonConfigurationException("Invalid cluster-singleton.preferred-node.sweep-delay ("
					+ sweepDelay + "): it must be positive and at most a third of cluster-singleton.lease-ttl ("
					+ properties.getLeaseTtl() + ")");
		}
		atLeastOne("cluster-singleton.default-misfire-limit", properties.getDefaultMisfireLimit());
		atLeastOne("cluster-singleton.default-max-attempts", properties.getDefaultMaxAttempts());
		atLeastOne("cluster-singleton.history.max-runs", properties.getHistory().getMaxRuns());
		if (properties.getDefaultRetryDelay().isNegative()) {
			throw new ClusterSingletonConfigurationException("Invalid cluster-singleton.default-retry-delay ("
					+ properties.getDefaultRetryDelay() + "): it must not be negative");
		}
		Duration alertAfter = properties.getDefaultAlertAfter();
		if (alertAfter != null && (alertAfter.isNegative() || alertAfter.isZero())) {
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.default-alert-after (" + alertAfter + "): it must be positive");
		}
		String owner = properties.getOwnerId();
		if (owner != null && (owner.isBlank() || owner.length() > 255)) {
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.owner-id: it must be 1 to 255 characters, not blank");
		}
	}

	/**
	 * Find the {@code cluster-singleton.jobs} entry of a job: by its exact name, else by
	 * its name compared without case, dashes, underscores and dots, the way relaxed
	 * binding treats property names.
	 */
	static @Nullable JobOverride findOverride(ClusterSingletonProperties properties, String name) {
		Map.Entry<String, JobProperties> entry = findJob(properties, name);
		if (entry == null) {
			return null;
		}
		String key = entry.getKey();
		JobProperties job = entry.getValue();
		return new JobOverride(key, job.getLockAtMostFor(), job.getLockAtLeastFor(), job.isEnabled(), job.getMisfire(),
				job.getMisfireLimit(), job.getRecovery(), job.getMaxAttempts(), job.getRetryDelay(),
				job.getAlertAfter());
	}

	/**
	 * Find the {@code cluster-singleton.jobs} entry of a job, as {@link #findOverride}
	 * does.
	 * @param properties the bound properties
	 * @param name the job's name
	 * @return the entry (its key as written), or {@code null}
	 */
	public static Map.@Nullable Entry<String, JobProperties> findJob(ClusterSingletonProperties properties,
			String name) {
		JobProperties job = properties.getJobs().get(name);
		if (job != null) {
			return Map.entry(name, job);
		}
		String wanted = relaxed(name);
		for (Map.Entry<String, JobProperties> entry : properties.getJobs().entrySet()) {
			if (relaxed(entry.getKey()).equals(wanted)) {
				return entry;
			}
		}
		return null;
	}

	private static void atLeastOne(String property, int value) {
		if (value < 1) {
			throw new ClusterSingletonConfigurationException(
					"Invalid " + property + " (" + value + "): it must be at least 1");
		}
	}

	static String relaxed(String name) {
		return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
	}

	private static Duration shutdownGracePeriod(Environment environment) {
		Binder binder = Binder.get(environment);
		boolean await = binder.bind("spring.task.scheduling.shutdown.await-termination", Boolean.class).orElse(false);
		Duration period = binder.bind("spring.task.scheduling.shutdown.await-termination-period", Duration.class)
			.orElse(null);
		return (await && period != null) ? period : DEFAULT_SHUTDOWN_GRACE;
	}

	/**
	 * Publishes the engine's leadership changes as application events.
	 */
	private static final class LeadershipEvents implements LeaderElection.Listener {

		private final ApplicationEventPublisher publisher;

		LeadershipEvents(ApplicationEventPublisher publisher) {
			this.publisher = publisher;
		}

		@Override
		public void granted(long term) {
			this.publisher.publishEvent(new LeadershipGrantedEvent(this, term));
		}

		@Override
		public void revoked(long term, String reason) {
			this.publisher.publishEvent(new LeadershipRevokedEvent(this, term, reason));
		}

	}

	static String defaultOwnerId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = "unknown-host";
		}
		byte[] random = new byte[4];
		ThreadLocalRandom.current().nextBytes(random);
		String owner = host + ":" + ProcessHandle.current().pid() + ":" + HexFormat.of().formatHex(random);
		return (owner.length() <= 255) ? owner : owner.substring(owner.length() - 255);
	}

}
