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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialAcquisitionException;
import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.describeFailure;
import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * In leader mode, the leader's claims of the cron slots of one instant in one call of
 * {@link LeaseBackend#tryAcquireAll}, for a store that sends such a call together
 * ({@link LeaseBackend#acquiresTogether()}): the first trigger of an instant claims the
 * slots of every job this node's scheduler has queued for it, and the other triggers of
 * the instant take the leases it got instead of asking the store. The watchdog renews a
 * lease claimed this way until its trigger takes it; a trigger that comes after the
 * leader stepped down still runs its slot, which this node holds.
 * <p>
 * Only grants are kept: a trigger whose job's claim was refused, or whose call failed,
 * asks the store itself, as without this. Left out of the call: the triggering job's own
 * later instants, disabled jobs, jobs whose last run here has not reached the store, and
 * jobs whose misfire policy catches missed slots up without a recovery policy, whose slot
 * a new leader would catch up were this node to die between the claim and the run.
 *
 * @author cluster-singleton contributors
 */
final class InstantClaims {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	/**
	 * How long before a newly queued fire time an instant whose triggers made no call is
	 * forgotten.
	 */
	private static final Duration FORGOTTEN_AFTER = Duration.ofHours(1);

	/**
	 * How long at least the watchdog renews a lease claimed ahead whose trigger has not
	 * taken it (the job's {@code lockAtMostFor} if longer): a trigger later than that,
	 * behind a long run on the scheduler's thread, finds the lease expired and its slot
	 * not run.
	 */
	static final Duration RENEWED_AT_LEAST = Duration.ofHours(1);

	private final LeaseBackend backend;

	private final ClusterSingletonExecutor.Settings settings;

	private final EngineState state;

	private final LeaseWatchdog watchdog;

	private final CompletionDelivery delivery;

	private final Ticker ticker;

	/**
	 * The jobs whose cron triggers this node's scheduler queued, by fire time: the jobs
	 * of an instant's call.
	 */
	private final Map<Instant, Map<String, JobDefinition>> queued = new ConcurrentHashMap<>();

	/**
	 * The claims of calls made or under way, by job (one slot per job at most: a job
	 * whose lease this node holds joins no call), until their triggers take them:
	 * completed with the grant, or with {@code null} when the trigger asks the store
	 * itself.
	 */
	private final Map<String, Pending> claims = new ConcurrentHashMap<>();

	/**
	 * Orders a trigger that claims by itself and a call of its instant: either the call
	 * claims for the trigger, or the trigger is left out of the call.
	 */
	private final Object lock = new Object();

	InstantClaims(LeaseBackend backend, ClusterSingletonExecutor.Settings settings, EngineState state,
			LeaseWatchdog watchdog, CompletionDelivery delivery, Ticker ticker) {
		this.backend = backend;
		this.settings = settings;
		this.state = state;
		this.watchdog = watchdog;
		this.delivery = delivery;
		this.ticker = ticker;
	}

	/**
	 * Note a fire time this node's scheduler queued for a job's trigger.
	 * @param job the job, with its overrides applied
	 * @param fireTime the fire time
	 */
	void queued(JobDefinition job, Instant fireTime) {
		giveBackBefore(job.name(), fireTime);
		LeaderElection leader = this.state.leader();
		if (leader == null || !leader.isLeader() || job.schedule() == null || !together()) {
			return;
		}
		Map<String, JobDefinition> jobs = this.queued.get(fireTime);
		if (jobs == null) {
			// the instants of a leader that stepped down, whose triggers made no call
			this.queued.keySet().removeIf((queuedTime) -> queuedTime.isBefore(fireTime.minus(FORGOTTEN_AFTER)));
			jobs = this.queued.computeIfAbsent(fireTime, (time) -> new ConcurrentHashMap<>());
		}
		jobs.put(job.name(), job);
	}

	/**
	 * Forget a fire time whose trigger will not run (the job's task was armed again on
	 * another trigger first): no call claims it. A lease a call already claimed for it is
	 * kept for the new trigger if that fires at the same time, and given back when the
	 * job's next fire time is queued otherwise.
	 * @param jobName the job
	 * @param fireTime the fire time
	 */
	void dropped(String jobName, Instant fireTime) {
		synchronized (this.lock) {
			Map<String, JobDefinition> jobs = this.queued.get(fireTime);
			if (jobs != null) {
				jobs.remove(jobName);
			}
			Pending pending = this.claims.get(jobName);
			if (pending != null && pending.slot().equals(fireTime)) {
				pending.dropped = true;
			}
		}
	}

	/**
	 * Give back the claim a call made for an earlier fire time of the job that the job's
	 * task dropped when it was armed again on another trigger ({@link #dropped}): the new
	 * trigger's next fire time is later, so the dropped one's trigger will not come. A
	 * claim of the same fire time is kept for the new trigger.
	 */
	private void giveBackBefore(String jobName, Instant fireTime) {
		Pending pending = this.claims.get(jobName);
		// only a dropped fire time's: a scheduler may queue a job's next fire time
		// before the run of the current one starts (SimpleAsyncTaskScheduler), and a
		// re-armed task's due run still comes
		if (pending == null || !pending.dropped || !pending.slot().isBefore(fireTime)) {
			return;
		}
		synchronized (this.lock) {
			if (!this.claims.remove(jobName, pending)) {
				return;
			}
		}
		pending.future().thenAccept(this::giveBack);
	}

	/**
	 * Give back a lease a call claimed for a trigger that will not take it.
	 */
	private void giveBack(@Nullable AheadClaim claim) {
		if (claim != null) {
			this.watchdog.dropAhead(claim);
			logger.debug("cluster-singleton gave back the lease of job '" + claim.job().name() + "' (slot "
					+ claim.lease().slot() + ") that no trigger will take");
			this.delivery.releaseQuietly(claim.lease(), claim.job());
		}
	}

	/**
	 * Take the claim an earlier call of the instant made for this trigger: waits for a
	 * call still under way.
	 * @param job the job
	 * @param slot the trigger's slot
	 * @return the claim, or {@code null} when the trigger asks the store itself
	 */
	@Nullable AheadClaim take(JobDefinition job, Instant slot) {
		Pending pending;
		synchronized (this.lock) {
			pending = this.claims.get(job.name());
			if (pending != null && !pending.slot().isAfter(slot)) {
				this.claims.remove(job.name(), pending);
			}
			else {
				// this trigger claims by itself: no call of the instant may claim for it
				Map<String, JobDefinition> jobs = this.queued.get(slot);
				if (jobs != null) {
					jobs.remove(job.name());
				}
				return null;
			}
		}
		AheadClaim taken = pending.future().join();
		if (pending.slot().isBefore(slot)) {
			// its trigger no longer comes (the job's schedule changed between the call
			// and it): the job's lease must not refuse this trigger's claim
			giveBack(taken);
			return null;
		}
		if (taken != null) {
			this.watchdog.dropAhead(taken);
		}
		return taken;
	}

	/**
	 * Claim, for the first trigger of an instant on the leader, the slots of every job
	 * queued for that instant, this trigger's included, in one call.
	 * @param job the triggering job
	 * @param own the trigger's own request
	 * @param trigger why the trigger runs
	 * @param requested when (nano time) the trigger asked
	 * @return the trigger's own claim (granted or not), or {@code null} when no call was
	 * made and the trigger asks the store itself
	 */
	@Nullable OwnClaim claimInstant(JobDefinition job, LeaseRequest own, RunTrigger trigger, long requested) {
		Instant slot = own.slot();
		LeaderElection leader = this.state.leader();
		if (slot == null || trigger != RunTrigger.SCHEDULED || own.recovery() || leader == null || !together()) {
			return null;
		}
		// in name order, so that two calls of one instant (a leader that does not know
		// it was replaced) take the store's row locks in one order
		Map<String, LeaseRequest> requests = new TreeMap<>();
		Map<String, JobDefinition> jobs;
		Map<String, CompletableFuture<@Nullable AheadClaim>> pending = new TreeMap<>();
		synchronized (this.lock) {
			jobs = this.queued.remove(slot);
			forgetBefore(slot);
			if (jobs == null || !leader.isLeader()) {
				jobs = Map.of();
			}
			Set<String> held = heldHere();
			// every request is made before any claim is registered: nothing that can
			// fail comes between a registration and the call that completes it
			Map<String, LeaseRequest> joining = new TreeMap<>();
			for (JobDefinition other : jobs.values()) {
				if (!other.name().equals(job.name()) && joins(other, slot, held)) {
					joining.put(other.name(),
							ClusterSingletonExecutor.requestFor(other, slot, RunTrigger.SCHEDULED, this.settings));
				}
			}
			joining.forEach((name, request) -> {
				CompletableFuture<@Nullable AheadClaim> future = new CompletableFuture<>();
				if (this.claims.putIfAbsent(name, new Pending(slot, future)) == null) {
					pending.put(name, future);
					requests.put(name, request);
				}
			});
		}
		if (pending.isEmpty()) {
			return null;
		}
		requests.put(job.name(), own);
		List<LeaseRequest> sent = new ArrayList<>(requests.values());
		List<? extends @Nullable AcquireResult> results = null;
		long sentAt = this.ticker.nanoTime();
		try {
			results = this.backend.tryAcquireAll(sent);
			if (results.size() != sent.size()) {
				throw new IllegalStateException("the " + this.backend.id() + " lease store answered " + results.size()
						+ " of " + sent.size() + " claims");
			}
		}
		catch (PartialAcquisitionException ex) {
			// the answered claims keep their answers; the others' triggers ask by
			// themselves
			logger.warn(
					"cluster-singleton could not claim some of the " + sent.size() + " jobs of slot " + slot
							+ " together in the " + this.backend.id()
							+ " lease store; their triggers ask by themselves: " + describeFailure(ex),
					logger.isDebugEnabled() ? ex : null);
			results = ex.getResults();
			if (results.size() != sent.size()) {
				logger.error("cluster-singleton: the " + this.backend.id() + " lease store answered " + results.size()
						+ " of " + sent.size() + " claims sent together; each trigger asks by itself");
				results = null;
			}
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			logger.warn("cluster-singleton could not claim the " + sent.size() + " jobs of slot " + slot
					+ " together in the " + this.backend.id() + " lease store; each trigger asks by itself: "
					+ describeFailure(ex), logger.isDebugEnabled() ? ex : null);
			results = null;
		}
		finally {
			if (results == null) {
				pending.values().forEach((future) -> future.complete(null));
			}
		}
		if (results == null) {
			return null;
		}
		long took = this.ticker.nanoTime() - sentAt;
		OwnClaim ownClaim = null;
		try {
			ownClaim = handOut(jobs, own, sent, results, pending, requested, took);
		}
		finally {
			// a trigger that waits for its claim must never wait for ever
			pending.values().forEach((future) -> future.complete(null));
		}
		return ownClaim;
	}

	/**
	 * Complete the waiting triggers' claims with the call's grants, and return the
	 * triggering job's own answer.
	 */
	private @Nullable OwnClaim handOut(Map<String, JobDefinition> jobs, LeaseRequest own, List<LeaseRequest> sent,
			List<? extends @Nullable AcquireResult> results,
			Map<String, CompletableFuture<@Nullable AheadClaim>> pending, long requested, long took) {
		OwnClaim ownClaim = null;
		for (int i = 0; i < sent.size(); i++) {
			LeaseRequest request = sent.get(i);
			AcquireResult result = results.get(i);
			if (request == own) {
				// without an answer, the trigger asks by itself
				ownClaim = (result != null) ? new OwnClaim(result, took) : null;
				continue;
			}
			CompletableFuture<@Nullable AheadClaim> future = pending.get(request.jobName());
			if (result == null || !result.isAcquired()) {
				// the trigger asks again, at its own time
				future.complete(null);
				continue;
			}
			JobDefinition claimed = jobs.get(request.jobName());
			HeldLease lease = HeldLease.of(request, result.fencingToken());
			try {
				AheadClaim claim = new AheadClaim(claimed, request, result, requested, took,
						this.settings.leaseTtl().toNanos());
				if (!this.state.isClosing() && this.watchdog.holdAhead(claim)) {
					future.complete(claim);
					continue;
				}
				// the application closes: its triggers are skipped
			}
			catch (RuntimeException ex) {
				logger.warn("cluster-singleton could not keep the lease of job '" + request.jobName()
						+ "' for its trigger; it is given back and the trigger asks by itself", ex);
			}
			this.delivery.releaseQuietly(lease, claimed);
			future.complete(null);
		}
		return ownClaim;
	}

	/**
	 * Give back every lease claimed ahead that no trigger took: the application is
	 * closing, and its triggers are skipped.
	 */
	void releaseUntaken() {
		for (String name : List.copyOf(this.claims.keySet())) {
			Pending pending = this.claims.remove(name);
			if (pending != null) {
				// also the claims of a call still under way, once it answers
				pending.future().thenAccept(this::giveBack);
			}
		}
		this.queued.clear();
	}

	/**
	 * Whether the store sends claims together; {@code false} when it cannot tell now.
	 */
	private boolean together() {
		try {
			return this.backend.acquiresTogether();
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not tell whether the store sends claims together", ex);
			return false;
		}
	}

	/**
	 * Whether a queued job joins the instant's call: its trigger runs the claim this call
	 * would make.
	 */
	private boolean joins(JobDefinition job, Instant slot, Set<String> held) {
		if (!job.enabled() || job.schedule() == null || held.contains(job.name())
				|| this.delivery.endingHere(job.name())) {
			return false;
		}
		ClaimPolicy policy = LeaseClaimer.claimPolicy(job, slot, RunTrigger.SCHEDULED);
		return !policy.catchUp() || policy.recoverLost();
	}

	/**
	 * The jobs whose leases this node holds now, for a run or a claim made ahead: the
	 * store would refuse their claims, and the watchdog's renewal touches their rows.
	 */
	private Set<String> heldHere() {
		Set<String> held = new HashSet<>();
		this.state.running().forEach((run) -> held.add(run.jobName()));
		held.addAll(this.claims.keySet());
		return held;
	}

	/**
	 * Drop the fire times before this one, whose instants passed without a call here, and
	 * the refused claims of earlier instants, whose triggers, if they still come, ask by
	 * themselves.
	 */
	private void forgetBefore(Instant slot) {
		this.queued.keySet().removeIf((time) -> time.isBefore(slot));
		for (Map.Entry<String, Pending> entry : this.claims.entrySet()) {
			Pending pending = entry.getValue();
			CompletableFuture<@Nullable AheadClaim> future = pending.future();
			if (future.isDone() && future.getNow(null) == null && pending.slot().isBefore(slot)) {
				this.claims.remove(entry.getKey(), pending);
			}
		}
	}

	/**
	 * A call's claim of a job's slot, until its trigger takes it.
	 */
	private static final class Pending {

		private final Instant slot;

		private final CompletableFuture<@Nullable AheadClaim> future;

		/**
		 * Whether the job's task was armed again on another trigger that drops the slot.
		 */
		private volatile boolean dropped;

		Pending(Instant slot, CompletableFuture<@Nullable AheadClaim> future) {
			this.slot = slot;
			this.future = future;
		}

		Instant slot() {
			return this.slot;
		}

		CompletableFuture<@Nullable AheadClaim> future() {
			return this.future;
		}

	}

	/**
	 * The triggering job's own answer from the instant's call.
	 *
	 * @param result what the store answered
	 * @param tookNanos how long the call took
	 */
	record OwnClaim(AcquireResult result, long tookNanos) {

	}

}
