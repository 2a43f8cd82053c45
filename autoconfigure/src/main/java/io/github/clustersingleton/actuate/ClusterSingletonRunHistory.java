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

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link ClusterSingletonListener} that keeps the last runs of each job on this node in
 * memory, for the {@link ClusterSingletonEndpoint endpoint}. Only runs are kept (triggers
 * that got the lease), not skipped triggers; the history is bounded per job and lost on
 * restart.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonRunHistory implements ClusterSingletonListener {

	/**
	 * How many runs are kept per job by default.
	 */
	public static final int DEFAULT_CAPACITY = 20;

	private static final int MAX_ERROR_LENGTH = 300;

	private final int capacity;

	private final Map<String, Deque<Run>> runs = new ConcurrentHashMap<>();

	/**
	 * Create a history keeping the last {@value #DEFAULT_CAPACITY} runs per job.
	 */
	public ClusterSingletonRunHistory() {
		this(DEFAULT_CAPACITY);
	}

	/**
	 * Create a history.
	 * @param capacity how many runs to keep per job
	 */
	public ClusterSingletonRunHistory(int capacity) {
		Assert.isTrue(capacity > 0, "'capacity' must be positive");
		this.capacity = capacity;
	}

	@Override
	public void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
			Duration duration, @Nullable Throwable error) {
		Run run = new Run(startedAt, duration, outcome.tag(), lease.slot(), lease.fencingToken(), describe(error));
		Deque<Run> jobRuns = this.runs.computeIfAbsent(job.name(), (name) -> new ArrayDeque<>(this.capacity));
		synchronized (jobRuns) {
			if (jobRuns.size() == this.capacity) {
				jobRuns.removeLast();
			}
			jobRuns.addFirst(run);
		}
	}

	/**
	 * Return the last runs of a job on this node, newest first.
	 * @param jobName the job name
	 * @return the runs, empty when the job has not run here
	 */
	public List<Run> runs(String jobName) {
		Deque<Run> jobRuns = this.runs.get(jobName);
		if (jobRuns == null) {
			return List.of();
		}
		synchronized (jobRuns) {
			return List.copyOf(new ArrayList<>(jobRuns));
		}
	}

	private static @Nullable String describe(@Nullable Throwable error) {
		if (error == null) {
			return null;
		}
		String description = error.getClass().getName()
				+ ((error.getMessage() != null) ? ": " + error.getMessage() : "");
		return (description.length() <= MAX_ERROR_LENGTH) ? description
				: description.substring(0, MAX_ERROR_LENGTH - 3) + "...";
	}

	/**
	 * One run of a job on this node.
	 *
	 * @param startedAt when the run started (the engine's clock)
	 * @param duration how long it ran
	 * @param outcome {@code success}, {@code failure} or {@code lease-lost}
	 * @param slot the cron slot it claimed, if any
	 * @param fencingToken the fencing token of its lease
	 * @param error the exception it threw, class and message, if any
	 */
	public record Run(Instant startedAt, Duration duration, String outcome, @Nullable Instant slot, long fencingToken,
			@Nullable String error) {

	}

}
