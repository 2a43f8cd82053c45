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

package io.github.clustersingleton.actuate;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ManualRunDescriptor;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The cluster-wide controls of the jobs an endpoint read shows, read from the lease store
 * once per read: a store failure is reported in every job, never fails the read.
 *
 * @author cluster-singleton contributors
 */
final class JobControlsView {

	private static final Log logger = LogFactory.getLog(ClusterSingletonEndpoint.class);

	private final @Nullable JobControls controls;

	private final Map<String, JobControl> read;

	private @Nullable String error;

	private JobControlsView(@Nullable JobControls controls, Map<String, JobControl> read, @Nullable String error) {
		this.controls = controls;
		this.read = read;
		this.error = error;
	}

	/**
	 * Read the controls of the given jobs in one call.
	 * @param backend the lease store, or {@code null} while the engine does not exist
	 * @param jobNames the jobs
	 * @return the view
	 */
	static JobControlsView read(@Nullable LeaseBackend backend, Collection<String> jobNames) {
		JobControls controls = (backend != null) ? backend.controls().orElse(null) : null;
		if (controls == null || jobNames.isEmpty()) {
			return new JobControlsView(controls, Map.of(), null);
		}
		try {
			return new JobControlsView(controls, Map.copyOf(controls.read(jobNames)), null);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not read the controls of jobs " + jobNames, ex);
			return new JobControlsView(controls, Map.of(), ex.getClass().getName() + ": " + ex.getMessage());
		}
	}

	/**
	 * Return whether the lease store keeps controls.
	 * @return whether it does
	 */
	boolean supported() {
		return this.controls != null;
	}

	/**
	 * Return why the controls could not be read.
	 * @return the error, or {@code null}
	 */
	@Nullable String error() {
		return this.error;
	}

	/**
	 * Return a job's controls.
	 * @param jobName the job
	 * @return its controls, none when they are not known
	 */
	JobControl control(String jobName) {
		JobControl control = this.read.get(jobName);
		return (control != null) ? control : JobControl.none(jobName);
	}

	/**
	 * Return a job's pending and recent run-now requests, newest first. After one failure
	 * the store is not asked again.
	 * @param jobName the job
	 * @param limit how many at most
	 * @return the requests
	 */
	List<ManualRunDescriptor> manualRuns(String jobName, int limit) {
		if (this.controls == null || this.error != null) {
			return List.of();
		}
		try {
			return this.controls.manualRuns(jobName, limit).stream().map(JobControlsView::describe).toList();
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not read the run-now requests of job '" + jobName + "'", ex);
			this.error = ex.getClass().getName() + ": " + ex.getMessage();
			return List.of();
		}
	}

	/**
	 * Return when a job's cron schedule fires next.
	 * @param job the job
	 * @param executor the engine, or {@code null}
	 * @param cronOverride the job's cron override, or {@code null}
	 * @return the next fire time, or {@code null} for a job without a cron schedule
	 */
	static @Nullable Instant nextFireTime(JobDefinition job, @Nullable ClusterSingletonExecutor executor,
			@Nullable String cronOverride) {
		CronSlotSchedule schedule = job.schedule();
		if (schedule == null) {
			return null;
		}
		Instant now = Instant.now();
		if (cronOverride != null) {
			try {
				return CronSlotSchedule.of(cronOverride, schedule.zone()).next(now);
			}
			catch (IllegalArgumentException ex) {
				// an invalid override stored by hand: the engine keeps the job's schedule
			}
		}
		else if (executor != null) {
			CronSlotSchedule followed = executor.cronOverrides().apply(job).schedule();
			schedule = (followed != null) ? followed : schedule;
		}
		return schedule.next(now);
	}

	/**
	 * Describe a run-now request.
	 * @param run the request
	 * @return its description
	 */
	static ManualRunDescriptor describe(ManualRun run) {
		return new ManualRunDescriptor(run.id(), ClusterSingletonEndpoint.value(run.state().name()), run.requestedBy(),
				run.requestedAt(), run.owner(), run.fencingToken(), run.finishedAt(), run.error());
	}

	/**
	 * Describe a run-now request that was stored but could not be read back.
	 * @param id the request's id
	 * @return its description, pending
	 */
	static ManualRunDescriptor pending(String id) {
		return new ManualRunDescriptor(id, "pending", null, null, null, 0, null, null);
	}

}
