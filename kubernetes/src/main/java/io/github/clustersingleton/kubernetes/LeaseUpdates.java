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
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.kubernetes.HeldLeases.Held;
import io.github.clustersingleton.kubernetes.OptimisticUpdate.Retry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.kubernetes.LeaseAnnotations.FENCING_TOKEN;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.LAST_SLOT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.LEASE_TOKEN;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.PAUSE_ALL_UNCHECKED;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RECOVER_MARK;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RETRY_AT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RUN_STATE;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RUN_TOKEN;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.CONFLICT_ATTEMPTS;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.QUICK_CONFLICT_ATTEMPTS;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.done;

/**
 * The writes to a Lease after its claim: under a lease this node holds, a renewal, the
 * start of another run, and a run's completion, which releases the lease (each PUT
 * carries the resourceVersion of the Lease as this node last wrote it, or read it again
 * after a conflict, and only succeeds while the Lease still carries the lease's token);
 * and the force release of whoever holds it.
 *
 * @author cluster-singleton contributors
 */
final class LeaseUpdates {

	private static final Log logger = LogFactory.getLog(KubernetesLeaseBackend.class);

	private final LeaseApi api;

	private final JobLeases jobLeases;

	private final LeaseExpiryObserver expiry;

	private final HeldLeases held;

	private final Clock clock;

	private final LongSupplier nanoTime;

	private final BooleanSupplier pausedAll;

	LeaseUpdates(LeaseApi api, JobLeases jobLeases, LeaseExpiryObserver expiry, HeldLeases held, Clock clock,
			LongSupplier nanoTime, BooleanSupplier pausedAll) {
		this.pausedAll = pausedAll;
		this.api = api;
		this.jobLeases = jobLeases;
		this.expiry = expiry;
		this.held = held;
		this.clock = clock;
		this.nanoTime = nanoTime;
	}

	/**
	 * Renew one held lease.
	 * @return whether it is still held
	 */
	boolean renew(HeldLease lease, Duration ttl) {
		String name = this.jobLeases.leaseName(lease.jobName());
		Held known = this.held.get(lease.leaseToken());
		return OptimisticUpdate.<@Nullable Lease, Boolean>of(this.api, () -> this.api.get(name),
				Retry.pausing(QUICK_CONFLICT_ATTEMPTS), () -> {
					throw new IllegalStateException("cluster-singleton could not renew the Kubernetes Lease '" + name
							+ "': it changed under every one of " + QUICK_CONFLICT_ATTEMPTS
							+ " attempts while still held by this run");
				})
			.startingFrom((known != null) ? known.lease() : null)
			// released meanwhile: the release's write is the one to keep
			.endingOnConflict(() -> !this.held.contains(lease.leaseToken()), false)
			// else changed since this node wrote it: read it again and look whose it is
			.run((base, fromServer) -> {
				if (fromServer && (base == null || !LeaseCodec.isHeldBy(base, lease))) {
					this.held.remove(lease.leaseToken());
					return done(false);
				}
				ZonedDateTime now = LeaseCodec.renewTime(base, this.clock);
				Lease next = new LeaseBuilder(base).editOrNewSpec()
					.withRenewTime(now)
					.withLeaseDurationSeconds(LeaseCodec.seconds(ttl))
					.endSpec()
					.build();
				return OptimisticUpdate.update(next, (written) -> {
					// only while the run still holds it: a release may have come in
					// meanwhile
					this.held.written(lease.leaseToken(), written);
					return true;
				}).ifGone((ex) -> {
					this.held.remove(lease.leaseToken());
					return false;
				});
			});
	}

