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

package io.github.clustersingleton.kubernetes;

import java.time.Clock;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.kubernetes.OptimisticUpdate.Retry;
import io.github.clustersingleton.kubernetes.OptimisticUpdate.Step;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.kubernetes.LeaseAnnotations.LAST_SLOT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.PAUSE_ALL_UNCHECKED;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RECOVER_MARK;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.done;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.update;

/**
 * The claims of the Kubernetes backend: a first claim of a job's Lease (creating it when
 * it does not exist), and a recovery claim of an expired Lease with pending work, which
 * marks the Lease's run first and takes it over once the recovery grace has passed. Each
 * is one read and one write with the resourceVersion read, read and decided again while a
 * third of the TTL lasts when another write came in between.
 *
 * @author cluster-singleton contributors
 */
final class LeaseClaims {

	private static final Log logger = LogFactory.getLog(KubernetesLeaseBackend.class);

	private final LeaseApi api;

	private final JobLeases jobLeases;

	private final String namespace;

	private final LeaseExpiryObserver expiry;

	private final HeldLeases held;

	private final RecoveryMarks marks;

	private final Clock clock;

	private final LongSupplier nanoTime;

	private final BooleanSupplier pausedAll;

	LeaseClaims(LeaseApi api, JobLeases jobLeases, String namespace, LeaseExpiryObserver expiry, HeldLeases held,
			Clock clock, LongSupplier nanoTime, BooleanSupplier pausedAll) {
		this.pausedAll = pausedAll;
		this.api = api;
		this.jobLeases = jobLeases;
		this.namespace = namespace;
		this.expiry = expiry;
		this.held = held;
		this.clock = clock;
		this.nanoTime = nanoTime;
		this.marks = new RecoveryMarks(nanoTime);
	}

	AcquireResult tryAcquire(LeaseRequest request) {
		// another write came between our read and our write: it may have been a
		// claim (then the next read shows it held or the slot done, and ends the
		// loop), or only a ledger entry, a renewal or a label, which leaves the slot
		// to this claim. Tried again for a third of the TTL, so that a grant never
		// comes near the lease's expiry
		Retry thirdOfTtl = Retry.within(request.ttl().toNanos() / 3, this.nanoTime);
		return claimLoop(request, thirdOfTtl, null);
	}

	/**
	 * Run the claim's read, decide and write loop, from a Lease this claim has just
	 * created, or from a read.
	 */
	private AcquireResult claimLoop(LeaseRequest request, Retry retry, @Nullable ClaimRead created) {
		String name = this.jobLeases.leaseName(request.jobName());
		return OptimisticUpdate
			.<ClaimRead, AcquireResult>of(this.api, () -> readForClaim(name), retry, () -> lostRace(name, request))
			.startingFrom(created)
			.run((read, fromServer) -> claim(name, request, read, retry));
	}

	/**
	 * Read the Lease for a claim, with the server's time, and when the read was sent.
	 */
	private ClaimRead readForClaim(String name) {
		long sent = this.nanoTime.getAsLong();
		return new ClaimRead(this.api.read(name), sent);
	}

	/**
	 * Decide a claim on the Lease as read.
	 */
	private Step<AcquireResult> claim(String name, LeaseRequest request, ClaimRead read, Retry retry) {
		long sent = read.sent();
		Lease current = read.read().lease();
		Instant serverTime = read.read().latestServerTime();
		if (current != null) {
			this.jobLeases.checkJob(current, request.jobName());
			// the pause is judged on the Lease as read, as the rest of the claim: a pause
			// written after this read makes the claim's PUT conflict, and read again
			if (!request.overridesPause() && KubernetesJobControls.isPaused(current)) {
				return done(AcquireResult.paused(LeaseCodec.lastSlot(current)));
			}
			// a Lease created after a pause of every job listed the Leases to mark them
			// carries no mark: until a claim has read that pause after the creation,
			// every
			// claim reads it (after reading the Lease, so that a pause written later
			// lists
			// this Lease and marks it, which makes this claim's PUT conflict)
			if (!request.overridesPause() && LeaseCodec.annotation(current, PAUSE_ALL_UNCHECKED) != null
					&& this.pausedAll.getAsBoolean()) {
				return done(AcquireResult.paused(LeaseCodec.lastSlot(current)));
			}
		}
		else if (!request.recovery() && !request.overridesPause() && this.pausedAll.getAsBoolean()) {
			// no Lease to carry the mark of a pause of every job, and none is created
			return done(AcquireResult.paused(null));
		}
		if (request.recovery()) {
			return recover(name, request, current, sent);
		}
		if (serverTime != null && request.slotAheadOf(serverTime)) {
			// the API server does not compare times: this check is ours, on the time
			// its answer carried, and it refuses before anything is written
			return done(AcquireResult.clockSkew((current != null) ? LeaseCodec.lastSlot(current) : null));
		}
		if (current == null) {
			return create(name, request, retry);
		}
		Instant lastSlot = LeaseCodec.lastSlot(current);
		Instant slot = request.slot();
		if (slot != null && lastSlot != null && !slot.isAfter(lastSlot)) {
			return done(AcquireResult.slotDone(lastSlot));
		}
		String holder = LeaseCodec.holder(current);
		if (holder != null && this.expiry.isLive(name, current)) {
			return done(AcquireResult.held(holder));
		}
		ClaimPolicy policy = request.policy();
		// judged on the Lease as read: the resourceVersion makes this and the PUT atomic
		boolean pending = policy.isActive()
				&& LeaseCodec.isPending(current, policy, request.previousSlot(), true, this.clock.instant());
		if (pending && this.marks.awaitsGrace(name, current, policy, request)) {
			// the run may have ended without its completion reaching the Lease yet
			return done(AcquireResult.held(holder));
		}
		long fencingToken = LeaseCodec.fencingToken(current) + 1;
		Lease next = LeaseCodec.claimed(current, request, fencingToken,
				(slot != null) ? slot.toString() : LeaseCodec.annotation(current, LAST_SLOT), this.clock);
		// every claim of a slot with nothing pending (always so without an active policy)
		// starts the slot's first run, so that a later claim under an active policy does
		// not take the slots run without one for unserved
		if (!pending && slot != null) {
			LeaseCodec.startRun(next.getMetadata().getAnnotations(), slot, 1);
		}
		LeaseCodec.removeNullAnnotations(next);
		return write(next, request, fencingToken, sent);
	}

