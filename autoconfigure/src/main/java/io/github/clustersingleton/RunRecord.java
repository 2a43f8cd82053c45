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

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * One attempt of one job in the cluster-wide run ledger.
 *
 * @param jobName the job name
 * @param slot the cron slot of the run, or {@code null} for a run without one
 * @param attempt the attempt of the slot, 1 for its first run
 * @param fencingToken the fencing token of the run, unique per job: the ledger's key
 * @param owner the node that ran it
 * @param trigger why the run started
 * @param state how it went ({@link RunState#RUNNING} until it ends)
 * @param startedAt when it started (the running node's clock)
 * @param finishedAt when it ended, or {@code null} while running or when it died
 * @param error a one-line summary of what a failed run threw, or {@code null}
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record RunRecord(String jobName, @Nullable Instant slot, int attempt, long fencingToken, String owner,
		RunTrigger trigger, RunState state, Instant startedAt, @Nullable Instant finishedAt, @Nullable String error) {

	/**
	 * The longest error summary a ledger keeps; longer ones are cut.
	 */
	public static final int MAX_ERROR_LENGTH = 500;

	public RunRecord {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.notNull(trigger, "'trigger' must not be null");
		Assert.notNull(state, "'state' must not be null");
		Assert.notNull(startedAt, "'startedAt' must not be null");
		if (error != null && error.length() > MAX_ERROR_LENGTH) {
			error = error.substring(0, MAX_ERROR_LENGTH);
		}
	}

	/**
	 * Return a copy of this record that ended.
	 * @param state how it ended
	 * @param finishedAt when
	 * @param error the error summary, or {@code null}
	 * @return the ended record
	 */
	public RunRecord finish(RunState state, @Nullable Instant finishedAt, @Nullable String error) {
		return new RunRecord(this.jobName, this.slot, this.attempt, this.fencingToken, this.owner, this.trigger, state,
				this.startedAt, finishedAt, error);
	}

}
