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

package io.github.clustersingleton.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * The most recent runs of the demo jobs on this node, kept in memory so that tests (and
 * curious readers in a debugger) can check what ran.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class RunLog {

	private static final int CAPACITY = 1000;

	private final Deque<Run> runs = new ArrayDeque<>();

	/**
	 * Record a finished run, dropping the oldest one beyond a thousand.
	 * @param run the run
	 */
	public synchronized void add(Run run) {
		if (this.runs.size() == CAPACITY) {
			this.runs.removeFirst();
		}
		this.runs.addLast(run);
	}

	/**
	 * Return the recorded runs of a job, oldest first.
	 * @param job the job name
	 * @return the runs
	 */
	public synchronized List<Run> runs(String job) {
		return this.runs.stream().filter((run) -> run.job().equals(job)).toList();
	}

	/**
	 * One finished run of a job on this node.
	 *
	 * @param job the job name
	 * @param node the name of this node
	 * @param slot the cron fire time the run owned, or {@code null} for a slotless run
	 * @param fencingToken the fencing token of the run's lease
	 * @param startedAt when the run started
	 * @param duration how long it ran
	 * @param leaseValid whether the lease was still held when the run ended
	 */
	public record Run(String job, String node, @Nullable Instant slot, long fencingToken, Instant startedAt,
			Duration duration, boolean leaseValid) {

	}

}
