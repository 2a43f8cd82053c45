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

import java.util.List;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.aop.DefaultClusterSingletonOperations;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.PreparedInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ApplicationContextEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Finishes startup once every singleton exists: when the application has
 * {@code @ClusterSingleton} jobs, chooses the lease store (failing startup when none
 * fits), checks that the store can hold every job name, and warns about
 * {@code cluster-singleton.jobs.*} entries that match no job. On context close, stops new
 * acquisitions before the scheduler shuts down, then, in the lifecycle's stop phase
 * ({@link #PHASE}: after the task scheduler and the web server, before the store's
 * clients, such as Spring Data Redis's connection factories, which stop in phase 0),
 * waits for the runs under way and records their ends in the store while it can still be
 * reached.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class ClusterSingletonStartup
		implements SmartInitializingSingleton, ApplicationListener<ApplicationContextEvent>, SmartLifecycle {

	/**
	 * The lifecycle phase in which the engine shuts down when the context closes: later
	 * than the task scheduler ({@link SmartLifecycle#DEFAULT_PHASE}) and the web server's
	 * graceful shutdown, earlier than the lease store's clients.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(ClusterSingletonStartup.class);

	private final ObjectProvider<JobRegistry> registry;

	private final ObjectProvider<ClusterSingletonExecutor> executorProvider;

	private final ObjectProvider<ClusterSingletonProperties> properties;

	private volatile @Nullable ClusterSingletonExecutor executor;

	private volatile boolean running;

	private volatile boolean closing;

	ClusterSingletonStartup(ObjectProvider<JobRegistry> registry, ObjectProvider<ClusterSingletonExecutor> executor,
			ObjectProvider<ClusterSingletonProperties> properties) {
		this.registry = registry;
		this.executorProvider = executor;
		this.properties = properties;
	}

	@Override
	public void afterSingletonsInstantiated() {
		JobRegistry registry = this.registry.getObject();
		warnAboutUnknownJobs(registry);
		ClusterSingletonProperties properties = this.properties.getIfAvailable();
		boolean leaderMode = properties != null && properties.getLeader().isEnabled();
		if (registry.isEmpty() && !leaderMode) {
			return;
		}
		ClusterSingletonExecutor executor = this.executorProvider.getObject();
		this.executor = executor;
		LeaseBackend backend = executor.getBackend();
		List<JobDefinition> jobs = registry.jobs();
		if (leaderMode) {
			checkLeaderLeaseName(backend, properties.getLeader().getLeaseName(), jobs);
		}
		for (JobDefinition job : jobs) {
			try {
				backend.validateJobName(job.name());
			}
			catch (IllegalArgumentException ex) {
				throw new ClusterSingletonConfigurationException("Invalid cluster-singleton job '" + job.name() + "' ("
						+ job.source() + "): the " + backend.id() + " lease store cannot hold this name: "
						+ ex.getMessage() + ". Choose a shorter or simpler @ClusterSingleton(name = ...)", ex);
			}
		}
		executor.initializeBackend();
		for (JobDefinition job : jobs) {
			registry.target(job.name())
				.ifPresent((target) -> executor.registerJob(job,
						PreparedInvocation.of(job.name(), target.bean(), target.method()),
						DefaultClusterSingletonOperations.runsNow(target.method())));
		}
		if (leaderMode) {
			executor.startLeaderElection();
			logger.info("cluster-singleton leader mode: guarded jobs run only on the node that holds the '"
					+ properties.getLeader().getLeaseName() + "' lease");
		}
		if (jobs.isEmpty()) {
			return;
		}
		if (logger.isInfoEnabled()) {
			logger.info("cluster-singleton guards " + jobs.size() + " job(s) with the " + backend.id()
					+ " lease store as owner '" + executor.getSettings().owner() + "' (lease TTL "
					+ executor.getSettings().leaseTtl() + "): "
					+ String.join(", ", jobs.stream().map(JobDefinition::name).toList()));
		}
	}

	private static void checkLeaderLeaseName(LeaseBackend backend, String leaseName, List<JobDefinition> jobs) {
		try {
			backend.validateJobName(leaseName);
		}
		catch (IllegalArgumentException ex) {
			throw new ClusterSingletonConfigurationException("Invalid cluster-singleton.leader.lease-name '" + leaseName
					+ "': the " + backend.id() + " lease store cannot hold this name: " + ex.getMessage(), ex);
		}
		for (JobDefinition job : jobs) {
			if (job.name().equals(leaseName)) {
				throw new ClusterSingletonConfigurationException("Invalid cluster-singleton job '" + job.name() + "' ("
						+ job.source() + "): the name is reserved for the leader lease in leader mode. Rename the job, "
						+ "or set another cluster-singleton.leader.lease-name");
			}
		}
	}

	private void warnAboutUnknownJobs(JobRegistry registry) {
		ClusterSingletonProperties properties = this.properties.getIfAvailable();
		if (properties == null) {
			return;
		}
		for (String key : properties.getJobs().keySet()) {
			String relaxed = ClusterSingletonAutoConfiguration.relaxed(key);
			boolean known = registry.names()
				.stream()
				.anyMatch(
						(name) -> name.equals(key) || ClusterSingletonAutoConfiguration.relaxed(name).equals(relaxed));
			if (!known) {
				logger.warn("cluster-singleton.jobs." + key + " matches no @ClusterSingleton job; known jobs: "
						+ registry.names() + ". Use brackets for job names with dots, as in "
						+ "cluster-singleton.jobs[Billing.bill].enabled (a job run only through "
						+ "ClusterSingletonTemplate is not known at startup; its entry applies all the same)");
			}
		}
	}

	@Override
	public void onApplicationEvent(ApplicationContextEvent event) {
		ClusterSingletonExecutor executor = this.executor;
		if (executor == null) {
			return;
		}
		if (event instanceof ContextRefreshedEvent) {
			// recovery and catch-up runs call the jobs' beans: only once they are all
			// ready
			executor.startBackgroundWork();
		}
		else if (event instanceof ContextClosedEvent) {
			this.closing = true;
			executor.beginShutdown();
		}
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * When the context closes, shut the engine down: wait for the runs under way (up to
	 * the grace period), record their ends and release their leases, while the store's
	 * clients still run. A stop without a close (a checkpoint, an explicit
	 * {@code stop()}) leaves the engine as it is.
	 */
	@Override
	public void stop() {
		this.running = false;
		ClusterSingletonExecutor executor = this.executor;
		if (executor != null && this.closing) {
			executor.close();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
