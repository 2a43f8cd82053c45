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
 * @param policy what the job's recovery and misfire policies count as pending work on its
 * row (see {@link ClaimPolicy}); {@link ClaimPolicy#NONE} for none
 * @param previousSlot for a first claim of a cron slot, the job's cron slot just before
 * {@code slot}: with {@link ClaimPolicy#catchUp()}, a row whose last claimed slot is
 * earlier has slots that no node claimed; {@code null} otherwise
 * @param recovery {@code true} for a recovery claim: no new slot ({@code slot} is
 * {@code null}), the lease is only taken over when it has expired and the row has pending
 * work under {@code policy}; the row's last slot stays
 * @param overridesPause {@code true} for a slot-less claim (with the job's policy, so
 * that a run still recorded as running keeps its recovery grace) that a pause of the job,
 * or of every job, does not refuse (see {@link JobControls}): the claim of a run-now
 * request, which the operator asked for also while paused, or of a lease that is not a
 * job's (a leader election); otherwise it is claimed as any slot-less claim
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record LeaseRequest(String jobName, String owner, String leaseToken, Duration ttl, @Nullable Instant slot,
		Duration slotTolerance, ClaimPolicy policy, @Nullable Instant previousSlot, boolean recovery,
		boolean overridesPause) {

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
		Assert.notNull(policy, "'policy' must not be null");
		Assert.isTrue(!recovery || slot == null, "A recovery claim has no slot");
		Assert.isTrue(!recovery || policy.isActive(), "A recovery claim needs a policy that recovers or catches up");
		Assert.isTrue(previousSlot == null || (slot != null && previousSlot.isBefore(slot)),
				"'previousSlot' must lie before 'slot'");
		Assert.isTrue(!overridesPause || (slot == null && !recovery),
				"A claim that overrides a pause has no slot and is no recovery claim");
	}

	/**
	 * Create a request that a pause does not override.
	 * @param jobName the job name
	 * @param owner the identity of this node
	 * @param leaseToken a random token unique to this acquisition
	 * @param ttl how long the lease lives unless renewed
	 * @param slot the cron fire time this run claims, or {@code null}
	 * @param slotTolerance how far the slot may lie ahead of the store's clock
	 * @param policy what counts as pending work
	 * @param previousSlot the cron slot before {@code slot}, or {@code null}
	 * @param recovery whether this is a recovery claim
	 */
	public LeaseRequest(String jobName, String owner, String leaseToken, Duration ttl, @Nullable Instant slot,
			Duration slotTolerance, ClaimPolicy policy, @Nullable Instant previousSlot, boolean recovery) {
		this(jobName, owner, leaseToken, ttl, slot, slotTolerance, policy, previousSlot, recovery, false);
	}

	/**
	 * Create a slot-less claim that a pause of the job, or of every job, does not refuse:
	 * for a run-now request, which runs also while paused, or for a lease that is not a
	 * job's.
	 * @param jobName the job (or lease) name
	 * @param owner the identity of this node
	 * @param leaseToken a random token unique to this acquisition
	 * @param ttl how long the lease lives unless renewed
	 * @return the request
	 */
	public static LeaseRequest overridingPause(String jobName, String owner, String leaseToken, Duration ttl) {
		return new LeaseRequest(jobName, owner, leaseToken, ttl, null, DEFAULT_SLOT_TOLERANCE, ClaimPolicy.NONE, null,
				false, true);
	}

	/**
	 * Create a first claim without recovery or catch-up.
	 * @param jobName the job name
	 * @param owner the identity of this node
	 * @param leaseToken a random token unique to this acquisition
	 * @param ttl how long the lease lives unless renewed
	 * @param slot the cron fire time this run claims, or {@code null}
	 * @param slotTolerance how far the slot may lie ahead of the store's clock
	 */
	public LeaseRequest(String jobName, String owner, String leaseToken, Duration ttl, @Nullable Instant slot,
			Duration slotTolerance) {
		this(jobName, owner, leaseToken, ttl, slot, slotTolerance, ClaimPolicy.NONE, null, false);
	}

	/**
	 * Create a recovery claim: take over a job's expired lease when its row has work
	 * pending under {@code policy}.
	 * @param jobName the job name
	 * @param owner the identity of this node
	 * @param leaseToken a random token unique to this acquisition
	 * @param ttl how long the lease lives unless renewed
	 * @param policy what counts as pending work
	 * @return the request
	 */
	public static LeaseRequest recovery(String jobName, String owner, String leaseToken, Duration ttl,
			ClaimPolicy policy) {
		return new LeaseRequest(jobName, owner, leaseToken, ttl, null, DEFAULT_SLOT_TOLERANCE, policy, null, true);
	}

	/**
	 * Return a copy of this first claim with the job's policy and the cron slot before
	 * its slot.
	 * @param policy what counts as pending work
	 * @param previousSlot the cron slot before {@code slot}, or {@code null}
	 * @return the request
	 */
	public LeaseRequest withPolicy(ClaimPolicy policy, @Nullable Instant previousSlot) {
		return new LeaseRequest(this.jobName, this.owner, this.leaseToken, this.ttl, this.slot, this.slotTolerance,
				policy, previousSlot, this.recovery, this.overridesPause);
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
	 * Return how long a recovery claim waits, after it first found an expired lease whose
	 * run is still {@link RunState#RUNNING running}, before it takes that run over: a
	 * quarter of the TTL (at least one millisecond). A completion of the run that arrives
	 * in the meantime is recorded and the run is no longer pending (see
	 * {@link LeaseBackend#completeRun}). The engine looks for pending work every third of
	 * the TTL, so the second look of any node comes after the grace.
	 * @return the grace
	 * @since 0.1.0
	 */
	public Duration recoveryGrace() {
		Duration grace = this.ttl.dividedBy(4);
		return (grace.compareTo(Duration.ofMillis(1)) < 0) ? Duration.ofMillis(1) : grace;
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