	/**
	 * Record how the run ended, by its token ({@value LeaseAnnotations#RUN_TOKEN}, which
	 * stays after the lease expired) and its fencing token
	 * ({@value LeaseAnnotations#FENCING_TOKEN} still the run's: a later run started under
	 * the same token has already ended it, and is left as it is), and in the same PUT
	 * release the lease as {@link KubernetesLeaseBackend#release(HeldLease, Duration)}
	 * does if it still carries the token; a failed run's
	 * {@value LeaseAnnotations#RETRY_AT} is this node's clock plus the retry delay. The
	 * resourceVersion of the Lease read makes the check and the write atomic.
	 */
	boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		String name = this.jobLeases.leaseName(lease.jobName());
		Held known = this.held.remove(lease.leaseToken());
		RunState state = completion.state();
		return OptimisticUpdate
			.<@Nullable Lease, Boolean>of(this.api, () -> this.api.get(name), Retry.pausing(CONFLICT_ATTEMPTS), () -> {
				throw new IllegalStateException("cluster-singleton could not release the Kubernetes Lease '" + name
						+ "': it changed under every one of " + CONFLICT_ATTEMPTS + " attempts");
			})
			.startingFrom((known != null) ? known.lease() : null)
			.run((base, fromServer) -> {
				if (base == null) {
					logNotReleased(lease);
					return done(state == null);
				}
				boolean held = LeaseCodec.isHeldBy(base, lease);
				// a Lease that still carries the token counts too: its claim was made
				// before the run token existed
				boolean runOurs = held || lease.leaseToken().equals(LeaseCodec.annotation(base, RUN_TOKEN));
				if (!held && (state == null || !runOurs)) {
					logNotReleased(lease);
					return done(state == null);
				}
				LeaseBuilder next = new LeaseBuilder(base);
				if (held) {
					Duration remaining = remaining(base, known, lockAtLeastFor);
					if (remaining.isZero() || remaining.isNegative()) {
						next.editOrNewSpec()
							.withHolderIdentity(null)
							.withRenewTime(LeaseCodec.renewTime(base, this.clock))
							.endSpec();
						next.editMetadata().removeFromAnnotations(LEASE_TOKEN).endMetadata();
					}
					else {
						// keep the holder until acquisition + lockAtLeastFor, measured
						// from now; without the lease token, so that no renewal still in
						// flight for this run can extend it again
						next.editOrNewSpec()
							.withRenewTime(LeaseCodec.renewTime(base, this.clock))
							.withLeaseDurationSeconds(LeaseCodec.seconds(remaining))
							.endSpec();
						next.editMetadata().removeFromAnnotations(LEASE_TOKEN).endMetadata();
					}
				}
				// only the run with this fencing token: a later run started under the
				// same lease token (a startRun whose answer this node may not have seen)
				// has ended this run, and must not be recorded as ended by its completion
				boolean sameRun = LeaseCodec.fencingToken(base) == lease.fencingToken();
				if (!held && !sameRun) {
					return done(true);
				}
				if (state != null && sameRun) {
					next.editMetadata()
						.addToAnnotations(RUN_STATE, state.value())
						.removeFromAnnotations(RECOVER_MARK)
						.endMetadata();
					if (state == RunState.FAILED) {
						next.editMetadata()
							.addToAnnotations(RETRY_AT, this.clock.instant().plus(completion.retryDelay()).toString())
							.endMetadata();
					}
					else {
						next.editMetadata().removeFromAnnotations(RETRY_AT).endMetadata();
					}
				}
				return OptimisticUpdate.update(next.build(), (written) -> true).ifGone((ex) -> {
					logNotReleased(lease);
					return state == null;
				});
			});
	}

	/**
	 * Start another run under a held lease: one PUT (with the resourceVersion this node
	 * last wrote or read) that raises the fencing token and records the run, only while
	 * the Lease carries the lease's token and has not expired by this node's observation
	 * (as another node would judge it).
	 * <p>
	 * Refused while the Lease is paused, by the job's own pause or by the mark of a pause
	 * of every job (a pause's PUT changes the resourceVersion, so a start decided on the
	 * Lease before the pause conflicts, reads again and sees it): a sequence of recovery
	 * and catch-up runs stops at its next run. Refused too for a slot before the current
	 * run's: the runs of a sequence go up by slot from the current run (a retry of it has
	 * its slot, so it is equal and allowed), and a resume without catch-up while the
	 * lease is live moves the current run's slot to the resume time, so no run of a slot
	 * that passed while the job was paused starts after it.
	 */
	OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		String name = this.jobLeases.leaseName(lease.jobName());
		Held known = this.held.get(lease.leaseToken());
		return OptimisticUpdate.<@Nullable Lease, OptionalLong>of(this.api, () -> this.api.get(name),
				Retry.pausing(CONFLICT_ATTEMPTS), () -> {
					throw new IllegalStateException(
							"cluster-singleton could not start a run under the Kubernetes Lease '" + name
									+ "': it changed under every one of " + CONFLICT_ATTEMPTS
									+ " attempts while still held by this run");
				})
			.startingFrom((known != null) ? known.lease() : null)
			// on a conflict: changed since this node wrote it, by a ledger entry or a
			// new holder
			.run((base, fromServer) -> {
				if (fromServer && (base == null || !LeaseCodec.isHeldBy(base, lease))) {
					return done(OptionalLong.empty());
				}
				if (this.expiry.hasExpired(name, base)) {
					return done(OptionalLong.empty());
				}
				if (KubernetesJobControls.isPaused(base)) {
					return done(OptionalLong.empty());
				}
				// a Lease created after a pause of every job marked the Leases, and held
				// by
				// a claim that overrode the pause: as a claim does, read that pause
				if (LeaseCodec.annotation(base, PAUSE_ALL_UNCHECKED) != null && this.pausedAll.getAsBoolean()) {
					return done(OptionalLong.empty());
				}
				SlotRun current = LeaseCodec.run(base);
				if (current != null && slot.isBefore(current.slot())) {
					return done(OptionalLong.empty());
				}
				long fencingToken = LeaseCodec.fencingToken(base) + 1;
				Instant lastSlot = LeaseCodec.lastSlot(base);
				Lease next = new LeaseBuilder(base).editMetadata()
					.addToAnnotations(FENCING_TOKEN, Long.toString(fencingToken))
					.addToAnnotations(LAST_SLOT,
							(lastSlot == null || slot.isAfter(lastSlot)) ? slot.toString() : lastSlot.toString())
					.endMetadata()
					.build();
				LeaseCodec.startRun(next.getMetadata().getAnnotations(), slot, attempt);
				return OptimisticUpdate.update(next, (written) -> {
					this.held.written(lease.leaseToken(), written);
					return OptionalLong.of(fencingToken);
				}).ifGone((ex) -> {
					this.held.remove(lease.leaseToken());
					return OptionalLong.empty();
				});
			});
	}

	boolean forceRelease(String jobName) {
		String name = this.jobLeases.leaseName(jobName);
		return OptimisticUpdate.<@Nullable Lease, Boolean>of(this.api, () -> this.api.get(name),
				Retry.immediately(CONFLICT_ATTEMPTS), () -> {
					throw new IllegalStateException("cluster-singleton could not force-release the Kubernetes Lease '"
							+ name + "': it changed under every one of " + CONFLICT_ATTEMPTS + " attempts");
				})
			.run((lease, fromServer) -> {
				if (lease == null) {
					return done(false);
				}
				this.jobLeases.checkJob(lease, jobName);
				if (LeaseCodec.holder(lease) == null) {
					return done(false);
				}
				boolean live = this.expiry.isLive(name, lease);
				Lease next = new LeaseBuilder(lease).editOrNewSpec()
					.withHolderIdentity(null)
					.withRenewTime(LeaseCodec.renewTime(lease, this.clock))
					.endSpec()
					.editMetadata()
					.removeFromAnnotations(LEASE_TOKEN)
					.endMetadata()
					.build();
				return OptimisticUpdate.update(next, (written) -> live).ifGone((ex) -> false);
			});
	}

	private Duration remaining(Lease lease, @Nullable Held known, Duration lockAtLeastFor) {
		if (lockAtLeastFor.isZero()) {
			return Duration.ZERO;
		}
		if (known != null) {
			return lockAtLeastFor.minusNanos(this.nanoTime.getAsLong() - known.acquiredAt());
		}
		// not acquired by this instance (restarted meanwhile?): use the time it wrote
		ZonedDateTime acquired = (lease.getSpec() != null) ? lease.getSpec().getAcquireTime() : null;
		return (acquired != null) ? lockAtLeastFor.minus(Duration.between(acquired.toInstant(), this.clock.instant()))
				: lockAtLeastFor;
	}

	private void logNotReleased(HeldLease lease) {
		if (logger.isDebugEnabled()) {
			logger.debug("cluster-singleton did not release the Kubernetes Lease of job '" + lease.jobName()
					+ "': it no longer carries this run's token");
		}
	}

}
