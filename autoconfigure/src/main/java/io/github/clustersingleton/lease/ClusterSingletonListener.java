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
import java.time.Instant;
import java.util.Collection;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import org.jspecify.annotations.Nullable;

/**
 * Callbacks of the lease engine, for metrics, run history and tests. Every method has an
 * empty default; implementations must be fast and must not throw (exceptions are logged
 * and ignored).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface ClusterSingletonListener {

	/**
	 * Called after each acquisition attempt that reached the store.
	 * @param job the job
	 * @param slot the slot requested, if any
	 * @param result the outcome
	 * @param duration how long the attempt took
	 */
	default void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result, Duration duration) {
	}

	/**
	 * Called when an acquisition attempt failed because the store could not be reached or
	 * answered with an error; the run was skipped.
	 * @param job the job
	 * @param slot the slot requested, if any
	 * @param error the error
	 * @param duration how long the attempt took
	 */
	default void acquireFailed(JobDefinition job, @Nullable Instant slot, Throwable error, Duration duration) {
	}

	/**
	 * Called when a guarded run ends.
	 * @param job the job
	 * @param lease the lease the run held
	 * @param outcome how the run ended
	 * @param startedAt when the run started (from the engine's clock)
	 * @param duration how long the run took
	 * @param error the exception the run threw, if any
	 */
	default void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
			Duration duration, @Nullable Throwable error) {
	}

	/**
	 * Called after each batched renewal round trip.
	 * @param leases the leases the watchdog tried to renew
	 * @param renewed how many of them the store renewed
	 * @param duration how long the round trip took
	 * @param error the error when the round trip failed, else {@code null}
	 */
	default void renewalAttempted(Collection<HeldLease> leases, int renewed, Duration duration,
			@Nullable Throwable error) {
	}

	/**
	 * Called once when a running job loses its lease.
	 * @param job the job
	 * @param lease the lost lease
	 * @param reason why it was lost
	 */
	default void leaseLost(JobDefinition job, HeldLease lease, String reason) {
	}

	/**
	 * How a guarded run ended. The tag values of {@code cluster.singleton.execution}.
	 */
	enum RunOutcome {

		/**
		 * The method returned normally while holding its lease.
		 */
		SUCCESS("success"),

		/**
		 * The method threw while holding its lease.
		 */
		FAILURE("failure"),

		/**
		 * The lease was lost while the method ran.
		 */
		LEASE_LOST("lease-lost");

		private final String tag;

		RunOutcome(String tag) {
			this.tag = tag;
		}

		/**
		 * Return the metric tag value of this outcome.
		 * @return the tag value
		 */
		public String tag() {
			return this.tag;
		}

	}

}
