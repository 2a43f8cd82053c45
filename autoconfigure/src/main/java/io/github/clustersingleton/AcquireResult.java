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

/**
 * Outcome of {@link LeaseBackend#tryAcquire(LeaseRequest)}.
 *
 * @param outcome whether the lease was acquired, and if not, why
 * @param fencingToken the fencing token when acquired, else {@code 0}
 * @param holder the current holder when known and the lease is held elsewhere
 * @param lastSlot the job's last claimed slot when known; after a successful claim, the
 * last claimed slot as the claim left it
 * @param run after a successful claim of a job with a {@link ClaimPolicy#isActive()
 * active policy}, the run the row records as the job's current one: the claimed slot's
 * first attempt ({@link RunState#RUNNING}, attempt 1) when nothing was pending, else the
 * earlier run the row kept, whose pending work the new holder takes over; {@code null}
 * otherwise
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record AcquireResult(Outcome outcome, long fencingToken, @Nullable String holder, @Nullable Instant lastSlot,
		@Nullable SlotRun run) {

	/**
	 * Create a result without the stored run.
	 * @param outcome whether the lease was acquired, and if not, why
	 * @param fencingToken the fencing token when acquired, else {@code 0}
	 * @param holder the current holder when known and the lease is held elsewhere
	 * @param lastSlot the job's last claimed slot when known
	 */
	public AcquireResult(Outcome outcome, long fencingToken, @Nullable String holder, @Nullable Instant lastSlot) {
		this(outcome, fencingToken, holder, lastSlot, null);
	}

	/**
	 * Return a result for an acquired lease, with the row's last slot and current run
	 * after the claim.
	 * @param fencingToken the fencing token of the acquisition
	 * @param lastSlot the job's last claimed slot after the claim
	 * @param run the run the row records as current after the claim
	 * @return the result
	 */
	public static AcquireResult acquired(long fencingToken, @Nullable Instant lastSlot, @Nullable SlotRun run) {
		return new AcquireResult(Outcome.ACQUIRED, fencingToken, null, lastSlot, run);
	}

	/**
	 * Return a result for a recovery claim that found nothing pending (or a lease that
	 * has not expired): nothing was changed.
	 * @return the result
	 */
	public static AcquireResult nothingPending() {
		return new AcquireResult(Outcome.HELD, 0, null, null, null);
	}

	/**
	 * Return a result for an acquired lease.
	 * @param fencingToken the fencing token of the acquisition
	 * @return the result
	 */
	public static AcquireResult acquired(long fencingToken) {
		return new AcquireResult(Outcome.ACQUIRED, fencingToken, null, null);
	}

	/**
	 * Return a result for a lease that another acquisition holds.
	 * @param holder the holder, if known
	 * @return the result
	 */
	public static AcquireResult held(@Nullable String holder) {
		return new AcquireResult(Outcome.HELD, 0, holder, null);
	}

	/**
	 * Return a result for a request whose slot was already claimed.
	 * @param lastSlot the job's last claimed slot
	 * @return the result
	 */
	public static AcquireResult slotDone(@Nullable Instant lastSlot) {
		return new AcquireResult(Outcome.SLOT_DONE, 0, null, lastSlot);
	}

	/**
	 * Return a result for a request whose slot lies ahead of the store's clock by more
	 * than the request's slot tolerance: the requesting node's clock runs ahead.
	 * @param lastSlot the job's last claimed slot, if known
	 * @return the result
	 */
	public static AcquireResult clockSkew(@Nullable Instant lastSlot) {
		return new AcquireResult(Outcome.CLOCK_SKEW, 0, null, lastSlot);
	}

	/**
	 * Return a result for a claim the store refused because the job is paused.
	 * @param lastSlot the job's last claimed slot, if known
	 * @return the result
	 */
	public static AcquireResult paused(@Nullable Instant lastSlot) {
		return new AcquireResult(Outcome.PAUSED, 0, null, lastSlot);
	}

	/**
	 * Return a result for a trigger skipped locally because this node is not the leader.
	 * @return the result
	 */
	public static AcquireResult notLeader() {
		return new AcquireResult(Outcome.NOT_LEADER, 0, null, null);
	}

	/**
	 * Return a result for a trigger skipped locally because another node is the job's
	 * preferred node (see {@link NodePresence}); this node looks again, a short delay
	 * later, whether that node claimed the slot.
	 * @return the result
	 * @since 0.1.0
	 */
	public static AcquireResult notPreferred() {
		return new AcquireResult(Outcome.NOT_PREFERRED, 0, null, null);
	}

	/**
	 * Classify a failed acquisition: {@link #slotDone} when the request's slot is at or
	 * before the stored one, otherwise {@link #held}.
	 * @param request the failed request
	 * @param holder the stored holder
	 * @param lastSlot the stored last slot
	 * @return the result
	 */
	public static AcquireResult notAcquired(LeaseRequest request, @Nullable String holder, @Nullable Instant lastSlot) {
		return notAcquired(request, holder, lastSlot, null);
	}

	/**
	 * Classify a failed acquisition: {@link #clockSkew} when the request's slot lies
	 * ahead of the store's time by more than its tolerance, else {@link #slotDone} when
	 * it is at or before the stored one, otherwise {@link #held}.
	 * @param request the failed request
	 * @param holder the stored holder
	 * @param lastSlot the stored last slot
	 * @param storeTime the store's time when the acquisition was refused, if known
	 * @return the result
	 */
	public static AcquireResult notAcquired(LeaseRequest request, @Nullable String holder, @Nullable Instant lastSlot,
			@Nullable Instant storeTime) {
		if (storeTime != null && request.slotAheadOf(storeTime)) {
			return clockSkew(lastSlot);
		}
		Instant slot = request.slot();
		if (slot != null && lastSlot != null && !slot.isAfter(lastSlot)) {
			return slotDone(lastSlot);
		}
		return held(holder);
	}

	/**
	 * Return whether the lease was acquired.
	 * @return {@code true} when acquired
	 */
	public boolean isAcquired() {
		return this.outcome == Outcome.ACQUIRED;
	}

	/**
	 * Why an acquisition succeeded or failed. The tag values of the
	 * {@code cluster.singleton.acquire} meter.
	 */
	public enum Outcome {

		/**
		 * The lease was acquired.
		 */
		ACQUIRED("acquired"),

		/**
		 * Another acquisition holds a live lease.
		 */
		HELD("held"),

		/**
		 * The requested cron slot was already claimed.
		 */
		SLOT_DONE("slot-done"),

		/**
		 * The requested cron slot lies ahead of the store's clock by more than the slot
		 * tolerance: this node's clock runs ahead, and the store refused to let it claim
		 * a slot that has not come yet.
		 */
		CLOCK_SKEW("clock-skew"),

		/**
		 * Leader mode is on and this node is not the leader: the trigger was skipped
		 * locally, without asking the store.
		 */
		NOT_LEADER("not-leader"),

		/**
		 * Preferred-node routing is on and another node is the job's preferred node: the
		 * trigger was skipped locally, without asking the store, and the slot is claimed
		 * here a short delay later only if that node did not claim it (see
		 * {@link NodePresence}).
		 */
		NOT_PREFERRED("not-preferred"),

		/**
		 * The job, or every job, is paused cluster-wide (see {@link JobControls}): the
		 * store refused the claim and changed nothing.
		 */
		PAUSED("paused");

		private final String tag;

		Outcome(String tag) {
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
