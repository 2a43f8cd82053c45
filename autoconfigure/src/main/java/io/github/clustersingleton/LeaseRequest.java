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
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A request to acquire the lease of a job.
 *
 * @param jobName the job name
 * @param owner the identity of this node
 * @param leaseToken a random token unique to this acquisition; renewals and releases only
 * touch a lease carrying it
 * @param ttl how long the lease lives unless renewed, judged by the store's clock
 * @param slot the cron fire time this run claims, or {@code null} when the run has no
 * slot
 * @param slotTolerance how far the slot may lie ahead of the store's clock; a request
 * whose slot is later than the store's time plus this is refused with
 * {@link AcquireResult.Outcome#CLOCK_SKEW} (the requesting node's clock runs ahead)
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record LeaseRequest(String jobName, String owner, String leaseToken, Duration ttl, @Nullable Instant slot,
		Duration slotTolerance) {

	/**
	 * The slot tolerance of a request that does not name one: the default of
	 * {@code cluster-singleton.slot-tolerance}.
	 */
	public static final Duration DEFAULT_SLOT_TOLERANCE = Duration.ofSeconds(1);

	public LeaseRequest {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.hasText(leaseToken, "'leaseToken' must not be empty");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		Assert.isTrue(slotTolerance != null && !slotTolerance.isNegative(), "'slotTolerance' must not be negative");
	}

	/**
	 * Create a request with the {@link #DEFAULT_SLOT_TOLERANCE default slot tolerance}.
	 * @param jobName the job name
	 * @param owner the identity of this node
	 * @param leaseToken a random token unique to this acquisition
	 * @param ttl how long the lease lives unless renewed
	 * @param slot the cron fire time this run claims, or {@code null}
	 */
	public LeaseRequest(String jobName, String owner, String leaseToken, Duration ttl, @Nullable Instant slot) {
		this(jobName, owner, leaseToken, ttl, slot, DEFAULT_SLOT_TOLERANCE);
	}

	/**
	 * Return whether the slot lies too far ahead of the given store time to be claimed.
	 * @param storeTime the store's current time
	 * @return {@code true} when the request has a slot later than {@code storeTime} plus
	 * the slot tolerance
	 */
	public boolean slotAheadOf(Instant storeTime) {
		return this.slot != null && this.slot.isAfter(storeTime.plus(this.slotTolerance));
	}

}
