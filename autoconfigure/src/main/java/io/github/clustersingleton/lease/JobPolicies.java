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
import java.util.HashMap;
import java.util.Map;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A job's policies for slots that were missed or whose run did not end well, and for
 * telling when it is overdue.
 *
 * @param misfire what happens to cron slots that no node claimed
 * @param misfireLimit how many missed slots {@link MisfirePolicy#RUN_ALL} runs at most
 * @param recovery whether a run that died, lost its lease or failed runs again
 * @param maxAttempts how many attempts a slot gets at most, the first included
 * @param retryDelay how long after a failed attempt the next one may start
 * @param alertAfter how long without a successful run anywhere in the cluster makes the
 * job overdue, or {@code null} for never
 * @param origins where the policies that are switched on were set, by policy name
 * ({@value #MISFIRE}, {@value #RECOVERY}, {@value #ALERT_AFTER}): the property or
 * annotation attribute, for messages; only a misfire policy other than
 * {@link MisfirePolicy#SKIP skip}, a recovery policy other than
 * {@link RecoveryPolicy#NONE none}, and an alert-after that was set (not one derived from
 * the job's trigger) have one
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record JobPolicies(MisfirePolicy misfire, int misfireLimit, RecoveryPolicy recovery, int maxAttempts,
		Duration retryDelay, @Nullable Duration alertAfter, Map<String, String> origins) {

	/**
	 * The name of the misfire policy in {@link #origins()}.
	 */
	public static final String MISFIRE = "misfire";

	/**
	 * The name of the recovery policy in {@link #origins()}.
	 */
	public static final String RECOVERY = "recovery";

	/**
	 * The name of the alert-after in {@link #origins()}.
	 */
	public static final String ALERT_AFTER = "alert-after";

	/**
	 * The defaults: missed slots skipped, no recovery, never overdue.
	 */
	public static final JobPolicies DEFAULT = new JobPolicies(MisfirePolicy.SKIP, 10, RecoveryPolicy.NONE, 3,
			Duration.ofSeconds(10), null);

	public JobPolicies {
		Assert.notNull(misfire, "'misfire' must not be null");
		Assert.isTrue(misfireLimit >= 1, "'misfireLimit' must be at least 1");
		Assert.notNull(recovery, "'recovery' must not be null");
		Assert.isTrue(maxAttempts >= 1, "'maxAttempts' must be at least 1");
		Assert.isTrue(retryDelay != null && !retryDelay.isNegative(), "'retryDelay' must not be negative");
		origins = (origins != null) ? Map.copyOf(origins) : Map.of();
	}

	/**
	 * Create policies without origins.
	 * @param misfire what happens to cron slots that no node claimed
	 * @param misfireLimit how many missed slots {@link MisfirePolicy#RUN_ALL} runs at
	 * most
	 * @param recovery whether a run that died, lost its lease or failed runs again
	 * @param maxAttempts how many attempts a slot gets at most, the first included
	 * @param retryDelay how long after a failed attempt the next one may start
	 * @param alertAfter how long without a successful run anywhere in the cluster makes
	 * the job overdue, or {@code null} for never
	 */
	public JobPolicies(MisfirePolicy misfire, int misfireLimit, RecoveryPolicy recovery, int maxAttempts,
			Duration retryDelay, @Nullable Duration alertAfter) {
		this(misfire, misfireLimit, recovery, maxAttempts, retryDelay, alertAfter, Map.of());
	}

	/**
	 * Return what these policies ask of the store at each claim.
	 * @return the claim policy
	 */
	public ClaimPolicy claimPolicy() {
		if (this.recovery == RecoveryPolicy.NONE && this.misfire == MisfirePolicy.SKIP) {
			return ClaimPolicy.NONE;
		}
		return new ClaimPolicy(this.recovery != RecoveryPolicy.NONE, this.recovery == RecoveryPolicy.FAILED,
				this.maxAttempts, this.misfire != MisfirePolicy.SKIP);
	}

	/**
	 * Return a copy with another alert-after.
	 * @param alertAfter the new value, or {@code null} for never
	 * @return the copy
	 */
	public JobPolicies withAlertAfter(@Nullable Duration alertAfter) {
		Map<String, String> origins = new HashMap<>(this.origins);
		origins.remove(ALERT_AFTER);
		return new JobPolicies(this.misfire, this.misfireLimit, this.recovery, this.maxAttempts, this.retryDelay,
				alertAfter, origins);
	}

	/**
	 * Return where a policy that is switched on was set.
	 * @param policy {@value #MISFIRE}, {@value #RECOVERY} or {@value #ALERT_AFTER}
	 * @return the property or annotation attribute, or {@code null} when the policy is
	 * off or was not set
	 */
	public @Nullable String origin(String policy) {
		return this.origins.get(policy);
	}

}
