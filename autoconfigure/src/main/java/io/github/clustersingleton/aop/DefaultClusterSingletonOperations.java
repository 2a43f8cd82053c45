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

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.clustersingleton.ClusterSingletonControlEvent;
import io.github.clustersingleton.ClusterSingletonControlEvent.Action;
import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * The {@link ClusterSingletonOperations} of the application: checks the job and the
 * input, writes the control to the lease store's {@link JobControls}, logs it at INFO
 * with who asked and publishes a {@link ClusterSingletonControlEvent}. Every node's
 * engine picks the control up within a third of the lease TTL. The variants taking a
 * principal let the Actuator endpoint name the authenticated user; the others name this
 * node.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class DefaultClusterSingletonOperations implements ClusterSingletonOperations {

	private static final Log logger = LogFactory.getLog(DefaultClusterSingletonOperations.class);

	private static final boolean REACTIVE_STREAMS_PRESENT = ClassUtils.isPresent("org.reactivestreams.Publisher",
			DefaultClusterSingletonOperations.class.getClassLoader());

	private final JobRegistry registry;

	private final SingletonSupplier<ClusterSingletonExecutor> executor;

	private final ApplicationEventPublisher eventPublisher;

	/**
	 * Create the operations.
	 * @param registry the jobs of the application
	 * @param executor supplies the engine
	 * @param eventPublisher publishes the control events
	 */
	public DefaultClusterSingletonOperations(JobRegistry registry, Supplier<ClusterSingletonExecutor> executor,
			ApplicationEventPublisher eventPublisher) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(executor, "'executor' must not be null");
		Assert.notNull(eventPublisher, "'eventPublisher' must not be null");
		this.registry = registry;
		this.executor = SingletonSupplier.of(executor);
		this.eventPublisher = eventPublisher;
	}

	@Override
	public ClusterSingletonOperations withPrincipal(@Nullable String principal) {
		return StringUtils.hasText(principal) ? new PrincipalOperations(this, principal) : this;
	}

	@Override
	public void pause(String job, @Nullable String reason) {
		pause(job, reason, null);
	}

	/**
	 * Pause a job on every node, as {@code principal} asked.
	 * @param job the job
	 * @param reason why, or {@code null}
	 * @param principal who asked, or {@code null} for this node
	 * @see #pause(String, String)
	 */
	public void pause(String job, @Nullable String reason, @Nullable String principal) {
		requireJob(job);
		String by = principal(principal);
		controls().pause(job, by, reason);
		done(Action.PAUSE, job, by, reason, "paused job '" + job + "'" + describeReason(reason));
	}

	@Override
	public void resume(String job, boolean catchUp) {
		resume(job, catchUp, null);
	}

	/**
	 * Resume a paused job, as {@code principal} asked.
	 * @param job the job
	 * @param catchUp whether the slots that passed while paused are left to the job's
	 * misfire policy
	 * @param principal who asked, or {@code null} for this node
	 * @see #resume(String, boolean)
	 */
	public void resume(String job, boolean catchUp, @Nullable String principal) {
		requireJob(job);
		String by = principal(principal);
		controls().resume(job, catchUp);
		done(Action.RESUME, job, by, "catchUp=" + catchUp,
				"resumed job '" + job + "' " + (catchUp ? "with" : "without") + " catch-up");
	}

	@Override
	public void pauseAll(@Nullable String reason) {
		pauseAll(reason, null);
	}

	/**
	 * Pause every job of the cluster, as {@code principal} asked.
	 * @param reason why, or {@code null}
	 * @param principal who asked, or {@code null} for this node
	 * @see #pauseAll(String)
	 */
	public void pauseAll(@Nullable String reason, @Nullable String principal) {
		String by = principal(principal);
		controls().pause(null, by, reason);
		done(Action.PAUSE, null, by, reason, "paused every job" + describeReason(reason));
	}

	@Override
	public void resumeAll(boolean catchUp) {
		resumeAll(catchUp, null);
	}

	/**
	 * Resume every job, as {@code principal} asked.
	 * @param catchUp as for {@link #resume(String, boolean)}
	 * @param principal who asked, or {@code null} for this node
	 * @see #resumeAll(boolean)
	 */
	public void resumeAll(boolean catchUp, @Nullable String principal) {
		String by = principal(principal);
		controls().resume(null, catchUp);
		done(Action.RESUME, null, by, "catchUp=" + catchUp,
				"resumed every job " + (catchUp ? "with" : "without") + " catch-up");
	}

	@Override
	public String runNow(String job) {
		return runNow(job, null);
	}

	/**
	 * Ask for one run of a job now, as {@code principal} asked.
	 * @param job the job
	 * @param principal who asked, or {@code null} for this node
	 * @return the request's id
	 * @see #runNow(String)
	 */
	public String runNow(String job, @Nullable String principal) {
		requireJob(job);
		String refusal = runNowRefusal(job);
		if (refusal != null) {
			throw new IllegalArgumentException("Job '" + job + "' cannot be run now: " + refusal);
		}
		String by = principal(principal);
		ManualRun request = controls().requestRun(job, by);
		done(Action.RUN_NOW, job, by, request.id(), "asked for a run of job '" + job + "' now (request " + request.id()
				+ "); a node runs it within a third of the lease TTL");
		return request.id();
	}

	@Override
	public Optional<ManualRun> manualRun(String job, String requestId) {
		requireJob(job);
		Assert.hasText(requestId, "'requestId' must not be empty");
		return controls().manualRun(job, requestId);
	}

	/**
	 * Return a job's run-now requests, pending ones and the most recent ended ones,
	 * newest first.
	 * @param job the job
	 * @param limit how many at most
	 * @return the requests
	 */
	public List<ManualRun> manualRuns(String job, int limit) {
		requireJob(job);
		return controls().manualRuns(job, limit);
	}

	@Override
	public void reschedule(String job, String cron) {
		reschedule(job, cron, null);
	}

	/**
	 * Move a cron job to another schedule on every node, as {@code principal} asked.
	 * @param job the job
	 * @param cron the new cron expression
	 * @param principal who asked, or {@code null} for this node
	 * @see #reschedule(String, String)
	 */
	public void reschedule(String job, String cron, @Nullable String principal) {
		JobDefinition definition = requireCronJob(job);
		if (!StringUtils.hasText(cron)) {
			throw new IllegalArgumentException("Invalid cron expression for job '" + job + "': it must not be empty");
		}
		String expression = cron.trim();
		try {
			CronExpression.parse(expression);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Invalid cron expression '" + expression + "' for job '" + job + "': " + ex.getMessage(), ex);
		}
		String by = principal(principal);
		controls().reschedule(job, expression);
		done(Action.RESCHEDULE, job, by, expression, "moved job '" + job + "' from " + definition.schedule()
				+ " to the cron expression '" + expression + "' on every node");
	}

	@Override
	public void clearSchedule(String job) {
		clearSchedule(job, null);
	}

	/**
	 * Clear a job's cron override, as {@code principal} asked.
	 * @param job the job
	 * @param principal who asked, or {@code null} for this node
	 * @see #clearSchedule(String)
	 */
	public void clearSchedule(String job, @Nullable String principal) {
		JobDefinition definition = requireCronJob(job);
		String by = principal(principal);
		controls().reschedule(job, null);
		done(Action.CLEAR_SCHEDULE, job, by, null,
				"returned job '" + job + "' to its own schedule " + definition.schedule() + " on every node");
	}

	@Override
	public JobControl controls(String job) {
		requireJob(job);
		JobControl control = controls().read(List.of(job)).get(job);
		return (control != null) ? control : JobControl.none(job);
	}

	/**
	 * Force-release a job's lease, as {@code principal} asked: the next trigger of any
	 * node may take it, even while a run still holds it.
	 * @param job the job
	 * @param principal who asked, or {@code null} for this node
	 * @return whether a live lease was released
	 */
	public boolean forceRelease(String job, @Nullable String principal) {
		Assert.hasText(job, "'job' must not be empty");
		String by = principal(principal);
		boolean released = backend().forceRelease(job);
		done(Action.FORCE_RELEASE, job, by, null, released ? "force-released the lease of job '" + job + "'"
				: "asked to force-release the lease of job '" + job + "', which no node held");
		return released;
	}

	private void done(Action action, @Nullable String job, String principal, @Nullable String detail,
			String description) {
		logger.info("cluster-singleton: " + principal + " " + description);
		this.eventPublisher.publishEvent(new ClusterSingletonControlEvent(this, action, job, principal, detail));
	}

	private JobDefinition requireJob(String job) {
		Assert.hasText(job, "'job' must not be empty");
		return this.registry.forName(job)
			.orElseThrow(() -> new IllegalArgumentException("No cluster-singleton job named '" + job + "'"));
	}

	private JobDefinition requireCronJob(String job) {
		JobDefinition definition = requireJob(job);
		CronSlotSchedule schedule = definition.schedule();
		if (schedule == null) {
			throw new IllegalArgumentException("Job '" + job
					+ "' cannot be rescheduled: it is not scheduled by a cron expression (only @Scheduled(cron = ...) "
					+ "jobs can be)");
		}
		if (schedule.size() > 1) {
			throw new IllegalArgumentException("Job '" + job + "' cannot be rescheduled: it has several cron "
					+ "expressions (" + schedule + "); only a job with one can be");
		}
		return definition;
	}

	/**
	 * Return whether the engine can run a job's run-now requests by calling its method: a
	 * {@code @Scheduled} method without parameters that does its whole work before it
	 * returns (not reactive, not a suspend function).
	 * @param method the job's method
	 * @return whether run-now requests of the job can be run through the method
	 */
	public static boolean runsNow(Method method) {
		return refusal(method) == null;
	}

	private @Nullable String runNowRefusal(String job) {
		Optional<JobRegistry.Target> target = this.registry.target(job);
		if (target.isEmpty()) {
			return refusal(null);
		}
		String refusal = refusal(target.get().method());
		if (refusal == null && !executor().runsNow(job)) {
			return "it is not registered for runs outside its trigger on this node";
		}
		return refusal;
	}

	private static @Nullable String refusal(@Nullable Method method) {
		if (method == null || !AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)) {
			return "it has no @Scheduled method on this node (a job run only through ClusterSingletonTemplate "
					+ "cannot be)";
		}
		if (SuspendFunctions.isSuspending(method)) {
			return "it is a Kotlin suspend function, which run-now does not support";
		}
		if (REACTIVE_STREAMS_PRESENT && Publisher.class.isAssignableFrom(method.getReturnType())) {
			return "it is a reactive method, which run-now does not support";
		}
		if (method.getParameterCount() > 0) {
			return "its method takes parameters";
		}
		return null;
	}

	private String principal(@Nullable String principal) {
		return StringUtils.hasText(principal) ? principal : executor().getSettings().owner();
	}

	private static String describeReason(@Nullable String reason) {
		return StringUtils.hasText(reason) ? " (reason: " + reason + ")" : "";
	}

	private ClusterSingletonExecutor executor() {
		return this.executor.obtain();
	}

	private LeaseBackend backend() {
		return executor().getBackend();
	}

	private JobControls controls() {
		LeaseBackend backend = backend();
		return backend.controls()
			.orElseThrow(() -> new UnsupportedOperationException("The " + backend.id()
					+ " lease backend keeps no cluster-wide controls: pause, resume, run now and reschedule need a "
					+ "store that does (JDBC, Redis, Kubernetes)"));
	}

}
