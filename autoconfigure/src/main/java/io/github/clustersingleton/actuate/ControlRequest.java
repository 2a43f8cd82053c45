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

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ManualRunDescriptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A control request of the {@link ClusterSingletonEndpoint clustersingleton} endpoint,
 * checked: a known action, with only the fields that action uses.
 *
 * @param job the job, or {@code null} for every job
 * @param action {@code pause}, {@code resume}, {@code run} or {@code reschedule}
 * @param reason the reason of a pause
 * @param catchUp the catch-up of a resume, {@code null} for other actions
 * @param cron the cron override of a reschedule, {@code null} to clear it
 * @author cluster-singleton contributors
 */
record ControlRequest(@Nullable String job, String action, @Nullable String reason, @Nullable Boolean catchUp,
		@Nullable String cron) {

	private static final Log logger = LogFactory.getLog(ClusterSingletonEndpoint.class);

	/**
	 * The actions for one job.
	 */
	static final List<String> JOB_ACTIONS = List.of("pause", "resume", "run", "reschedule");

	/**
	 * The actions for every job.
	 */
	static final List<String> ALL_ACTIONS = List.of("pause", "resume");

	/**
	 * Check a request.
	 * @param job the job, or {@code null} for every job
	 * @param action the action as sent
	 * @param reason the reason as sent
	 * @param catchUp the catch-up as sent
	 * @param cron the cron expression as sent
	 * @return the request, or empty when the action is missing or unknown
	 */
	static Optional<ControlRequest> of(@Nullable String job, @Nullable String action, @Nullable String reason,
			@Nullable Boolean catchUp, @Nullable String cron) {
		if (action == null) {
			return Optional.empty();
		}
		String normalized = action.trim().toLowerCase(Locale.ROOT);
		if (!JOB_ACTIONS.contains(normalized)) {
			return Optional.empty();
		}
		String trimmedReason = (reason != null && !reason.isBlank()) ? reason.trim() : null;
		String trimmedCron = (cron != null && !cron.isBlank()) ? cron.trim() : null;
		return Optional.of(new ControlRequest(job, normalized, normalized.equals("pause") ? trimmedReason : null,
				normalized.equals("resume") ? Boolean.TRUE.equals(catchUp) : null,
				normalized.equals("reschedule") ? trimmedCron : null));
	}

	/**
	 * Return whether this request may be applied to every job.
	 * @return whether it is for every job and its action applies to every job
	 */
	boolean forEveryJob() {
		return this.job == null && ALL_ACTIONS.contains(this.action);
	}

	/**
	 * Carry the request out.
	 * @param operations the operations, acting for the caller
	 * @return the run-now request that was stored, {@code null} for other actions
	 */
	@Nullable ManualRunDescriptor apply(ClusterSingletonOperations operations) {
		String job = this.job;
		switch (this.action) {
			case "pause" -> {
				if (job != null) {
					operations.pause(job, this.reason);
				}
				else {
					operations.pauseAll(this.reason);
				}
			}
			case "resume" -> {
				boolean catchUp = Boolean.TRUE.equals(this.catchUp);
				if (job != null) {
					operations.resume(job, catchUp);
				}
				else {
					operations.resumeAll(catchUp);
				}
			}
			case "run" -> {
				return runNow(operations, required(job));
			}
			case "reschedule" -> {
				if (this.cron != null) {
					operations.reschedule(required(job), this.cron);
				}
				else {
					operations.clearSchedule(required(job));
				}
			}
			default -> throw new IllegalStateException("Unexpected action '" + this.action + "'");
		}
		return null;
	}

	private static ManualRunDescriptor runNow(ClusterSingletonOperations operations, String job) {
		String id = operations.runNow(job);
		try {
			return operations.manualRun(job, id)
				.map(JobControlsView::describe)
				.orElseGet(() -> JobControlsView.pending(id));
		}
		catch (RuntimeException ex) {
			// the request is stored: reading it back is a courtesy
			logger.debug("cluster-singleton could not read run-now request '" + id + "' of job '" + job + "' back", ex);
			return JobControlsView.pending(id);
		}
	}

	private static String required(@Nullable String job) {
		if (job == null) {
			throw new IllegalStateException("A job is required");
		}
		return job;
	}

}
