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
package io.github.clustersingleton;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Cluster-wide controls of the guarded jobs, for code, tests and operators: every node
 * obeys them, a node started later too, since they live in the lease store. The same
 * operations back the {@code clustersingleton} Actuator endpoint and the dashboard.
 * <p>
 * Every operation names the job by its cluster-singleton name and throws
 * {@link IllegalArgumentException} for a job this node does not know or for bad input (an
 * invalid cron expression, naming the problem), {@link UnsupportedOperationException}
 * when the lease store keeps no controls (the Redis quorum backend), and any other
 * {@link RuntimeException} when the store cannot be reached, in which case nothing was
 * changed. Every operation is logged at INFO with who asked, and published as a
 * {@link ClusterSingletonControlEvent}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface ClusterSingletonOperations {

	/**
	 * Pause a job on every node: its triggers skip, with acquire outcome {@code paused},
	 * until it is resumed. A run in progress is not stopped.
	 * @param job the job
	 * @param reason why, or {@code null}
	 */
	void pause(String job, @Nullable String reason);

	/**
	 * Resume a paused job.
	 * @param job the job
	 * @param catchUp {@code false} to skip the slots that passed while paused,
	 * {@code true} to leave them to the job's {@code misfire} policy
	 */
	void resume(String job, boolean catchUp);

	/**
	 * Pause every job of the cluster, including jobs of nodes that start later.
	 * @param reason why, or {@code null}
	 */
	void pauseAll(@Nullable String reason);

	/**
	 * Resume every job, including the jobs paused one by one.
	 * @param catchUp as for {@link #resume(String, boolean)}
	 */
	void resumeAll(boolean catchUp);

	/**
	 * Ask for one run of a job now: exactly one node runs it, once, under the job's
	 * lease, with trigger {@link RunTrigger#MANUAL}, also while the job is paused.
	 * @param job the job
	 * @return the request's id, to read its state back with {@link #manualRun}
	 */
	String runNow(String job);

	/**
	 * Return a run-now request of a job.
	 * @param job the job
	 * @param requestId the id {@link #runNow} returned
	 * @return the request, or empty when the store does not know it (any more)
	 */
	Optional<ManualRun> manualRun(String job, String requestId);

	/**
	 * Move a cron job to another schedule on every node, until
	 * {@link #clearSchedule(String) cleared}.
	 * @param job the job, which must be scheduled by a cron expression
	 * @param cron the new cron expression (Spring's six-field format, or a macro such as
	 * {@code @hourly})
	 */
	void reschedule(String job, String cron);

	/**
	 * Clear a job's cron override: every node returns to the annotation's schedule.
	 * @param job the job
	 */
	void clearSchedule(String job);

	/**
	 * Return a job's cluster-wide controls as the store holds them now.
	 * @param job the job
	 * @return the controls
	 */
	JobControl controls(String job);

	/**
	 * Return operations that act for the given principal: who asked is recorded as
	 * {@code principal} instead of this node (as {@link JobControl#pausedBy()},
	 * {@link ManualRun#requestedBy()}, in the log line and in
	 * {@link ClusterSingletonControlEvent#getPrincipal()}). The Actuator endpoint and the
	 * dashboard act for the authenticated user this way.
	 * <p>
	 * The default implementation returns these operations unchanged.
	 * @param principal who asks, or {@code null} for this node
	 * @return operations acting for {@code principal}
	 */
	default ClusterSingletonOperations withPrincipal(@Nullable String principal) {
		return this;
	}

}
