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

package io.github.clustersingleton.aop;

import java.time.Duration;
import java.util.function.Function;

import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.lease.JobPolicies;
import org.jspecify.annotations.Nullable;

/**
 * The configured defaults and per-job overrides that {@link JobDefinitionFactory}
 * resolves jobs against.
 *
 * @param lockAtMostFor {@code cluster-singleton.default-lock-at-most-for}
 * @param lockAtLeastFor {@code cluster-singleton.default-lock-at-least-for}
 * @param leaseTtl {@code cluster-singleton.lease-ttl}
 * @param policies the {@code cluster-singleton.default-*} policies (misfire, recovery,
 * overdue); an alert-after of {@code null} means two periods of the job's trigger
 * @param overrides the {@code cluster-singleton.jobs.<name>} entry of a job name, or
 * {@code null}
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record JobDefaults(Duration lockAtMostFor, Duration lockAtLeastFor, Duration leaseTtl,
		Function<String, @Nullable JobOverride> overrides, JobPolicies policies) {

	/**
	 * Create defaults with the {@link JobPolicies#DEFAULT default policies}.
	 * @param lockAtMostFor the default lockAtMostFor
	 * @param lockAtLeastFor the default lockAtLeastFor
	 * @param leaseTtl the lease TTL
	 * @param overrides the per-job overrides by job name
	 */
	public JobDefaults(Duration lockAtMostFor, Duration lockAtLeastFor, Duration leaseTtl,
			Function<String, @Nullable JobOverride> overrides) {
		this(lockAtMostFor, lockAtLeastFor, leaseTtl, overrides, JobPolicies.DEFAULT);
	}

	/**
	 * A {@code cluster-singleton.jobs.<name>} entry.
	 *
	 * @param key the map key the entry was bound under, for messages
	 * @param lockAtMostFor the overriding lockAtMostFor, if set
	 * @param lockAtLeastFor the overriding lockAtLeastFor, if set
	 * @param enabled whether the job runs on this node
	 * @param misfire the overriding misfire policy, if set
	 * @param misfireLimit the overriding misfire limit, if set
	 * @param recovery the overriding recovery policy, if set
	 * @param maxAttempts the overriding attempt limit, if set
	 * @param retryDelay the overriding retry delay, if set
	 * @param alertAfter the overriding overdue threshold, if set
	 */
	public record JobOverride(String key, @Nullable Duration lockAtMostFor, @Nullable Duration lockAtLeastFor,
			boolean enabled, @Nullable MisfirePolicy misfire, @Nullable Integer misfireLimit,
			@Nullable RecoveryPolicy recovery, @Nullable Integer maxAttempts, @Nullable Duration retryDelay,
			@Nullable Duration alertAfter) {

		/**
		 * Create an override of the lease settings only.
		 * @param key the property key of the job
		 * @param lockAtMostFor the lockAtMostFor, or {@code null}
		 * @param lockAtLeastFor the lockAtLeastFor, or {@code null}
		 * @param enabled whether the job runs on this node
		 */
		public JobOverride(String key, @Nullable Duration lockAtMostFor, @Nullable Duration lockAtLeastFor,
				boolean enabled) {
			this(key, lockAtMostFor, lockAtLeastFor, enabled, null, null, null, null, null, null);
		}

	}

}
