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

import java.time.Clock;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.NodePresence;
import org.jspecify.annotations.Nullable;

/**
 * The wiring of the engine: every collaborator of a {@link ClusterSingletonExecutor},
 * built once from the store, the settings and the time seams, and shared by the executor,
 * its {@link ReactiveRun reactive runs} and its {@link EngineShutdown shutdown}.
 *
 * @author cluster-singleton contributors
 */
final class EngineComponents {

	final LeaseBackend backend;

	final ClusterSingletonExecutor.Settings settings;

	final Clock clock;

	final Ticker ticker;

	final Sleeper sleeper;

	final EngineState state = new EngineState();

	final LeaseWatchdog watchdog;

	final StoreClock storeClock;

	final RunLedgerWriter ledger;

	final OverdueTracker overdue;

	final CompletionDelivery delivery;

	final LeaseClaimer claimer;

	final GuardedRun guardedRun;

	final PendingWorkRunner pendingWork;

	final PendingWorkMonitor monitor;

	final CronOverrides overrides = new CronOverrides();

	final JobControlMonitor controls;

	final InstantClaims instantClaims;

	final SettleBehind settleBehind;

	/**
	 * How long after its fire time a node that is not the leader starts, in leader mode,
	 * a cron trigger it will skip: behind the leader's claims of the same instant, which
	 * share the machine's cores with the other nodes' skips where nodes share a host, and
	 * well before the job's next fire time ({@link #leaderHorizon()}).
	 */
	static final java.time.Duration LEADER_DEFERRAL = java.time.Duration.ofSeconds(1);

	/** Preferred-node routing, when on. */
	volatile @Nullable PreferredNodes preferredNodes;

	EngineComponents(LeaseBackend backend, ClusterSingletonExecutor.Settings settings, Clock clock,
			ClusterSingletonListener listener, Ticker ticker, EngineExecutors executors, Sleeper sleeper,
			PendingWorkMonitor.Runs runs) {
		this.backend = backend;
		this.settings = settings;
		this.clock = clock;
		this.ticker = ticker;
		this.sleeper = sleeper;
		this.watchdog = new LeaseWatchdog(backend, settings.leaseTtl(), settings.interruptOnLeaseLoss(), listener,
				ticker, executors);
		this.storeClock = new StoreClock(clock);
		backend.setStoreClockObserver(this.storeClock);
		this.ledger = new RunLedgerWriter(backend.runLedger(), ticker, executors);
		this.overdue = new OverdueTracker(this.ledger, clock, settings.leaseTtl());
		this.delivery = new CompletionDelivery(backend, settings, this.ledger, this.state, ticker, executors, sleeper);
		this.claimer = new LeaseClaimer(backend, settings, listener, this.storeClock, this.state, this.delivery,
				ticker);
		this.guardedRun = new GuardedRun(settings, clock, listener, this.watchdog, this.ledger, this.state,
				this.delivery, this.overdue, ticker);
		this.pendingWork = new PendingWorkRunner(backend, settings, this.ledger, this.guardedRun, this.delivery,
				ticker);
		this.monitor = new PendingWorkMonitor(backend, settings, clock, this.watchdog, this.ledger, this.state,
				this.delivery, this.overdue, executors, runs);
		this.instantClaims = new InstantClaims(backend, settings, this.state, this.watchdog, this.delivery, ticker);
		this.settleBehind = new SettleBehind(this.state, this.watchdog, executors, ticker, settings.leaseTtl());
		this.controls = new JobControlMonitor(this, this.overrides);
		this.monitor.setControlMonitor(this.controls);
		this.claimer.setControlMonitor(this.controls);
		this.overdue.setControlMonitor(this.controls);
	}

