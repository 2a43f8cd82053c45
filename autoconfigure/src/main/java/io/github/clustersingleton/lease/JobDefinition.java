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

package io.github.clustersingleton.lease;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A resolved {@code @ClusterSingleton} job: its name and settings after defaults,
 * annotation attributes and {@code cluster-singleton.jobs.<name>.*} properties were
 * applied and validated.
 *
 * @param name the job name, the key of its lease
 * @param lockAtMostFor the hard cap of one run's lease
 * @param lockAtLeastFor how long after acquisition a lease is kept when the run ends
 * earlier
 * @param enabled whether the job runs on this node at all
 * @param schedule the cron schedule whose fire times are the job's slots, or {@code null}
 * when the method is not cron-triggered
 * @param source where the job is declared, for messages
 * @param policies the job's misfire, recovery and overdue policies
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record JobDefinition(String name, Duration lockAtMostFor, Duration lockAtLeastFor, boolean enabled,
		@Nullable CronSlotSchedule schedule, String source, JobPolicies policies) {

	public JobDefinition {
		Assert.hasText(name, "'name' must not be empty");
		Assert.notNull(lockAtMostFor, "'lockAtMostFor' must not be null");
		Assert.notNull(lockAtLeastFor, "'lockAtLeastFor' must not be null");
		Assert.notNull(source, "'source' must not be null");
		Assert.notNull(policies, "'policies' must not be null");
	}

	/**
	 * Create a job definition with the {@link JobPolicies#DEFAULT default policies}.
	 * @param name the job name
	 * @param lockAtMostFor the hard cap of one run's lease
	 * @param lockAtLeastFor the minimum lease time of one run
	 * @param enabled whether the job runs on this node
	 * @param schedule the cron schedule, or {@code null}
	 * @param source where the job is declared
	 */
	public JobDefinition(String name, Duration lockAtMostFor, Duration lockAtLeastFor, boolean enabled,
			@Nullable CronSlotSchedule schedule, String source) {
		this(name, lockAtMostFor, lockAtLeastFor, enabled, schedule, source, JobPolicies.DEFAULT);
	}

	/**
	 * Return a copy of this definition with the given policies.
	 * @param policies the policies
	 * @return the new definition
	 */
	public JobDefinition withPolicies(JobPolicies policies) {
		return new JobDefinition(this.name, this.lockAtMostFor, this.lockAtLeastFor, this.enabled, this.schedule,
				this.source, policies);
	}

	/**
	 * Create an enabled job definition without a cron schedule, for programmatic use and
	 * tests.
	 * @param name the job name
	 * @param lockAtMostFor the hard cap of one run's lease
	 * @param lockAtLeastFor the minimum lease time of one run
	 * @return the job definition
	 */
	public static JobDefinition of(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new JobDefinition(name, lockAtMostFor, lockAtLeastFor, true, null, name);
	}

	/**
	 * Return a copy of this definition with the given cron schedule.
	 * @param schedule the schedule
	 * @return the new definition
	 */
	public JobDefinition withSchedule(@Nullable CronSlotSchedule schedule) {
		return new JobDefinition(this.name, this.lockAtMostFor, this.lockAtLeastFor, this.enabled, schedule,
				this.source, this.policies);
	}

}
