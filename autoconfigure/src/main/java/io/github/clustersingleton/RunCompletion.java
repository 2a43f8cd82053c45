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

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How a run ended, as {@link LeaseBackend#release(HeldLease, Duration, RunCompletion)}
 * records it on the job's row.
 *
 * @param state {@link RunState#SUCCEEDED} or {@link RunState#FAILED}, or {@code null} to
 * leave the stored run state as it is (a lease that no run used)
 * @param retryDelay for a failed run, how long after the release (store clock) another
 * attempt may be claimed
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record RunCompletion(@Nullable RunState state, Duration retryDelay) {

	private static final RunCompletion NONE = new RunCompletion(null, Duration.ZERO);

	private static final RunCompletion SUCCEEDED = new RunCompletion(RunState.SUCCEEDED, Duration.ZERO);

	public RunCompletion {
		Assert.isTrue(state == null || state == RunState.SUCCEEDED || state == RunState.FAILED,
				"'state' must be SUCCEEDED, FAILED or null");
		Assert.isTrue(retryDelay != null && !retryDelay.isNegative(), "'retryDelay' must not be negative");
	}

	/**
	 * Return the completion of a run that succeeded.
	 * @return the completion
	 */
	public static RunCompletion succeeded() {
		return SUCCEEDED;
	}

	/**
	 * Return the completion of a run that threw.
	 * @param retryDelay how long until another attempt may be claimed
	 * @return the completion
	 */
	public static RunCompletion failed(Duration retryDelay) {
		return new RunCompletion(RunState.FAILED, retryDelay);
	}

	/**
	 * Return the completion of a lease that no run used: the stored run state stays.
	 * @return the completion
	 */
	public static RunCompletion none() {
		return NONE;
	}

}
