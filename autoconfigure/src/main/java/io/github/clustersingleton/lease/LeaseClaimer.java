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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.describeFailure;
import static io.github.clustersingleton.lease.EngineSupport.describeSlot;
import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * The one acquisition path of every run: local skips (shutdown, disabled, not the
 * leader), the store's answer, clock-skew warnings and the leader's step-down, and the
 * renewal or give-back of a grant that came late.
 *
 * @author cluster-singleton contributors
 */
final class LeaseClaimer {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private static final long CLOCK_SKEW_WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final Map<String, Long> clockSkewWarnings = new ConcurrentHashMap<>();

	private final LeaseBackend backend;

	private final ClusterSingletonExecutor.Settings settings;

	private final ClusterSingletonListener listener;

	private final StoreClock storeClock;

	private final EngineState state;

	private final CompletionDelivery delivery;

	private final Ticker ticker;

	private volatile RunObserver runObserver = RunObserver.NONE;

	private volatile @Nullable JobControlMonitor controls;

	LeaseClaimer(LeaseBackend backend, ClusterSingletonExecutor.Settings settings, ClusterSingletonListener listener,
			StoreClock storeClock, EngineState state, CompletionDelivery delivery, Ticker ticker) {
		this.backend = backend;
		this.settings = settings;
		this.listener = listener;
		this.storeClock = storeClock;
		this.state = state;
		this.delivery = delivery;
		this.ticker = ticker;
	}

	void setRunObserver(RunObserver runObserver) {
		this.runObserver = runObserver;
	}

	void setControlMonitor(JobControlMonitor controls) {
		this.controls = controls;
	}

	/**
	 * Whether a trigger without a slot (a fixed-rate or fixed-delay trigger, a direct
	 * call) is skipped because this node's latest view of the cluster-wide controls shows
	 * the job paused: only saves the round trip, since the store refuses every claim of a
	 * paused job itself (a node's view may be stale), except a run-now request's.
	 */
	boolean pausedLocally(JobDefinition job, @Nullable Instant slot, RunTrigger trigger) {
		JobControlMonitor controls = this.controls;
		if (slot != null || trigger == RunTrigger.MANUAL || controls == null || !controls.isPaused(job.name())) {
			return false;
		}
		EngineSupport.debug(logger,
				() -> "cluster-singleton skipped job '" + job.name() + "': job paused cluster-wide");
		EngineSupport
			.notify(() -> this.listener.acquireAttempted(job, null, AcquireResult.paused(null), Duration.ZERO));
		return true;
	}

	/**
	 * Whether a trigger is skipped without asking the store: the application shuts down,
	 * the job is disabled, or leader mode is on and this node is not the leader.
	 */
	boolean skippedLocally(JobDefinition job, @Nullable Instant slot) {
		if (this.state.isClosing()) {
			EngineSupport.debug(logger,
					() -> "cluster-singleton skipped job '" + job.name() + "': the application is shutting down");
			return true;
		}
		if (!job.enabled()) {
			EngineSupport.debug(logger, () -> "cluster-singleton skipped job '" + job.name()
					+ "': disabled by cluster-singleton.jobs." + job.name() + ".enabled");
			return true;
		}
		LeaderElection leader = this.state.leader();
		if (leader != null && !leader.isLeader()) {
			EngineSupport.debug(logger, () -> "cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot)
					+ ": this node is not the leader");
			EngineSupport
				.notify(() -> this.listener.acquireAttempted(job, slot, AcquireResult.notLeader(), Duration.ZERO));
			return true;
		}
		return false;
	}

	/**
	 * Record a trigger left to the job's preferred node.
	 */
	void notPreferred(JobDefinition job, Instant slot) {
		EngineSupport.debug(logger, () -> "cluster-singleton left job '" + job.name() + "'" + describeSlot(slot)
				+ " to its preferred node");
		EngineSupport
			.notify(() -> this.listener.acquireAttempted(job, slot, AcquireResult.notPreferred(), Duration.ZERO));
	}

