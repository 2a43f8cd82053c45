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

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * SPI of the cluster-wide controls a lease store keeps next to its leases: pause and
 * resume, run-now requests and cron overrides. Returned by
 * {@link LeaseBackend#controls()} when the store supports them.
 * <p>
 * Every method may throw any {@link RuntimeException} when the store cannot be reached; a
 * write that throws has changed nothing or is safe to repeat. Every method is called from
 * several threads and nodes at once.
 * <p>
 * Contract shared by all implementations (checked by the contract test suite):
 * <ul>
 * <li>A paused job, or any job while every job is paused, is not claimed:
 * {@link LeaseBackend#tryAcquire} refuses a first claim (with or without a slot) or a
 * recovery claim of it with {@link AcquireResult.Outcome#PAUSED}, atomically with the
 * pause (a claim that the store serialises after the pause is refused, whatever the
 * claiming node believes), and changes nothing: the last claimed slot does not move, a
 * job the store has not seen gets no row. Only a claim that
 * {@link LeaseRequest#overridesPause() overrides the pause} (a run-now request's) is not
 * refused for it. {@link LeaseBackend#startRun} is refused while the job is paused, and,
 * after a resume without catch-up, for a slot before the resume.</li>
 * <li>{@link #resume} without catch-up moves the job's last claimed slot to the store's
 * clock, so that the slots that passed while it was paused are not run, recovered or
 * caught up; with catch-up it leaves the slot where it was and the job's misfire policy
 * decides at the next trigger.</li>
 * <li>A run-now request moves from {@link ManualRun.State#PENDING} to
 * {@link ManualRun.State#RUNNING} once, by {@link #startManualRun}, and only for a caller
 * holding the job's live lease, so it runs on one node, once, and never beside a
 * scheduled run. A run-now request is started also while the job is paused (under a lease
 * claimed with {@link LeaseRequest#overridingPause}): the operator asked for it.</li>
 * <li>A cron override is stored as given; the store does not parse it.</li>
 * </ul>
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface JobControls {

	/**
	 * Read the controls of the given jobs, and whether every job is paused, in one round
	 * trip where the store allows.
	 * @param jobNames the jobs to read
	 * @return the controls of every job in {@code jobNames} (a job without any stored
	 * control maps to {@link JobControl#none(String)}, or to a paused one while every job
	 * is paused)
	 */
	Map<String, JobControl> read(Collection<String> jobNames);

	/**
	 * Pause a job, or every job, cluster-wide: from now on the store refuses its claims.
	 * Pausing a paused job replaces who paused it, when and why.
	 * @param jobName the job, or {@code null} for every job, including jobs the store has
	 * not seen yet
	 * @param pausedBy who paused it (the principal, else the node)
	 * @param reason why, or {@code null}
	 */
	void pause(@Nullable String jobName, String pausedBy, @Nullable String reason);

	/**
	 * Resume a job, or every job. Resuming every job also resumes the jobs paused one by
	 * one. Resuming a job that is not paused changes nothing.
	 * @param jobName the job, or {@code null} for every job
	 * @param catchUp whether the slots that passed while paused are left to the job's
	 * misfire policy ({@code true}) or skipped ({@code false})
	 */
	void resume(@Nullable String jobName, boolean catchUp);

	/**
	 * Store or clear a job's cron override.
	 * @param jobName the job
	 * @param cron the cron expression every node's trigger follows instead of the
	 * annotation's, or {@code null} to clear the override
	 */
	void reschedule(String jobName, @Nullable String cron);

	/**
	 * Store a run-now request of a job.
	 * @param jobName the job
	 * @param requestedBy who asked (the principal, else the node)
	 * @return the request, {@link ManualRun.State#PENDING pending}, with its id
	 */
	ManualRun requestRun(String jobName, String requestedBy);

	/**
	 * Start a pending run-now request: atomically, if it is still
	 * {@link ManualRun.State#PENDING pending}, make it {@link ManualRun.State#RUNNING
	 * running} on {@code owner} with {@code fencingToken}. The caller holds the job's
	 * live lease with that fencing token.
	 * @param jobName the job
	 * @param requestId the request's id
	 * @param owner the node that runs it
	 * @param fencingToken the fencing token of the caller's lease
	 * @return whether the request was started by this call
	 */
	boolean startManualRun(String jobName, String requestId, String owner, long fencingToken);

	/**
	 * Record how a started run-now request ended. Only a {@link ManualRun.State#RUNNING
	 * running} request is changed.
	 * @param jobName the job
	 * @param requestId the request's id
	 * @param state {@link ManualRun.State#SUCCEEDED} or {@link ManualRun.State#FAILED}
	 * @param error what went wrong, or {@code null}
	 */
	void finishManualRun(String jobName, String requestId, ManualRun.State state, @Nullable String error);

	/**
	 * Return a run-now request.
	 * @param jobName the job
	 * @param requestId the request's id
	 * @return the request, or empty when the store does not know it (any more)
	 */
	Optional<ManualRun> manualRun(String jobName, String requestId);

	/**
	 * Return a job's run-now requests, pending ones and the most recent ended ones,
	 * newest first.
	 * @param jobName the job
	 * @param limit how many at most
	 * @return the requests
	 */
	List<ManualRun> manualRuns(String jobName, int limit);

}
