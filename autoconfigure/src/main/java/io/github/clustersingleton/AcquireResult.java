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
 * @param lastSlot the job's last claimed slot when known
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record AcquireResult(Outcome outcome, long fencingToken, @Nullable String holder, @Nullable Instant lastSlot) {

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
	 * Return a result for a trigger skipped locally because this node is not the leader.
	 * @return the result
	 */
	public static AcquireResult notLeader() {
		return new AcquireResult(Outcome.NOT_LEADER, 0, null, null);
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
		NOT_LEADER("not-leader");

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
