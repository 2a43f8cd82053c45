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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.PartialRenewalException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the leases of running jobs alive. Every {@code lease-ttl / 3} it renews all
 * leases this node holds in one {@link LeaseBackend#renew} call, and it declares a lease
 * lost (and interrupts its run, when configured) as soon as one of these holds:
 * <ul>
 * <li>the store answered that the lease is no longer this run's;</li>
 * <li>the local deadline passed: no renewal succeeded within one TTL of the last
 * successful one (the store may already have handed the lease to another node);</li>
 * <li>the run reached its {@code lockAtMostFor}.</li>
 * </ul>
 * Timing and store round trips run on two separate threads, so a store that hangs cannot
 * delay the deadline checks.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class LeaseWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	/**
	 * Minimum time between two WARN logs about failed renewals.
	 */
	private static final Duration WARN_INTERVAL = Duration.ofSeconds(30);

	private final LeaseBackend backend;

	private final long ttlNanos;

	private final long intervalNanos;

	private final boolean interruptOnLeaseLoss;

	private final ClusterSingletonListener listener;

	private final Set<ActiveRun> runs = ConcurrentHashMap.newKeySet();

	/** Leases claimed ahead of their runs, renewed until a run takes them. */
	private final Set<AheadClaim> ahead = ConcurrentHashMap.newKeySet();

	private final ScheduledExecutorService timer;

	private final ExecutorService renewer;

	private final AtomicBoolean renewalInFlight = new AtomicBoolean();

	private final AtomicBoolean started = new AtomicBoolean();

	private volatile boolean closed;

	private volatile @Nullable LeaderElection leader;

	private final Ticker ticker;

	private final WarningThrottle renewalWarnings;

	/**
	 * Create a watchdog.
	 * @param backend the store to renew leases in
	 * @param ttl the lease time to live
	 * @param interruptOnLeaseLoss whether to interrupt the thread of a run that lost its
	 * lease
	 * @param listener the listener to notify
	 */
	public LeaseWatchdog(LeaseBackend backend, Duration ttl, boolean interruptOnLeaseLoss,
			ClusterSingletonListener listener) {
		this(backend, ttl, interruptOnLeaseLoss, listener, Ticker.SYSTEM, EngineExecutors.standard());
	}

	/**
	 * Create a watchdog that reads time from {@code ticker} and runs on threads from
	 * {@code executors}.
	 * @param backend the store to renew leases in
	 * @param ttl the lease time to live
	 * @param interruptOnLeaseLoss whether to interrupt the thread of a run that lost its
	 * lease
	 * @param listener the listener to notify
	 * @param ticker the monotonic clock
	 * @param executors creates the timer and the renewal thread
	 * @since 0.1.0
	 */
	public LeaseWatchdog(LeaseBackend backend, Duration ttl, boolean interruptOnLeaseLoss,
			ClusterSingletonListener listener, Ticker ticker, EngineExecutors executors) {
		this.ticker = ticker;
		this.renewalWarnings = new WarningThrottle(ticker, WARN_INTERVAL);
		this.backend = backend;
		this.ttlNanos = ttl.toNanos();
		this.intervalNanos = Math.max(this.ttlNanos / 3, TimeUnit.MILLISECONDS.toNanos(10));
		this.interruptOnLeaseLoss = interruptOnLeaseLoss;
		this.listener = listener;
		this.timer = executors.watchdogTimer();
		this.renewer = executors.renewer();
	}

	/**
	 * Renew the leader lease in leader mode, in the same round trip as the job leases,
	 * and ask for it at every tick while this node is not the leader.
	 * @param leader the election
	 */
	void setLeaderElection(LeaderElection leader) {
		this.leader = leader;
	}

	/**
	 * Start ticking now rather than at the first run: in leader mode, the first tick asks
	 * for the leader lease.
	 */
	void start() {
		if (!this.closed && this.started.compareAndSet(false, true)) {
			this.timer.scheduleWithFixedDelay(this::tick, 0, this.intervalNanos, TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * Start watching a run that just acquired its lease.
	 * @param run the run
	 * @return a handle that cancels the run's {@code lockAtMostFor} timer, or
	 * {@code null} when the watchdog is closed and the run must not start
	 */
	@Nullable ScheduledFuture<?> register(ActiveRun run) {
		if (this.closed) {
			return null;
		}
		this.runs.add(run);
		try {
			if (this.started.compareAndSet(false, true)) {
				this.timer.scheduleWithFixedDelay(this::tick, this.intervalNanos, this.intervalNanos,
						TimeUnit.NANOSECONDS);
			}
			// a lease granted late (a slow acquire round trip) can reach its local
			// deadline before the next tick: check it right there
			long untilDeadline = run.deadlineNanos() - this.ticker.nanoTime();
			this.timer.schedule(() -> checkDeadline(run), Math.max(0, untilDeadline), TimeUnit.NANOSECONDS);
			long untilCap = run.capNanos() - this.ticker.nanoTime();
			return this.timer.schedule(() -> checkCap(run), Math.max(0, untilCap), TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			// closed concurrently
			this.runs.remove(run);
			return null;
		}
	}

	/**
	 * Keep renewing a lease claimed ahead of its run until {@link #dropAhead} (the run
	 * takes it over) or until a renewal finds it no longer held.
	 * @param claim the claim
	 * @return whether the watchdog renews it; {@code false} once the watchdog is closed
	 */
	boolean holdAhead(AheadClaim claim) {
		if (this.closed) {
			return false;
		}
		this.ahead.add(claim);
		try {
			if (this.started.compareAndSet(false, true)) {
				this.timer.scheduleWithFixedDelay(this::tick, this.intervalNanos, this.intervalNanos,
						TimeUnit.NANOSECONDS);
			}
		}
		catch (RuntimeException ex) {
			// closed concurrently
			this.ahead.remove(claim);
			return false;
		}
		return true;
	}

	/**
	 * Stop renewing a lease claimed ahead of its run.
	 * @param claim the claim
	 */
	void dropAhead(AheadClaim claim) {
		this.ahead.remove(claim);
	}

	/**
	 * Stop watching a run that ended.
	 * @param run the run
	 * @param capTimer the handle {@link #register} returned
	 */
	void unregister(ActiveRun run, @Nullable ScheduledFuture<?> capTimer) {
		this.runs.remove(run);
		if (capTimer != null) {
			capTimer.cancel(false);
		}
	}

	/**
	 * Return how many leases this node holds for running jobs.
	 * @return the number of held leases
	 */
	public int heldLeases() {
		return this.runs.size();
	}

	/**
	 * Return the names of the jobs whose leases this node holds.
	 * @return the job names
	 */
	public Set<String> heldJobs() {
		Set<String> names = ConcurrentHashMap.newKeySet();
		this.runs.forEach((run) -> names.add(run.jobName()));
		return names;
	}

	private void checkCap(ActiveRun run) {
		if (this.runs.contains(run)) {
			lose(run, "the run exceeded its lockAtMostFor of " + run.job().lockAtMostFor());
		}
	}

	/**
	 * One watchdog tick: check deadlines on this thread, then hand the renewal of every
	 * lease still valid to the renewal thread, unless the previous round trip is still
	 * under way.
	 */
	private void tick() {
		try {
			long now = this.ticker.nanoTime();
			LeaderElection leader = this.leader;
			HeldLease leaderLease = null;
			long earliestDeadline = now + this.intervalNanos;
			if (leader != null) {
				leader.checkDeadline(now);
				leaderLease = leader.currentLease();
				if (leaderLease != null && leader.deadlineNanos() - earliestDeadline < 0) {
					earliestDeadline = leader.deadlineNanos();
				}
			}
			List<ActiveRun> toRenew = new ArrayList<>(this.runs.size());
			for (ActiveRun run : this.runs) {
				if (now - run.capNanos() >= 0) {
					lose(run, "the run exceeded its lockAtMostFor of " + run.job().lockAtMostFor());
				}
				else if (now - run.deadlineNanos() >= 0) {
					lose(run, "no renewal succeeded within the lease TTL of " + Duration.ofNanos(this.ttlNanos)
							+ "; another node may hold the lease now");
				}
				else if (!run.isLost()) {
					toRenew.add(run);
					if (run.deadlineNanos() - earliestDeadline < 0) {
						earliestDeadline = run.deadlineNanos();
					}
				}
			}
			List<AheadClaim> aheadToRenew = new ArrayList<>(this.ahead.size());
			for (AheadClaim claim : this.ahead) {
				if (now - claim.deadlineNanos() >= 0 || now - claim.capNanos() >= 0) {
					// no renewal succeeded within a TTL, or no trigger took it for so
					// long
					// that it is let expire: the run that takes it renews it first, and
					// finds it gone if another node took it
					this.ahead.remove(claim);
				}
				else {
					aheadToRenew.add(claim);
				}
			}
			HeldLease leaderToRenew = leaderLease;
			if ((!toRenew.isEmpty() || !aheadToRenew.isEmpty() || leader != null)
					&& this.renewalInFlight.compareAndSet(false, true)) {
				try {
					this.renewer.execute(() -> roundTrip(toRenew, aheadToRenew, leader, leaderToRenew));
				}
				catch (RuntimeException ex) {
					this.renewalInFlight.set(false);
				}
			}
			// a renewal that keeps failing must not leave a run past its deadline until
			// the
			// next tick: check again right at the earliest deadline
			long untilDeadline = earliestDeadline - this.ticker.nanoTime();
			if (untilDeadline < this.intervalNanos && !this.closed) {
				this.timer.schedule(this::checkDeadlines, Math.max(0, untilDeadline), TimeUnit.NANOSECONDS);
			}
		}
		catch (Throwable ex) {
			logger.error("cluster-singleton watchdog tick failed", ex);
		}
	}

	private void checkDeadline(ActiveRun run) {
		if (this.runs.contains(run) && this.ticker.nanoTime() - run.deadlineNanos() >= 0) {
			lose(run, "no renewal succeeded within the lease TTL of " + Duration.ofNanos(this.ttlNanos)
					+ "; another node may hold the lease now");
		}
	}

	private void checkDeadlines() {
		long now = this.ticker.nanoTime();
		LeaderElection leader = this.leader;
		if (leader != null) {
			leader.checkDeadline(now);
		}
		for (ActiveRun run : this.runs) {
			if (now - run.deadlineNanos() >= 0) {
				lose(run, "no renewal succeeded within the lease TTL of " + Duration.ofNanos(this.ttlNanos)
						+ "; another node may hold the lease now");
			}
		}
	}

	/**
	 * One round trip of the renewal thread: renew the job leases and the leader lease,
	 * then, when this node is not the leader, ask for the leader lease.
	 */
	private void roundTrip(List<ActiveRun> batch, List<AheadClaim> aheadBatch, @Nullable LeaderElection leader,
			@Nullable HeldLease leaderLease) {
		try {
			if (!batch.isEmpty() || !aheadBatch.isEmpty() || leaderLease != null) {
				renew(batch, aheadBatch, leader, leaderLease);
			}
			if (leader != null && leaderLease == null && !this.closed) {
				leader.attempt();
			}
		}
		finally {
			this.renewalInFlight.set(false);
		}
	}

	private void renew(List<ActiveRun> batch, List<AheadClaim> aheadBatch, @Nullable LeaderElection leader,
			@Nullable HeldLease leaderLease) {
		List<HeldLease> leases = new ArrayList<>(batch.size() + aheadBatch.size() + 1);
		batch.forEach((run) -> leases.add(run.lease()));
		aheadBatch.forEach((claim) -> leases.add(claim.lease()));
		if (leaderLease != null) {
			leases.add(leaderLease);
		}
		long sent = this.ticker.nanoTime();
		try {
			Set<String> renewed = this.backend.renew(leases, Duration.ofNanos(this.ttlNanos));
			long took = this.ticker.nanoTime() - sent;
			if (leader != null && leaderLease != null) {
				if (renewed.contains(leaderLease.leaseToken())) {
					leader.renewed(leaderLease, sent);
				}
				else {
					leader.revoke(leaderLease, "the store no longer holds this node's leader lease");
				}
			}
			for (ActiveRun run : batch) {
				if (renewed.contains(run.lease().leaseToken())) {
					run.renewed(sent, this.ttlNanos);
				}
				else if (this.runs.contains(run)) {
					lose(run, "the store no longer holds this node's lease (it expired, was taken over or was "
							+ "force-released)");
				}
			}
			noteAhead(aheadBatch, renewed, (token) -> true, sent);
			notifyRenewal(leases, renewed.size(), took, null);
		}
		catch (PartialRenewalException ex) {
			// the renewed leases are good for another TTL, the lost ones are gone, and
			// the others are retried at the next tick, until their local deadline
			long took = this.ticker.nanoTime() - sent;
			for (ActiveRun run : batch) {
				String token = run.lease().leaseToken();
				if (ex.getRenewed().contains(token)) {
					run.renewed(sent, this.ttlNanos);
				}
				else if (ex.getLost().contains(token) && this.runs.contains(run)) {
					lose(run, "the store no longer holds this node's lease (it expired, was taken over or was "
							+ "force-released)");
				}
			}
			noteAhead(aheadBatch, ex.getRenewed(), ex.getLost()::contains, sent);
			if (leader != null && leaderLease != null) {
				if (ex.getRenewed().contains(leaderLease.leaseToken())) {
					leader.renewed(leaderLease, sent);
				}
				else if (ex.getLost().contains(leaderLease.leaseToken())) {
					leader.revoke(leaderLease, "the store no longer holds this node's leader lease");
				}
			}
			warnRenewalFailure(leases.size() - ex.getRenewed().size() - ex.getLost().size(), ex.getCause());
			notifyRenewal(leases, ex.getRenewed().size(), took, ex);
		}
		catch (Throwable ex) {
			long took = this.ticker.nanoTime() - sent;
			warnRenewalFailure(leases.size(), ex);
			notifyRenewal(leases, 0, took, ex);
		}
	}

	/**
	 * Note a renewal's answer for leases held ahead of their runs; a lost one is dropped.
	 */
	private void noteAhead(List<AheadClaim> batch, Set<String> renewed, Predicate<String> lost, long sent) {
		for (AheadClaim claim : batch) {
			String token = claim.lease().leaseToken();
			if (renewed.contains(token)) {
				claim.renewed(sent);
			}
			else if (lost.test(token)) {
				this.ahead.remove(claim);
			}
		}
	}

	private void notifyRenewal(List<HeldLease> leases, int renewed, long tookNanos, @Nullable Throwable error) {
		try {
			this.listener.renewalAttempted(leases, renewed, Duration.ofNanos(tookNanos), error);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton listener failed", ex);
		}
	}

	private void warnRenewalFailure(int count, Throwable ex) {
		int suppressed = this.renewalWarnings.admit();
		if (suppressed >= 0) {
			logger.warn(
					"cluster-singleton could not renew " + count + " lease(s) in the " + this.backend.id()
							+ " store; retrying every " + Duration.ofNanos(this.intervalNanos)
							+ " until each lease's local deadline"
							+ ((suppressed > 0) ? " (" + suppressed + " similar failures not logged)" : "") + ": " + ex,
					logger.isDebugEnabled() ? ex : null);
		}
	}

	private void lose(ActiveRun run, String reason) {
		if (!run.lose(reason)) {
			return;
		}
		logger.error("cluster-singleton job '" + run.jobName() + "' lost its lease (fencingToken=" + run.fencingToken()
				+ ", slot=" + run.lease().slot() + "): " + reason
				+ (this.interruptOnLeaseLoss ? "; interrupting the run" : "; the run goes on without a lease"));
		try {
			this.listener.leaseLost(run.job(), run.lease(), reason);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton listener failed", ex);
		}
		if (this.interruptOnLeaseLoss) {
			run.interrupt();
		}
	}

	/**
	 * Stop renewing. Every run still registered is declared lost (and interrupted when
	 * configured), since nothing keeps its lease alive any more.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.ahead.clear();
		for (ActiveRun run : this.runs) {
			lose(run, "the application is shutting down and the watchdog stopped renewing");
		}
		this.timer.shutdownNow();
		this.renewer.shutdownNow();
	}

}
