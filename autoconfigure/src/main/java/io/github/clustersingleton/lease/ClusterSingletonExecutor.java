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
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Runs guarded jobs: acquires the job's lease (with its cron slot when the scheduler
 * triggered it), runs the job under the watchdog, then releases the lease, honouring
 * {@code lockAtLeastFor}. A trigger that cannot get the lease skips the run; a store
 * failure at acquisition is logged and also skips the run, and never reaches the caller.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonExecutor extends EngineStatus implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final EngineComponents engine;

	private final RunProtocol protocol;

	private volatile boolean backendInitialized;

	/**
	 * Guards the store's initialization, a round trip to the store: a lock rather than a
	 * monitor, so that a virtual thread waiting for it or holding it during that round
	 * trip does not pin its carrier thread (JDK 21 to 23).
	 */
	private final ReentrantLock initializeLock = new ReentrantLock();

	private Duration shutdownGracePeriod = Duration.ZERO;

	/**
	 * Create an executor.
	 * @param backend the lease store
	 * @param settings the engine settings
	 * @param clock the clock every wall-time read goes through
	 * @param listener the listener to notify
	 */
	public ClusterSingletonExecutor(LeaseBackend backend, Settings settings, Clock clock,
			ClusterSingletonListener listener) {
		this(backend, settings, clock, listener, Ticker.SYSTEM, EngineExecutors.standard());
	}

	/**
	 * Create an executor that measures time with {@code ticker} and runs its background
	 * work on threads from {@code executors}: the seams a test drives the engine through
	 * in virtual time.
	 * @param backend the lease store
	 * @param settings the engine settings
	 * @param clock the clock every wall-time read goes through
	 * @param listener the listener to notify
	 * @param ticker the monotonic clock of every deadline and pause
	 * @param executors creates the engine's threads
	 * @since 0.1.0
	 */
	public ClusterSingletonExecutor(LeaseBackend backend, Settings settings, Clock clock,
			ClusterSingletonListener listener, Ticker ticker, EngineExecutors executors) {
		this(backend, settings, clock, listener, ticker, executors, Sleeper.SYSTEM);
	}

	/**
	 * Create an executor that measures time with {@code ticker}, runs its background work
	 * on threads from {@code executors} and pauses its shutdown waits with
	 * {@code sleeper}: the seams a test drives the engine through in virtual time.
	 * @param backend the lease store
	 * @param settings the engine settings
	 * @param clock the clock every wall-time read goes through
	 * @param listener the listener to notify
	 * @param ticker the monotonic clock of every deadline and pause
	 * @param executors creates the engine's threads
	 * @param sleeper pauses the shutdown waits
	 * @since 0.1.0
	 */
	public ClusterSingletonExecutor(LeaseBackend backend, Settings settings, Clock clock,
			ClusterSingletonListener listener, Ticker ticker, EngineExecutors executors, Sleeper sleeper) {
		Assert.notNull(backend, "'backend' must not be null");
		Assert.notNull(settings, "'settings' must not be null");
		Assert.notNull(clock, "'clock' must not be null");
		Assert.notNull(listener, "'listener' must not be null");
		Assert.notNull(ticker, "'ticker' must not be null");
		Assert.notNull(executors, "'executors' must not be null");
		Assert.notNull(sleeper, "'sleeper' must not be null");
		this.engine = new EngineComponents(backend, settings, clock, listener, ticker, executors, sleeper,
				new PendingWorkMonitor.Runs() {

					@Override
					public boolean claimAndRun(JobDefinition job, LeaseRequest request, RunTrigger trigger,
							Invocation invocation) throws Throwable {
						return ClusterSingletonExecutor.this.protocol.claimAndRun(job, request, trigger, invocation,
								null);
					}

					@Override
					public boolean execute(JobDefinition job, @Nullable Instant slot, RunTrigger trigger,
							Invocation invocation) throws Throwable {
						return ClusterSingletonExecutor.this.execute(job, slot, trigger, invocation);
					}

				});
		this.protocol = new RunProtocol(this.engine);
	}

	@Override
	EngineComponents engine() {
		return this.engine;
	}

	/**
	 * Turn leader mode on: from {@link #startLeaderElection()} on, this node asks for the
	 * leader lease at every watchdog tick, and guarded jobs run only while it is the
	 * leader. Call before the first run.
	 * @param leaseName the name of the leader lease in the store
	 * @param listener told when leadership begins and ends
	 * @return the election, which reports this node's leadership
	 */
	public synchronized LeaderElection enableLeaderMode(String leaseName, LeaderElection.Listener listener) {
		Assert.hasText(leaseName, "'leaseName' must not be empty");
		Assert.notNull(listener, "'listener' must not be null");
		Assert.state(this.engine.state.leader() == null, "Leader mode is already on");
		return this.engine.enableLeaderMode(leaseName, listener);
	}

	/**
	 * Ask for the leader lease now and at every watchdog tick from now on.
	 */
	public void startLeaderElection() {
		Assert.state(this.engine.state.leader() != null, "Leader mode is off");
		this.engine.watchdog.start();
	}

	/**
	 * Prepare the lease store ({@link LeaseBackend#initialize()}) unless that already
	 * succeeded: at startup when the application has annotated jobs, else at the first
	 * programmatic run.
	 * @throws io.github.clustersingleton.ClusterSingletonConfigurationException when the
	 * store is reachable but cannot be used as configured
	 */
	public void initializeBackend() {
		if (this.backendInitialized) {
			return;
		}
		this.initializeLock.lock();
		try {
			if (!this.backendInitialized) {
				this.engine.backend.initialize();
				this.backendInitialized = true;
			}
		}
		finally {
			this.initializeLock.unlock();
		}
	}

	/**
	 * Set the observer that brackets every trigger that reaches the store, for tracing.
	 * @param runObserver the observer, {@link RunObserver#NONE} for none
	 */
	public void setRunObserver(RunObserver runObserver) {
		Assert.notNull(runObserver, "'runObserver' must not be null");
		this.engine.claimer.setRunObserver(runObserver);
	}

	/**
	 * Set how many runs of each job the run ledger keeps
	 * ({@code cluster-singleton.history.max-runs}).
	 * @param maxRuns the number of runs
	 */
	public void setHistoryMaxRuns(int maxRuns) {
		Assert.isTrue(maxRuns >= 1, "'maxRuns' must be at least 1");
		this.engine.ledger.setMaxRuns(maxRuns);
	}

	/**
	 * Register a job that the scheduler triggers, with a way to run its body outside a
	 * trigger: for recovery and catch-up runs, and for the overdue check.
	 * @param job the job
	 * @param invocation runs the job's body (through its proxy, see
	 * {@link PreparedInvocation})
	 */
	public void registerJob(JobDefinition job, Invocation invocation) {
		registerJob(job, invocation, true);
	}

	/**
	 * Register a job that the scheduler triggers, telling whether its invocation does the
	 * job's whole work (and can run a run-now request) or only starts it (a reactive or
	 * suspending method).
	 * @param job the job
	 * @param invocation runs the job's body
	 * @param runsNow whether run-now requests of the job are run through
	 * {@code invocation}
	 */
	public void registerJob(JobDefinition job, Invocation invocation, boolean runsNow) {
		Assert.notNull(job, "'job' must not be null");
		Assert.notNull(invocation, "'invocation' must not be null");
		this.engine.monitor.register(job, invocation, runsNow);
	}

	/**
	 * Start the background work of the registered jobs: at once and then every third of
	 * the lease TTL, one {@link LeaseBackend#findPending} round trip for all jobs with a
	 * recovery or misfire policy, whose pending work this node then tries to claim; a
	 * catch-up of the slots missed while no node ran, for jobs with a misfire policy; and
	 * the refresh of the cluster-wide last successes that tell overdue jobs.
	 */
	public synchronized void startBackgroundWork() {
		this.engine.monitor.start();
	}

	/**
	 * Read the cluster-wide last successes of the jobs with an alert-after from the run
	 * ledger now, in one round trip.
	 */
	void refreshLastSuccesses() {
		this.engine.monitor.refreshLastSuccesses();
	}

	/**
	 * Run a job if this node gets its lease. When {@code scheduled} is true the slot is
	 * the fire time the scheduler meant ({@link ScheduledFireTime}) where it is known,
	 * and otherwise derived from the job's cron schedule and this node's clock.
	 * @param job the job
	 * @param scheduled whether the scheduler triggered this run (direct calls have no
	 * slot)
	 * @param invocation the job's body
	 * @return whether the job ran
	 * @throws Throwable what the job threw
	 */
	public boolean execute(JobDefinition job, boolean scheduled, Invocation invocation) throws Throwable {
		job = this.engine.overrides.apply(job);
		CronSlotSchedule schedule = job.schedule();
		Instant slot = null;
		if (scheduled && schedule != null) {
			Instant fireTime = ScheduledFireTime.current();
			slot = (fireTime != null) ? fireTime
					: schedule.slotFor(this.engine.clock.instant(), this.engine.settings.slotTolerance());
		}
		if (scheduled && slot != null && this.engine.leftToPreferredNode(job, slot)) {
			return false;
		}
		return execute(job, slot, scheduled ? RunTrigger.SCHEDULED : RunTrigger.DIRECT, invocation);
	}

	/**
	 * Turn preferred-node routing on: each job's cron slot is claimed at its fire time by
	 * one live node, picked alike on every node; the others claim it {@code sweepDelay}
	 * later only if that node did not. Needs a store that keeps presence entries
	 * ({@link LeaseBackend#presence()}); call before {@link #startBackgroundWork()}.
	 * @param sweepDelay how long after a fire time the other nodes look whether the slot
	 * was claimed
	 * @return whether routing is on (the store supports it)
	 */
	public synchronized boolean enablePreferredNodes(Duration sweepDelay) {
		Assert.isTrue(sweepDelay != null && !sweepDelay.isNegative() && !sweepDelay.isZero(),
				"'sweepDelay' must be positive");
		Assert.state(this.engine.preferredNodes == null, "Preferred-node routing is already on");
		return this.engine.enablePreferredNodes(sweepDelay);
	}

	/**
	 * Run a job for an explicit slot if this node gets its lease, as a direct call (no
	 * recovery or catch-up policy applies).
	 * @param job the job
	 * @param slot the slot the run claims, or {@code null} for none
	 * @param invocation the job's body
	 * @return whether the job ran
	 * @throws Throwable what the job threw
	 */
	public boolean execute(JobDefinition job, @Nullable Instant slot, Invocation invocation) throws Throwable {
		return execute(job, slot, RunTrigger.DIRECT, invocation);
	}

	/**
	 * Run a job for an explicit slot if this node gets its lease. A
	 * {@link RunTrigger#SCHEDULED scheduled} or {@link RunTrigger#CATCH_UP catch-up}
	 * claim of a slot applies the job's misfire and recovery policies: when the store
	 * reports work pending on the job (a dead or failed run to repeat, slots nobody
	 * claimed), this node does that work first, in slot order, under the lease it just
	 * took.
	 * @param definition the job
	 * @param slot the slot the run claims, or {@code null} for none
	 * @param trigger why the run starts
	 * @param invocation the job's body
	 * @return whether the job ran
	 * @throws Throwable what the job threw
	 */
	public boolean execute(JobDefinition definition, @Nullable Instant slot, RunTrigger trigger, Invocation invocation)
			throws Throwable {
		JobDefinition job = this.engine.overrides.apply(definition);
		// the end of the job's last run here, if it waits, reaches the store first
		this.engine.settleBehind.settled(job.name());
		AheadClaim ahead = (slot != null && trigger == RunTrigger.SCHEDULED) ? this.engine.instantClaims.take(job, slot)
				: null;
		if (ahead != null) {
			// this node holds the slot's lease: it runs the slot even if it no longer
			// leads
			if (this.engine.state.isClosing() || !job.enabled()) {
				// logs why the trigger is skipped
				this.engine.claimer.skippedLocally(job, slot);
				this.engine.delivery.releaseQuietly(ahead.lease(), ahead.job());
				return false;
			}
			return this.protocol.claimAndRun(job, ahead.request(), trigger, invocation, ahead);
		}
		if (this.engine.claimer.skippedLocally(job, slot) || this.engine.claimer.pausedLocally(job, slot, trigger)) {
			return false;
		}
		if (slot != null && this.engine.delivery.endingHere(job.name())) {
			EngineSupport.debug(logger,
					() -> "cluster-singleton skipped job '" + job.name() + "'" + EngineSupport.describeSlot(slot)
							+ ": the end of its last run here has not reached the " + this.engine.backend.id()
							+ " lease store yet");
			return false;
		}
		return this.protocol.claimAndRun(job, requestFor(job, slot, trigger, this.engine.settings), trigger, invocation,
				null);
	}

	/**
	 * Return the claim a trigger of a job makes for a slot: a new lease token, and the
	 * job's claim policy where it applies.
	 */
	static LeaseRequest requestFor(JobDefinition job, @Nullable Instant slot, RunTrigger trigger, Settings settings) {
		LeaseRequest request = new LeaseRequest(job.name(), settings.owner(), EngineSupport.newLeaseToken(),
				settings.leaseTtl(), slot, settings.slotTolerance());
		ClaimPolicy policy = LeaseClaimer.claimPolicy(job, slot, trigger);
		if (policy.isActive()) {
			CronSlotSchedule schedule = job.schedule();
			Instant previous = (policy.catchUp() && schedule != null && slot != null) ? schedule.previousSlot(slot)
					: null;
			request = request.withPolicy(policy, previous);
		}
		return request;
	}

	/**
	 * Start a run whose work a reactive publisher does: acquire the job's lease now, on
	 * the calling thread, and keep it renewed until {@link ReactiveRun#finish} is called
	 * (on completion, error or cancellation of the subscription). A lost lease or
	 * {@code lockAtMostFor} calls the run's canceller instead of interrupting a thread.
	 * Recovery and misfire policies do not apply to reactive runs.
	 * @param job the job
	 * @param slot the slot the run claims, or {@code null}
	 * @param trigger why the run starts
	 * @return the run, or {@code null} when this node did not get the lease (the trigger
	 * is skipped, as for any other job)
	 */
	public @Nullable ReactiveRun startReactive(JobDefinition job, @Nullable Instant slot, RunTrigger trigger) {
		return ReactiveRun.start(this.engine, job, slot, trigger);
	}

	/**
	 * Stop taking new leases; runs under way go on and release their leases when they
	 * end. Called when the application context starts closing.
	 */
	public void beginShutdown() {
		this.engine.state.beginShutdown();
		this.engine.instantClaims.releaseUntaken();
	}

	/**
	 * Shut down: stop taking new leases, wait up to {@code gracePeriod} for running jobs
	 * to end (they release their leases themselves), then stop the watchdog; runs still
	 * going are declared lost and interrupted when configured.
	 * @param gracePeriod how long to wait for running jobs
	 */
	public void shutdown(Duration gracePeriod) {
		EngineShutdown.shutdown(this.engine, gracePeriod);
	}

	/**
	 * Set how long {@link #close()} waits for running jobs.
	 * @param shutdownGracePeriod the grace period
	 */
	public void setShutdownGracePeriod(Duration shutdownGracePeriod) {
		Assert.notNull(shutdownGracePeriod, "'shutdownGracePeriod' must not be null");
		this.shutdownGracePeriod = shutdownGracePeriod;
	}

	/**
	 * Shut down, waiting up to the {@link #setShutdownGracePeriod grace period} for
	 * running jobs.
	 */
	@Override
	public void close() {
		shutdown(this.shutdownGracePeriod);
	}

	/**
	 * The body of a guarded run.
	 */
	@FunctionalInterface
	public interface Invocation {

		/**
		 * Run the job.
		 * @return what the job returned
		 * @throws Throwable what the job threw
		 */
		@Nullable Object proceed() throws Throwable;

	}

	/**
	 * Settings of the engine.
	 *
	 * @param owner the identity of this node in the store
	 * @param leaseTtl the time to live of a lease between renewals
	 * @param slotTolerance how early a cron trigger may fire and still own the next slot
	 * @param interruptOnLeaseLoss whether to interrupt a run that lost its lease
	 */
	public record Settings(String owner, Duration leaseTtl, Duration slotTolerance, boolean interruptOnLeaseLoss) {

		public Settings {
			Assert.hasText(owner, "'owner' must not be empty");
			Assert.isTrue(leaseTtl != null && leaseTtl.compareTo(Duration.ofMillis(1)) >= 0,
					"'leaseTtl' must be positive");
			Assert.isTrue(slotTolerance != null && !slotTolerance.isNegative(), "'slotTolerance' must not be negative");
		}

	}

}
