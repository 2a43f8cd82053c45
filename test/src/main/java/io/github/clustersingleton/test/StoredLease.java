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

package io.github.clustersingleton.test;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import org.jspecify.annotations.Nullable;

/**
 * The stored state of one job in an {@link InMemoryLeaseBackend}, as a row of the JDBC
 * backend's table; guarded by the backend's lock.
 *
 * @author cluster-singleton contributors
 */
final class StoredLease {

	String owner;

	/**
	 * The token of the acquisition that holds the lease; {@code null} once released or
	 * force-released.
	 */
	@Nullable String leaseToken;

	Instant acquiredAt;

	Instant expiresAt;

	long fencingToken;

	@Nullable Instant lastSlot;

	/** The slot of the current run; {@code null} until a claim with a policy. */
	@Nullable Instant runSlot;

	int attempt;

	RunState runState = RunState.RUNNING;

	/** For a failed run, from when a recovery claim may take it. */
	@Nullable Instant retryAt;

	/**
	 * The lease token of the claim that took the job last, which a completion of the
	 * current run must carry; kept when the lease is released or expires.
	 */
	String runToken;

	/**
	 * For a run still recorded as running on an expired lease, from when a claim may take
	 * it over (set by the first recovery claim that found it).
	 */
	@Nullable Instant recoverAt;

	StoredLease(LeaseRequest request, Instant now) {
		this.owner = request.owner();
		this.leaseToken = request.leaseToken();
		this.runToken = request.leaseToken();
		this.acquiredAt = now;
		this.expiresAt = plus(now, request.ttl());
		this.fencingToken = 1;
		this.lastSlot = request.slot();
	}

	void takeOver(LeaseRequest request, Instant now) {
		this.owner = request.owner();
		this.leaseToken = request.leaseToken();
		this.runToken = request.leaseToken();
		this.recoverAt = null;
		this.acquiredAt = now;
		this.expiresAt = plus(now, request.ttl());
		this.fencingToken++;
		if (request.slot() != null) {
			this.lastSlot = request.slot();
		}
	}

	boolean isLive(Instant now) {
		return this.expiresAt.isAfter(now);
	}

	void startRun(Instant slot, int attempt) {
		this.runSlot = slot;
		this.attempt = attempt;
		this.runState = RunState.RUNNING;
		this.retryAt = null;
		this.recoverAt = null;
	}

	/**
	 * Whether a claim must not take the current run over yet: it is still recorded as
	 * running, the policy would run it again, and no recovery claim marked it at least
	 * the grace ago.
	 */
	boolean awaitsGrace(ClaimPolicy policy, Instant now) {
		SlotRun run = run();
		return run != null && policy.needsRecoveryGrace(run) && (this.recoverAt == null || this.recoverAt.isAfter(now));
	}

	@Nullable SlotRun run() {
		return (this.runSlot != null) ? new SlotRun(this.runSlot, this.attempt, this.runState) : null;
	}

	/**
	 * Whether the row has work pending under a policy, judged on the row as it is before
	 * a claim.
	 * @param policy the job's policy
	 * @param previousSlot the request's previous slot (first claims only)
	 * @param firstClaim whether the claim is a first claim (a failed run is taken over at
	 * once, and unclaimed slots count)
	 * @param now the store's time
	 */
	boolean isPending(ClaimPolicy policy, @Nullable Instant previousSlot, boolean firstClaim, Instant now) {
		if (this.runSlot == null) {
			return false;
		}
		boolean retryDue = firstClaim || this.retryAt == null || !this.retryAt.isAfter(now);
		return policy.isPending(new SlotRun(this.runSlot, this.attempt, this.runState), this.lastSlot, retryDue,
				firstClaim ? previousSlot : null);
	}

	boolean isHeldBy(String leaseToken, Instant now) {
		return leaseToken.equals(this.leaseToken) && isLive(now);
	}

	/**
	 * Add a duration to an instant, saturating at {@link Instant#MAX}.
	 */
	static Instant plus(Instant instant, Duration duration) {
		try {
			return instant.plus(duration);
		}
		catch (DateTimeException | ArithmeticException ex) {
			return Instant.MAX;
		}
	}

	/**
	 * Free a live lease, keeping its fencing token and last slot.
	 * @return whether it was live
	 */
	boolean forceRelease(Instant now) {
		if (!isLive(now)) {
			return false;
		}
		this.expiresAt = now;
		this.leaseToken = null;
		return true;
	}

	/**
	 * Move the stored times back by {@code duration} (acquisition, expiry, recovery mark,
	 * retry time).
	 */
	void backdate(Duration duration) {
		this.acquiredAt = this.acquiredAt.minus(duration);
		this.expiresAt = this.expiresAt.minus(duration);
		this.recoverAt = (this.recoverAt != null) ? this.recoverAt.minus(duration) : null;
		this.retryAt = (this.retryAt != null) ? this.retryAt.minus(duration) : null;
	}

}
