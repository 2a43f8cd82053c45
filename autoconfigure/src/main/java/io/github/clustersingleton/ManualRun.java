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
 * A run-now request of a job: stored cluster-wide, run once by one node under the job's
 * lease, with trigger {@link RunTrigger#MANUAL}.
 *
 * @param id the request's id, unique within the job
 * @param jobName the job
 * @param requestedBy who asked
 * @param requestedAt when (store clock where the store has one)
 * @param state where the request is
 * @param owner the node that runs or ran it, once started
 * @param fencingToken the fencing token of its run, once started, else {@code 0}
 * @param finishedAt when it ended, once ended
 * @param error what went wrong, when it failed
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record ManualRun(String id, String jobName, String requestedBy, Instant requestedAt, State state,
		@Nullable String owner, long fencingToken, @Nullable Instant finishedAt, @Nullable String error) {

	public ManualRun {
		Assert.hasText(id, "'id' must not be empty");
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestedBy, "'requestedBy' must not be empty");
		Assert.notNull(requestedAt, "'requestedAt' must not be null");
		Assert.notNull(state, "'state' must not be null");
		if (error != null && error.length() > RunRecord.MAX_ERROR_LENGTH) {
			error = error.substring(0, RunRecord.MAX_ERROR_LENGTH);
		}
	}

	/**
	 * Where a run-now request is.
	 */
	public enum State {

		/**
		 * Stored, not started by any node yet.
		 */
		PENDING,

		/**
		 * Started by a node, under the job's lease.
		 */
		RUNNING,

		/**
		 * Ran and returned normally.
		 */
		SUCCEEDED,

		/**
		 * Ran and threw, lost its lease, or its node died while running it.
		 */
		FAILED;

		/**
		 * Return whether the request has ended.
		 * @return {@code true} for {@link #SUCCEEDED} and {@link #FAILED}
		 */
		public boolean isEnded() {
			return this == SUCCEEDED || this == FAILED;
		}

	}

}
