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
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.describeFailure;
import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * The background work of the registered jobs: a look for pending work every third of the
 * lease TTL, whose finds recovery workers claim; the catch-up of missed slots at startup
 * and when this node becomes the leader; and the refresh of the cluster-wide last
 * successes that tell overdue jobs.
 *
 * @author cluster-singleton contributors
 */
final class PendingWorkMonitor {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final LeaseBackend backend;

	private final ClusterSingletonExecutor.Settings settings;

	private final Clock clock;

	private final LeaseWatchdog watchdog;

	private final RunLedgerWriter ledger;

	private final EngineState state;

	private final CompletionDelivery delivery;

	private final OverdueTracker overdue;

	private final EngineExecutors executors;

	private final Runs runs;

	private final Map<String, RegisteredJob> registered = new ConcurrentHashMap<>();

	private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

	private volatile @Nullable ScheduledExecutorService background;

	private volatile @Nullable ExecutorService workers;

	private volatile @Nullable JobControlMonitor controlMonitor;

	private volatile @Nullable PreferredNodes preferredNodes;

	PendingWorkMonitor(LeaseBackend backend, ClusterSingletonExecutor.Settings settings, Clock clock,
			LeaseWatchdog watchdog, RunLedgerWriter ledger, EngineState state, CompletionDelivery delivery,
			OverdueTracker overdue, EngineExecutors executors, Runs runs) {
		this.backend = backend;
		this.settings = settings;
		this.clock = clock;
		this.watchdog = watchdog;
		this.ledger = ledger;
		this.state = state;
		this.delivery = delivery;
		this.overdue = overdue;
		this.executors = executors;
		this.runs = runs;
	}

	void register(JobDefinition job, ClusterSingletonExecutor.Invocation invocation, boolean runsNow) {
		this.registered.putIfAbsent(job.name(), new RegisteredJob(job, invocation, runsNow));
	}

	/**
	 * Return a registered job.
	 * @param jobName the job
	 * @return the job, or {@code null} when it is not registered
	 */
	@Nullable RegisteredJob registered(String jobName) {
		return this.registered.get(jobName);
	}

	/**
	 * Follow the cluster-wide controls of the registered jobs with the given monitor,
	 * every third of the lease TTL from the start of the background work.
	 * @param controlMonitor the monitor
	 */
	void setControlMonitor(JobControlMonitor controlMonitor) {
		this.controlMonitor = controlMonitor;
	}

	void setPreferredNodes(PreferredNodes preferredNodes) {
		this.preferredNodes = preferredNodes;
	}