	/**
	 * A recovery claim: only an expired Lease with pending work is taken over, and its
	 * last slot and run stay as they are.
	 */
	private Step<AcquireResult> recover(String name, LeaseRequest request, @Nullable Lease current, long sent) {
		if (current == null) {
			return done(AcquireResult.nothingPending());
		}
		String holder = LeaseCodec.holder(current);
		if (holder != null && this.expiry.isLive(name, current)) {
			return done(AcquireResult.held(holder));
		}
		if (!LeaseCodec.isPending(current, request.policy(), null, false, this.clock.instant())) {
			return done(AcquireResult.nothingPending());
		}
		if (this.marks.awaitsGrace(name, current, request.policy(), request)) {
			return (LeaseCodec.annotation(current, RECOVER_MARK) != null) ? done(AcquireResult.nothingPending())
					: mark(name, current, request);
		}
		long fencingToken = LeaseCodec.fencingToken(current) + 1;
		Lease next = LeaseCodec.claimed(current, request, fencingToken, LeaseCodec.annotation(current, LAST_SLOT),
				this.clock);
		LeaseCodec.removeNullAnnotations(next);
		return write(next, request, fencingToken, sent);
	}

	/**
	 * PUT a claimed Lease; a 404 too means another node wrote the Lease between our read
	 * and our write.
	 */
	private Step<AcquireResult> write(Lease next, LeaseRequest request, long fencingToken, long sent) {
		return update(next, (written) -> {
			this.held.remember(request.leaseToken(), written, sent);
			return acquired(request, fencingToken, written);
		});
	}

	/**
	 * Mark the run of an expired Lease as suspected dead (one PUT with the
	 * resourceVersion read): a later claim takes it over once the grace has passed. The
	 * recovery claim that marks fails.
	 */
	private Step<AcquireResult> mark(String name, Lease current, LeaseRequest request) {
		Lease next = new LeaseBuilder(current).editMetadata()
			.addToAnnotations(RECOVER_MARK, request.leaseToken())
			.endMetadata()
			.build();
		return update(next, (written) -> {
			// the grace counts from after the write, never from before it
			this.marks.written(name, request.leaseToken());
			return AcquireResult.nothingPending();
		});
	}

	/**
	 * The result of a successful claim: as before claim policies when the request has
	 * none, else with the last slot and run the written Lease records.
	 */
	private static AcquireResult acquired(LeaseRequest request, long fencingToken, Lease written) {
		if (!request.policy().isActive()) {
			return AcquireResult.acquired(fencingToken);
		}
		return AcquireResult.acquired(fencingToken, LeaseCodec.lastSlot(written), LeaseCodec.run(written));
	}

	/**
	 * Create the job's Lease unheld, then claim it with a PUT as any existing Lease: the
	 * claim reads the pause of every job after the creation (the new Lease carries
	 * {@link LeaseAnnotations#PAUSE_ALL_UNCHECKED}), so that a pause of every job either
	 * shows in that read or, written after it, lists the new Lease and marks it.
	 */
	private Step<AcquireResult> create(String name, LeaseRequest request, Retry retry) {
		long sent = this.nanoTime.getAsLong();
		// a 409: another node created it first, and the next read shows it. No
		// fencing-token annotation yet: the first token comes from the API server's
		// creation time, so that it exceeds the tokens of a deleted Lease
		return OptimisticUpdate
			.create(this.jobLeases.newLease(request.jobName()),
					(created) -> claimLoop(request, retry, new ClaimRead(new LeaseApi.ServerRead(created, null), sent)))
			.ifGone((ex) -> {
				throw new IllegalStateException("cluster-singleton could not create the Kubernetes Lease '" + name
						+ "': namespace '" + this.namespace + "' does not exist (HTTP 404); create it, or choose "
						+ "another with cluster-singleton.kubernetes.namespace", ex);
			});
	}

	/**
	 * Classify an acquisition that lost the race for the Lease to another node's write:
	 * {@code slot-done} when the winner claimed this slot or a later one, otherwise
	 * {@code held}. Costs one read, on a lost race only.
	 */
	private AcquireResult lostRace(String name, LeaseRequest request) {
		try {
			Lease winner = this.api.get(name);
			if (winner != null) {
				return AcquireResult.notAcquired(request, LeaseCodec.holder(winner), LeaseCodec.lastSlot(winner));
			}
		}
		catch (RuntimeException ex) {
			// the race is lost either way; the read only names the outcome
			if (logger.isDebugEnabled()) {
				logger.debug("Could not read the Kubernetes Lease '" + name + "' after losing the race for it", ex);
			}
		}
		return AcquireResult.held(null);
	}

	/**
	 * A Lease read for a claim, and when (monotonic) the read was sent.
	 */
	private record ClaimRead(LeaseApi.ServerRead read, long sent) {
	}

}