	static ClaimPolicy claimPolicy(JobDefinition job, @Nullable Instant slot, RunTrigger trigger) {
		if (job.schedule() == null) {
			return ClaimPolicy.NONE;
		}
		ClaimPolicy policy = job.policies().claimPolicy();
		if (slot == null && policy.recoverLost()) {
			// a claim without a slot (a direct call) runs no slot and leaves the run
			// fields
			// alone, but it takes the lease and with it the run's token: while a run
			// still recorded as running awaits its completion, it is refused as while
			// the lease is live (until a recovery claim's mark and grace), or the run's
			// late completion would be superseded and the slot run again
			return policy;
		}
		if (slot == null || trigger == RunTrigger.DIRECT) {
			return ClaimPolicy.NONE;
		}
		return policy;
	}

	/**
	 * Ask the store for a job's lease: the one acquisition path of every run. A store
	 * failure, a clock-skew refusal, a lease held elsewhere and a grant that came so late
	 * that a renewal could not confirm it are logged, told to the listener and the
	 * observer, and skip the run.
	 * @return the result of a usable acquisition, or {@code null} when the run is skipped
	 */
	@Nullable Claimed claim(JobDefinition job, LeaseRequest request, long requested, RunObserver.Run observed) {
		Instant slot = request.slot();
		AcquireResult result;
		try {
			result = this.backend.tryAcquire(request);
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			Duration took = Duration.ofNanos(this.ticker.nanoTime() - requested);
			logger.warn("cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot) + ": the "
					+ this.backend.id() + " lease store could not be reached; the next trigger tries again: "
					+ describeFailure(ex), logger.isDebugEnabled() ? ex : null);
			EngineSupport.notify(() -> this.listener.acquireFailed(job, slot, ex, took));
			EngineSupport.notify(() -> observed.stop("error", ex));
			return null;
		}
		return accept(job, request, result, requested, Duration.ofNanos(this.ticker.nanoTime() - requested), observed);
	}

	/**
	 * Act on the store's answer to a claim, as {@link #claim} does with the answer it
	 * gets: also for a claim made ahead of its trigger in one call with others
	 * ({@link InstantClaims}), whose lease is renewed before the run when more than a
	 * third of the TTL passed since it was last extended.
	 * @param job the job
	 * @param request the request the store answered
	 * @param result the answer
	 * @param requested when (nano time) the lease was last known to be extended by a full
	 * TTL, for a grant
	 * @param took how long the store took to answer
	 * @param observed the run's observation
	 * @return the result of a usable acquisition, or {@code null} when the run is skipped
	 */
	@Nullable Claimed accept(JobDefinition job, LeaseRequest request, AcquireResult result, long requested, Duration took,
			RunObserver.Run observed) {
		Instant slot = request.slot();
		EngineSupport.notify(() -> this.listener.acquireAttempted(job, slot, result, took));
		if (result.outcome() == AcquireResult.Outcome.CLOCK_SKEW) {
			warnClockSkew(job, slot);
			EngineSupport.notify(() -> observed.stop(result.outcome().tag(), null));
			LeaderElection leader = this.state.leader();
			if (leader != null && leader.isLeader()) {
				// the other nodes skip every guarded job while this one leads: a leader
				// whose
				// slots the store refuses would leave them all without a run
				leader.stepDown("the " + this.backend.id() + " store refused slot " + slot + " of job '" + job.name()
						+ "' because this node's clock runs ahead of the store's by more than the slot tolerance of "
						+ this.settings.slotTolerance() + "; another node takes the lead");
			}
			return null;
		}
		if (!result.isAcquired()) {
			JobControlMonitor controls = this.controls;
			if (result.outcome() == AcquireResult.Outcome.PAUSED && slot != null && !request.recovery()
					&& controls != null) {
				controls.recordPaused(job, slot, result.lastSlot());
			}
			if (!request.recovery()) {
				EngineSupport.debug(logger, () -> "cluster-singleton skipped job '" + job.name() + "'"
						+ describeSlot(slot) + ": " + describeSkip(result));
			}
			EngineSupport.notify(() -> observed.stop(result.outcome().tag(), null));
			return null;
		}
		long ttl = this.settings.leaseTtl().toNanos();
		if (this.ticker.nanoTime() - requested > ttl / 3) {
			// the grant used up more than a third of the TTL on its way (a slow store, a
			// pause): renew before the body starts, as the watchdog would have by now, or
			// give the lease back; a grant after the whole TTL cannot be renewed (the
			// store's lease ended), so it is always given back
			HeldLease granted = HeldLease.of(request, result.fencingToken());
			long sent = this.ticker.nanoTime();
			boolean renewed;
			Throwable renewalFailure = null;
			try {
				renewed = this.backend.renew(List.of(granted), this.settings.leaseTtl()).contains(granted.leaseToken());
			}
			catch (RuntimeException ex) {
				renewed = false;
				renewalFailure = ex;
			}
			if (!renewed) {
				this.delivery.releaseQuietly(granted, job);
				IllegalStateException late = new IllegalStateException("the " + this.backend.id()
						+ " lease store granted the lease after " + took + ", more than a third of its TTL of "
						+ this.settings.leaseTtl() + ", and the renewal before the run " + ((renewalFailure != null)
								? "failed: " + describeFailure(renewalFailure) : "found the lease no longer held"));
				logger.warn("cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot) + ": "
						+ late.getMessage() + "; the lease was given back"
						+ (request.policy().recoverLost() ? " and its run is taken up again" : ""));
				EngineSupport.notify(() -> observed.stop("error", late));
				return null;
			}
			return new Claimed(result, sent);
		}
		return new Claimed(result, requested);
	}

