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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.LeaseBackend;
import org.jspecify.annotations.Nullable;

/**
 * The read-only state of an engine, for the endpoint, the health indicator and the
 * metrics: the leases this node holds, the store's clock offset, the run ledger, the jobs
 * registered for background work and whether they are overdue. Only
 * {@link ClusterSingletonExecutor} extends it.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public abstract class EngineStatus {

	EngineStatus() {
	}

	/**
	 * Return the collaborators of the engine.
	 */
	abstract EngineComponents engine();

	/**
	 * Return how far this node's clock is from the store's, as measured from the last
	 * acquire or renewal round trip that carried the store's time.
	 * @return this node's clock minus the store's, or empty before the first measurement
	 * (and always on a backend whose store has no clock it reports)
	 */
	public Optional<Duration> clockOffset() {
		return engine().storeClock.offset();
	}

	/**
	 * Return the leader election, in leader mode.
	 * @return the election, or empty when leader mode is off
	 */
	public Optional<LeaderElection> leadership() {
		return Optional.ofNullable(engine().state.leader());
	}

	/**
	 * Return the lease store this executor uses.
	 * @return the backend
	 */
	public LeaseBackend getBackend() {
		return engine().backend;
	}

	/**
	 * Return the settings of this executor.
	 * @return the settings
	 */
	public ClusterSingletonExecutor.Settings getSettings() {
		return engine().settings;
	}

	/**
	 * Return the clock this executor reads wall time from.
	 * @return the clock
	 */
	public Clock getClock() {
		return engine().clock;
	}

	/**
	 * Return the names of the jobs whose leases this node holds right now.
	 * @return the job names
	 */
	public Set<String> heldJobs() {
		return engine().watchdog.heldJobs();
	}

	/**
	 * Return how many leases this node holds right now.
	 * @return the number of held leases
	 */
	public int heldLeases() {
		return engine().watchdog.heldLeases();
	}

	/**
	 * Return the cluster-wide run ledger of the lease store.
	 * @return the ledger, {@link io.github.clustersingleton.RunLedger#NONE} when the
	 * store keeps none
	 */
	public io.github.clustersingleton.RunLedger runLedger() {
		return engine().ledger.ledger();
	}

	/**
	 * Return how many ledger writes failed or were dropped since startup.
	 * @return the number of failed ledger writes
	 */
	public long ledgerFailures() {
		return engine().ledger.failures();
	}

	/**
	 * Return when a job last ended a run successfully anywhere in the cluster, as the run
	 * ledger told at its last refresh, or later when this node has run it since.
	 * @param jobName the job name
	 * @return the end of the latest successful run, or empty when none is known
	 */
	public Optional<Instant> clusterLastSuccess(String jobName) {
		return engine().overdue.clusterLastSuccess(jobName);
	}

	/**
	 * Return whether no node has run a job successfully within its {@code alert-after},
	 * judged from the cluster-wide run ledger (and, while the ledger knows no success,
	 * from when this node started watching). Always {@code false} on a store without a
	 * run ledger.
	 * @param job the job
	 * @return {@code true} when the job is overdue; {@code false} also for a job without
	 * an alert-after
	 */
	public boolean isOverdue(JobDefinition job) {
		return engine().overdue.isOverdue(job);
	}

	/**
	 * Return the jobs registered for background work.
	 * @return the jobs
	 */
	public List<JobDefinition> registeredJobs() {
		return engine().monitor.registeredJobs();
	}

	/**
	 * Return how many completions of runs here the store has not taken yet.
	 * @return the number of undelivered completions
	 */
	public int undeliveredCompletions() {
		return engine().delivery.undeliveredCompletions();
	}

	/**
	 * Return this node's latest view of a job's cluster-wide controls, as the control
	 * monitor read them from the store at most a third of the lease TTL ago (no store
	 * round trip).
	 * @param jobName the job
	 * @return the controls, or empty before the first read that covered the job (or when
	 * the store keeps no controls)
	 */
	public Optional<JobControl> cachedControls(String jobName) {
		return Optional.ofNullable(engine().controls.cached(jobName));
	}

	/**
	 * Return this node's latest view of the cluster-wide controls of every job registered
	 * here.
	 * @return the controls as last read, by job (empty before the first read)
	 */
	public Map<String, JobControl> cachedControls() {
		return engine().controls.cached();
	}

	/**
	 * Return whether this node's latest view shows a job paused cluster-wide.
	 * @param jobName the job
	 * @return {@code true} when paused as of the last read
	 */
	public boolean isPaused(String jobName) {
		return engine().controls.isPaused(jobName);
	}

	/**
	 * Return the cron overrides this node's triggers follow.
	 * @return the overrides
	 */
	public CronOverrides cronOverrides() {
		return engine().overrides;
	}

	/**
	 * Return whether a job is registered here with a body that can run a run-now request
	 * (a scheduled method that is neither reactive nor a suspend function).
	 * @param jobName the job
	 * @return {@code true} when this node can run the job's run-now requests
	 */
	public boolean runsNow(String jobName) {
		RegisteredJob registered = engine().monitor.registered(jobName);
		return registered != null && registered.runsNow();
	}

	/**
	 * Read the cluster-wide controls of the registered jobs now and act on them, as the
	 * control monitor does every third of the lease TTL once the background work started.
	 */
	public void pollControls() {
		engine().monitor.pollControls();
	}

	/**
	 * Return the slot of a scheduled trigger of a job on this thread: the fire time the
	 * scheduler meant where it is known, else derived from the job's cron schedule and
	 * this node's clock.
	 * @param job the job
	 * @return the slot, or {@code null} for a job without a cron schedule
	 */
	public @Nullable Instant slotOf(JobDefinition job) {
		CronSlotSchedule schedule = engine().overrides.apply(job).schedule();
		if (schedule == null) {
			return null;
		}
		Instant fireTime = ScheduledFireTime.current();
		return (fireTime != null) ? fireTime
				: schedule.slotFor(engine().clock.instant(), engine().settings.slotTolerance());
	}

	/**
	 * Whether this node will leave a cron trigger of the job to another node, its
	 * preferred node for the slot or, in leader mode, the leader, if nothing changes
	 * until the fire time: the scheduler then runs the trigger a moment after the node's
	 * own triggers of the same instant ({@link ScheduledFireTime}), whose claims are the
	 * ones that start runs. Only the order changes: the trigger still decides as it runs,
	 * for the same slot.
	 * @param job the job
	 * @param fireTime the trigger's fire time, its slot
	 * @return whether the trigger can wait for this node's own triggers
	 */
	public boolean defersTrigger(JobDefinition job, Instant fireTime) {
		return engine().defersTrigger(engine().overrides.apply(job), fireTime);
	}

	/**
	 * Skip this scheduled cron trigger of the job if preferred-node routing leaves it to
	 * another node, as a scheduled run of the job would (the job is put on the slot's
	 * sweep here and the skip counted as {@code not-preferred}), so that the scheduler
	 * need not run the job's task for it.
	 * @param job the job
	 * @param fireTime the trigger's fire time, its slot
	 * @return whether the trigger was skipped, left to another node
	 */
	public boolean skipTrigger(JobDefinition job, Instant fireTime) {
		return engine().leftToPreferredNode(engine().overrides.apply(job), fireTime);
	}

	/**
	 * Hear that the trigger of a job for a fire time will not run (its task was armed
	 * again on another trigger first): a lease this node claimed for it ahead, in leader
	 * mode, is given back.
	 * @param jobName the job
	 * @param fireTime the fire time
	 */
	public void triggerDropped(String jobName, Instant fireTime) {
		engine().instantClaims.dropped(jobName, fireTime);
	}

	/**
	 * How long after its fire time a cron trigger that {@link #defersTrigger} starts:
	 * four fifths of the sweep delay, so that the claims of an instant across the cluster
	 * are mostly done before the nodes skip the triggers they leave to others, and a
	 * deferred trigger that finds its node preferred after all claims, as a rule, before
	 * the other nodes' first sweep (which, should it come first, claims the slot itself:
	 * one of the two claims wins). In leader mode, one second: the leader's claims of an
	 * instant take longer, and no sweep follows.
	 * @return the deferral, or {@link ScheduledFireTime#DEFERRAL 10 ms} without routing
	 * or leader mode
	 */
	public Duration triggerDeferral() {
		return engine().triggerDeferral();
	}

}