	/**
	 * Turn preferred-node routing on, when the store offers presence entries.
	 * @param sweepDelay how long after a fire time the other nodes look whether the
	 * preferred node claimed the slot
	 * @return whether routing is on
	 */
	boolean enablePreferredNodes(java.time.Duration sweepDelay) {
		NodePresence presence = this.backend.presence().orElse(null);
		if (presence == null) {
			return false;
		}
		PreferredNodes preferredNodes = new PreferredNodes(presence, this.settings.owner(), this.settings.leaseTtl(),
				sweepDelay, this.settings.slotTolerance(), this.clock, this.storeClock, this.monitor);
		this.preferredNodes = preferredNodes;
		this.monitor.setPreferredNodes(preferredNodes);
		return true;
	}

	/**
	 * Whether preferred-node routing leaves this cron trigger to another node (and puts
	 * the job on the slot's sweep here).
	 */
	boolean leftToPreferredNode(JobDefinition job, java.time.Instant slot) {
		PreferredNodes preferredNodes = this.preferredNodes;
		if (preferredNodes == null || this.state.leader() != null || !job.enabled() || this.state.isClosing()
				|| !preferredNodes.skips(job, slot)) {
			return false;
		}
		this.claimer.notPreferred(job, slot);
		return true;
	}

	/**
	 * Whether this node expects to leave this cron trigger to another node:
	 * preferred-node routing would, as {@link #leftToPreferredNode} decides (without
	 * putting the job on a sweep), or leader mode is on and this node is not the leader,
	 * for a job that fires again later than {@link #leaderHorizon()} after the slot.
	 */
	boolean defersTrigger(JobDefinition job, java.time.Instant slot) {
		this.instantClaims.queued(job, slot);
		if (!job.enabled() || this.state.isClosing()) {
			return false;
		}
		LeaderElection leader = this.state.leader();
		if (leader != null) {
			CronSlotSchedule schedule = job.schedule();
			if (schedule == null || leader.isLeader()) {
				return false;
			}
			java.time.Instant next = schedule.next(slot);
			return next == null || next.isAfter(slot.plus(leaderHorizon()));
		}
		PreferredNodes preferredNodes = this.preferredNodes;
		return preferredNodes != null && preferredNodes.defers(job, slot);
	}

	/**
	 * How long after its fire time a cron trigger that {@link #defersTrigger} starts:
	 * four fifths of the sweep delay with routing, {@link #LEADER_DEFERRAL} in leader
	 * mode.
	 */
	java.time.Duration triggerDeferral() {
		if (this.state.leader() != null) {
			return LEADER_DEFERRAL;
		}
		PreferredNodes preferredNodes = this.preferredNodes;
		return (preferredNodes != null) ? preferredNodes.deferral() : ScheduledFireTime.DEFERRAL;
	}

	/**
	 * How far at least a job's next fire time must be from a slot for a node that is not
	 * the leader to start the slot's trigger {@link #LEADER_DEFERRAL} late: the deferral,
	 * the slot tolerance by which the leader may claim the next slot early, and
	 * {@link PreferredNodes#CLAIM_MARGIN}, so that a node that has become the leader in
	 * the meantime still claims the slot before the next one is claimed.
	 */
	private java.time.Duration leaderHorizon() {
		return LEADER_DEFERRAL.plus(this.settings.slotTolerance()).plus(PreferredNodes.CLAIM_MARGIN);
	}

	/**
	 * Turn leader mode on ({@link ClusterSingletonExecutor#enableLeaderMode}): the node
	 * that becomes the leader does the catch-up of missed slots.
	 */
	LeaderElection enableLeaderMode(String leaseName, LeaderElection.Listener listener) {
		LeaderElection.Listener catchingUp = new LeaderElection.Listener() {

			@Override
			public void granted(long term) {
				try {
					listener.granted(term);
				}
				finally {
					// the catch-up a node does when it starts is skipped while it is not
					// the leader: the node that becomes the leader does it
					EngineComponents.this.monitor.catchUpMissedSlots();
				}
			}

			@Override
			public void revoked(long term, String reason) {
				listener.revoked(term, reason);
			}

		};
		LeaderElection leader = new LeaderElection(this.backend, this.settings.owner(), leaseName,
				this.settings.leaseTtl(), catchingUp, this.ticker);
		this.watchdog.setLeaderElection(leader);
		this.state.setLeader(leader);
		return leader;
	}

}
