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
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The cluster-wide controls of one job, as {@link JobControls#read} found them.
 *
 * @param jobName the job
 * @param paused whether the job is paused, by itself or because every job is
 * @param pausedBy who paused it, when paused
 * @param pausedAt when it was paused (store clock where the store has one), when paused
 * @param pauseReason why it was paused, when given
 * @param cronOverride the cron expression every node follows instead of the annotation's,
 * or {@code null}
 * @param pendingRuns the run-now requests not started yet, oldest first
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record JobControl(String jobName, boolean paused, @Nullable String pausedBy, @Nullable Instant pausedAt,
		@Nullable String pauseReason, @Nullable String cronOverride, List<ManualRun> pendingRuns) {

	public JobControl {
		Assert.hasText(jobName, "'jobName' must not be empty");
		pendingRuns = List.copyOf(pendingRuns);
	}

	/**
	 * Return the controls of a job without any.
	 * @param jobName the job
	 * @return the controls
	 */
	public static JobControl none(String jobName) {
		return new JobControl(jobName, false, null, null, null, null, List.of());
	}

}
