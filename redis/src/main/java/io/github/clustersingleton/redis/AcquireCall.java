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

package io.github.clustersingleton.redis;

import java.time.Instant;
import java.util.List;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asInstant;
import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.asText;
import static io.github.clustersingleton.redis.RedisReplies.asTime;
import static io.github.clustersingleton.redis.RedisReplies.element;
import static io.github.clustersingleton.redis.RedisReplies.flag;
import static io.github.clustersingleton.redis.RedisReplies.millis;

/**
 * A call of {@code acquire.lua}: a first or a recovery claim of a job's lease.
 *
 * @param request the acquisition
 * @param ttlMillis the TTL in milliseconds
 * @param withPauseAll whether the pause-all key and the claims index are passed, so that
 * the claim checks the pause of every job atomically and a claim of a slot records it in
 * the index (not in a Redis Cluster, where both live on other slots)
 * @param pauseAllChecked whether the caller read the pause-all key and found no pause,
 * for a job never claimed before, without the pause-all key
 * @param withClaimsIndex whether the claims index is passed too (only with the pause-all
 * key; not when the server refused the index's key to this client, see
 * {@link ClusterSlotGrouping#claimsIndex()})
 * @author cluster-singleton contributors
 */
record AcquireCall(LeaseRequest request, long ttlMillis, boolean withPauseAll, boolean pauseAllChecked,
		boolean withClaimsIndex) implements RedisScriptCall<AcquireCall.Reply>, GrantingCall {

	AcquireCall(LeaseRequest request, long ttlMillis, boolean withPauseAll, boolean pauseAllChecked) {
		this(request, ttlMillis, withPauseAll, pauseAllChecked, withPauseAll);
	}

	@Override
	public String jobName() {
		return this.request.jobName();
	}

	@Override
	public String leaseToken() {
		return this.request.leaseToken();
	}

	@Override
	public String grantName() {
		return "acquisition";
	}

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.ACQUIRE;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		if (!this.withPauseAll) {
			return keys.leaseAndMeta(this.request.jobName());
		}
		if (!this.withClaimsIndex) {
			return List.of(keys.lease(this.request.jobName()), keys.meta(this.request.jobName()), keys.controls());
		}
		return List.of(keys.lease(this.request.jobName()), keys.meta(this.request.jobName()), keys.controls(),
				keys.claims());
	}

	@Override
	public List<String> args() {
		ClaimPolicy policy = this.request.policy();
		return List.of(this.request.owner(), this.request.leaseToken(), Long.toString(this.ttlMillis),
				millis(this.request.slot()), Long.toString(this.request.slotTolerance().toMillis()),
				flag(policy.recoverLost()), flag(policy.recoverFailed()), Integer.toString(policy.maxAttempts()),
				flag(policy.catchUp()), millis(this.request.previousSlot()), flag(this.request.recovery()),
				Long.toString(this.request.recoveryGrace().toMillis()), flag(this.pauseAllChecked),
				flag(this.request.overridesPause()), this.request.jobName());
	}

	/**
	 * Decode {@code {1, fence, now[, last_slot, run_slot, attempt, run_state]}} (the run
	 * part read only under an active policy), {@code {2, last_slot, now}} (paused),
	 * {@code {3, now}} (read the pause of every job first) or {@code {0, holder,
	 * last_slot, now}}.
	 */
	@Override
	public Reply decode(List<Object> reply) {
		long outcome = asLong(element(reply, 0));
		if (outcome == 1) {
			Instant storeTime = asTime(element(reply, 2));
			long fence = asLong(element(reply, 1));
			if (!this.request.policy().isActive()) {
				return new Reply(true, false, false, fence, storeTime, null, null, null);
			}
			return new Reply(true, false, false, fence, storeTime, null, asInstant(element(reply, 3)),
					slotRun(element(reply, 4), element(reply, 5), element(reply, 6)));
		}
		if (outcome == 2) {
			return new Reply(false, true, false, 0, asTime(element(reply, 2)), null, asInstant(element(reply, 1)),
					null);
		}
		if (outcome == 3) {
			return new Reply(false, false, true, 0, asTime(element(reply, 1)), null, null, null);
		}
		return new Reply(false, false, false, 0, asTime(element(reply, 3)), asText(element(reply, 1)),
				asInstant(element(reply, 2)), null);
	}

	private static @Nullable SlotRun slotRun(@Nullable Object slot, @Nullable Object attempt, @Nullable Object state) {
		Instant runSlot = asInstant(slot);
		String runState = asText(state);
		if (runSlot == null || runState == null) {
			return null;
		}
		return new SlotRun(runSlot, (int) asLong(attempt), RunState.fromValue(runState));
	}

	/**
	 * The reply of {@code acquire.lua}.
	 *
	 * @param acquired whether the lease was acquired
	 * @param paused whether the claim was refused because the job is paused
	 * @param checkPauseAll whether the caller must read the pause of every job and ask
	 * again
	 * @param fence the fencing token of the acquisition (0 when not acquired)
	 * @param storeTime the server's clock
	 * @param holder who holds the lease, when not acquired
	 * @param lastSlot the job's last claimed slot (when acquired, only under an active
	 * policy)
	 * @param run the job's current run, when acquired under an active policy
	 */
	record Reply(boolean acquired, boolean paused, boolean checkPauseAll, long fence, @Nullable Instant storeTime,
			@Nullable String holder, @Nullable Instant lastSlot, @Nullable SlotRun run) {

	}

}