	/**
	 * A usable acquisition.
	 *
	 * @param result what the store answered
	 * @param validFrom when (nano time) the lease was last known to be extended by a full
	 * TTL
	 */
	record Claimed(AcquireResult result, long validFrom) {

	}

	RunObserver.Run startDetachedObservation(JobDefinition job, @Nullable Instant slot) {
		return startObservation(job, slot, true);
	}

	RunObserver.Run startObservation(JobDefinition job, @Nullable Instant slot) {
		return startObservation(job, slot, false);
	}

	private RunObserver.Run startObservation(JobDefinition job, @Nullable Instant slot, boolean detached) {
		try {
			return detached ? this.runObserver.startDetached(job, slot, this.backend.id())
					: this.runObserver.start(job, slot, this.backend.id());
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton run observer failed", ex);
			return RunObserver.Run.NONE;
		}
	}

	/**
	 * Warn that the store refused a slot as ahead of its clock: at the first refusal of a
	 * job and then at most once a minute per job (a cron job firing every second would
	 * otherwise log every second); the refusals in between are logged at DEBUG and
	 * counted in the {@code clock-skew} outcome.
	 */
	private void warnClockSkew(JobDefinition job, @Nullable Instant slot) {
		long now = this.ticker.nanoTime();
		Long last = this.clockSkewWarnings.get(job.name());
		boolean warn = last == null || now - last >= CLOCK_SKEW_WARN_INTERVAL_NANOS;
		if (warn) {
			this.clockSkewWarnings.put(job.name(), now);
		}
		if (warn || logger.isDebugEnabled()) {
			String message = "cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot)
					+ ": the slot lies ahead of the " + this.backend.id() + " store's clock by more than the slot "
					+ "tolerance of " + this.settings.slotTolerance() + "; " + describeOffset(this.storeClock.offset())
					+ ". Synchronize the clocks (NTP); if "
					+ "every node reports this, the store's clock is the one behind"
					+ (warn ? " (repeated at most once a minute for this job)" : "");
			if (warn) {
				logger.warn(message);
			}
			else {
				logger.debug(message);
			}
		}
	}

	private static String describeOffset(Optional<Duration> offset) {
		if (offset.isEmpty()) {
			return "this node's clock runs ahead of the store's";
		}
		Duration value = offset.get();
		return "this node's clock is " + (value.isNegative() ? value.negated() + " behind" : value + " ahead of")
				+ " the store's";
	}

	private static String describeSkip(AcquireResult result) {
		return switch (result.outcome()) {
			case HELD -> "lease held by " + ((result.holder() != null) ? result.holder() : "another node");
			case SLOT_DONE -> "slot already run (last slot " + result.lastSlot() + ")";
			case CLOCK_SKEW -> "slot ahead of the store's clock";
			case NOT_LEADER -> "this node is not the leader";
			case NOT_PREFERRED -> "another node is the job's preferred node";
			case PAUSED -> "job paused cluster-wide";
			case ACQUIRED -> "acquired";
		};
	}

}