	/**
	 * Read and act on the cluster-wide controls of the registered jobs now.
	 */
	void pollControls() {
		JobControlMonitor controlMonitor = this.controlMonitor;
		if (controlMonitor == null) {
			return;
		}
		try {
			LeaderElection leader = this.state.leader();
			Collection<RegisteredJob> jobs = this.registered.values();
			if (leader != null && !leader.isLeader()) {
				// the leader runs the requests; the others keep their view up to date
				controlMonitor.poll(jobs, null);
			}
			else {
				controlMonitor.poll(jobs, this);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton's look at the cluster-wide controls failed", ex);
		}
	}

	/**
	 * Start the background work of the registered jobs: at once and then every third of
	 * the lease TTL, one {@link LeaseBackend#findPending} round trip for all jobs with a
	 * recovery or misfire policy, whose pending work this node then tries to claim; a
	 * catch-up of the slots missed while no node ran, for jobs with a misfire policy; and
	 * the refresh of the cluster-wide last successes that tell overdue jobs.
	 */
	synchronized void start() {
		if (this.background != null || this.state.isClosing()) {
			return;
		}
		ScheduledExecutorService background = this.executors.monitor();
		this.workers = this.executors.recoveryWorkers();
		this.background = background;
		this.overdue.startWatching();
		PreferredNodes preferredNodes = this.preferredNodes;
		if (preferredNodes != null) {
			preferredNodes.start(this.executors.monitor());
		}
		long tick = Math.max(1, this.settings.leaseTtl().toMillis() / 3);
		boolean anyPolicy = this.registered.values().stream().anyMatch(RegisteredJob::hasPolicy);
		if (anyPolicy) {
			catchUpMissedSlots();
			background.scheduleWithFixedDelay(this::claimPendingWork, tick, tick, TimeUnit.MILLISECONDS);
		}
		if (this.controlMonitor != null && this.backend.controls().isPresent() && !this.registered.isEmpty()) {
			background.scheduleWithFixedDelay(this::pollControls, 0, tick, TimeUnit.MILLISECONDS);
		}
		if (this.ledger.ledger() != io.github.clustersingleton.RunLedger.NONE
				&& this.registered.values().stream().anyMatch((job) -> job.job().policies().alertAfter() != null)) {
			long refresh = this.overdue.refreshPeriod().toMillis();
			background.scheduleWithFixedDelay(this::refreshLastSuccesses, 0, refresh, TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * Catch up, in the background, the slots of the jobs with a misfire policy that no
	 * node claimed while none ran: when the background work starts, and in leader mode
	 * when this node becomes the leader.
	 */
	void catchUpMissedSlots() {
		if (this.background == null) {
			return;
		}
		LeaderElection leader = this.state.leader();
		if (leader != null && !leader.isLeader()) {
			return;
		}
		for (RegisteredJob registered : this.registered.values()) {
			if (registered.hasPolicy() && registered.job().policies().misfire() != MisfirePolicy.SKIP) {
				submit(registered, () -> catchUpAtStartup(registered));
			}
		}
	}

	/**
	 * Look for pending work of the registered jobs in one round trip, and claim it.
	 */
	void claimPendingWork() {
		try {
			if (this.state.isClosing()) {
				return;
			}
			LeaderElection leader = this.state.leader();
			if (leader != null && !leader.isLeader()) {
				return;
			}
			Set<String> held = this.watchdog.heldJobs();
			Map<String, ClaimPolicy> policies = new java.util.LinkedHashMap<>();
			for (RegisteredJob registered : this.registered.values()) {
				String name = registered.job().name();
				if (registered.hasPolicy() && registered.job().enabled() && !this.inFlight.contains(name)
						&& !held.contains(name) && !this.delivery.endingHere(name)) {
					policies.put(name, registered.job().policies().claimPolicy());
				}
			}
			if (policies.isEmpty()) {
				return;
			}
			Set<String> pending;
			try {
				pending = this.backend.findPending(policies);
			}
			catch (RuntimeException ex) {
				logger.debug("cluster-singleton could not look for pending runs in the " + this.backend.id()
						+ " lease store; the next tick tries again", ex);
				return;
			}
			for (String name : pending) {
				RegisteredJob registered = this.registered.get(name);
				if (registered != null) {
					submit(registered, () -> recover(registered));
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton's look for pending runs failed", ex);
		}
	}

	void submit(RegisteredJob registered, Runnable task) {
		ExecutorService workers = this.workers;
		String name = registered.job().name();
		if (workers == null || this.state.isClosing() || !this.inFlight.add(name)) {
			return;
		}
		try {
			workers.execute(() -> {
				try {
					task.run();
				}
				finally {
					this.inFlight.remove(name);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			this.inFlight.remove(name);
		}
	}

	private void recover(RegisteredJob registered) {
		JobDefinition job = registered.job();
		LeaseRequest request = LeaseRequest.recovery(job.name(), this.settings.owner(), EngineSupport.newLeaseToken(),
				this.settings.leaseTtl(), job.policies().claimPolicy());
		runInBackground(job, () -> {
			LeaderElection leader = this.state.leader();
			if (this.state.isClosing() || !job.enabled() || (leader != null && !leader.isLeader())
					|| this.delivery.endingHere(job.name())) {
				return;
			}
			this.runs.claimAndRun(job, request, RunTrigger.RECOVERY, registered.invocation());
		});
	}

	/**
	 * Catch up, when this node starts, the slots that no node claimed while none ran:
	 * when the store's last claimed slot of a job that has run before is earlier than the
	 * job's latest fire time, claim that fire time as a catch-up; the claim reports the
	 * slots missed before it.
	 */
	private void catchUpAtStartup(RegisteredJob registered) {
		JobDefinition job = registered.job();
		CronSlotSchedule schedule = job.schedule();
		if (schedule == null) {
			return;
		}
		Instant latest = schedule.latestAtOrBefore(this.clock.instant().minus(this.settings.slotTolerance()));
		if (latest == null) {
			return;
		}
		runInBackground(job, () -> {
			Instant lastSlot = this.backend.describe(job.name()).map(LeaseInfo::lastSlot).orElse(null);
			if (lastSlot == null || !lastSlot.isBefore(latest)) {
				// a job that never ran has nothing to catch up
				return;
			}
			logger.info("cluster-singleton job '" + job.name() + "' missed its slots after " + lastSlot
					+ " while no node ran it; catching up to " + latest + " (misfire="
					+ job.policies().misfire().name().toLowerCase(Locale.ROOT).replace('_', '-') + ")");
			this.runs.execute(job, latest, RunTrigger.CATCH_UP, registered.invocation());
		});
	}

	/**
	 * Claim {@code slot} of a job whose trigger this node left to the job's preferred
	 * node, which did not claim it, and run it, on the workers, as the trigger would
	 * have.
	 * @param jobName the job
	 * @param slot the slot
	 */
	void claimSkippedSlot(String jobName, Instant slot) {
		RegisteredJob registered = this.registered.get(jobName);
		if (registered == null) {
			return;
		}
		JobDefinition job = registered.job();
		submit(registered, () -> {
			if (this.state.isClosing() || !job.enabled()) {
				return;
			}
			try {
				this.runs.execute(job, slot, RunTrigger.SCHEDULED, registered.invocation());
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				// the scheduler's error handler would have logged it
				logger.error("cluster-singleton job '" + job.name() + "' failed in its run of slot " + slot
						+ ", claimed after its preferred node did not", ex);
			}
		});
	}

	private void runInBackground(JobDefinition job, BackgroundWork work) {
		try {
			work.run();
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			logger.warn("cluster-singleton could not take up pending work of job '" + job.name() + "': "
					+ describeFailure(ex), logger.isDebugEnabled() ? ex : null);
		}
	}

	/**
	 * Read the cluster-wide last successes of the registered jobs with an alert-after.
	 */
	void refreshLastSuccesses() {
		this.overdue.refreshLastSuccesses(this.registered.values());
	}

	/**
	 * Stop the background work: the scans at once, the recovery workers once their work
	 * ends.
	 */
	void shutdown() {
		if (background != null) {
			background.shutdownNow();
		}
		ExecutorService workers = this.workers;
		if (workers != null) {
			workers.shutdown();
		}
	}

	/**
	 * Return how many jobs are registered for background work.
	 * @return the count
	 */
	int registeredCount() {
		return this.registered.size();
	}

	/**
	 * Return the jobs registered for background work.
	 * @return the jobs
	 */
	List<JobDefinition> registeredJobs() {
		return this.registered.values().stream().map(RegisteredJob::job).toList();
	}

	@FunctionalInterface
	private interface BackgroundWork {

		void run() throws Throwable;

	}

	/**
	 * The engine's ways into a run, for the work this monitor takes up.
	 */
	interface Runs {

		boolean claimAndRun(JobDefinition job, LeaseRequest request, RunTrigger trigger,
				ClusterSingletonExecutor.Invocation invocation) throws Throwable;

		boolean execute(JobDefinition job, @Nullable Instant slot, RunTrigger trigger,
				ClusterSingletonExecutor.Invocation invocation) throws Throwable;

	}

}
