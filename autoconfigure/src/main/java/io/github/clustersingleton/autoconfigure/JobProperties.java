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

package io.github.clustersingleton.autoconfigure;

import java.time.Duration;

import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import org.jspecify.annotations.Nullable;

/**
 * Settings of one job: {@code cluster-singleton.jobs.<name>.*}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class JobProperties {

	/**
	 * Hard cap of one run's lease. If a duration suffix is not specified, milliseconds
	 * will be used.
	 */
	private @Nullable Duration lockAtMostFor;

	/**
	 * Minimum time the lease is kept after its acquisition. If a duration suffix is not
	 * specified, milliseconds will be used.
	 */
	private @Nullable Duration lockAtLeastFor;

	/**
	 * Whether the job runs on this node. A disabled job is skipped at every trigger.
	 */
	private boolean enabled = true;

	/**
	 * What happens to cron slots of this job that no node claimed: 'skip', 'run-once' or
	 * 'run-all'.
	 */
	private @Nullable MisfirePolicy misfire;

	/**
	 * How many missed slots 'run-all' runs at most (the newest).
	 */
	private @Nullable Integer misfireLimit;

	/**
	 * Whether a slot of this job whose run did not end well runs again: 'none', 'lost' or
	 * 'failed'.
	 */
	private @Nullable RecoveryPolicy recovery;

	/**
	 * How many attempts a slot gets at most under recovery, the first included.
	 */
	private @Nullable Integer maxAttempts;

	/**
	 * How long after a failed attempt the next one may start. If a duration suffix is not
	 * specified, milliseconds will be used.
	 */
	private @Nullable Duration retryDelay;

	/**
	 * How long without a successful run anywhere in the cluster makes this job overdue.
	 * If a duration suffix is not specified, milliseconds will be used.
	 */
	private @Nullable Duration alertAfter;

	/**
	 * Name of this job's lock in ShedLock's table, while
	 * cluster-singleton.shedlock.table-name is set. Defaults to the job name.
	 */
	private @Nullable String shedlockName;

	public @Nullable String getShedlockName() {
		return this.shedlockName;
	}

	public void setShedlockName(@Nullable String shedlockName) {
		this.shedlockName = shedlockName;
	}

	public @Nullable MisfirePolicy getMisfire() {
		return this.misfire;
	}

	public void setMisfire(@Nullable MisfirePolicy misfire) {
		this.misfire = misfire;
	}

	public @Nullable Integer getMisfireLimit() {
		return this.misfireLimit;
	}

	public void setMisfireLimit(@Nullable Integer misfireLimit) {
		this.misfireLimit = misfireLimit;
	}

	public @Nullable RecoveryPolicy getRecovery() {
		return this.recovery;
	}

	public void setRecovery(@Nullable RecoveryPolicy recovery) {
		this.recovery = recovery;
	}

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public @Nullable Duration getRetryDelay() {
		return this.retryDelay;
	}

	public void setRetryDelay(@Nullable Duration retryDelay) {
		this.retryDelay = retryDelay;
	}

	public @Nullable Duration getAlertAfter() {
		return this.alertAfter;
	}

	public void setAlertAfter(@Nullable Duration alertAfter) {
		this.alertAfter = alertAfter;
	}

	public @Nullable Duration getLockAtMostFor() {
		return this.lockAtMostFor;
	}

	public void setLockAtMostFor(@Nullable Duration lockAtMostFor) {
		this.lockAtMostFor = lockAtMostFor;
	}

	public @Nullable Duration getLockAtLeastFor() {
		return this.lockAtLeastFor;
	}

	public void setLockAtLeastFor(@Nullable Duration lockAtLeastFor) {
		this.lockAtLeastFor = lockAtLeastFor;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

}
