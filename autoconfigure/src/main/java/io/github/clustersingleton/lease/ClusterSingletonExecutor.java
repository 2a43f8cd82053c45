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

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.log.LogMessage;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
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
public class ClusterSingletonExecutor implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private static final SecureRandom TOKEN_SOURCE = new SecureRandom();

	private static final long CLOCK_SKEW_WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	/**
	 * How many missed slots a {@code run-once} catch-up lists at most in
	 * {@link ClusterSingletonContext#missedSlots()}.
	 */
	private static final int MAX_MISSED_SLOTS = 1000;

	/**
	 * The longest pause between two attempts to record a run's completion that the store
	 * did not take: well within the recovery grace (a quarter of the TTL) of any TTL the
	 * engine accepts, so that a store that answers again hears of the completion before
	 * another node's recovery claim may take the run over.
	 */
	private static final long MAX_COMPLETION_RETRY_PAUSE_MILLIS = 250;

	/**
	 * How long at least the engine keeps trying to record a completion, whatever the
	 * job's {@code lockAtMostFor}.
	 */
	private static final Duration MIN_COMPLETION_RETRY_PERIOD = Duration.ofMinutes(2);

	private final Map<String, Long> clockSkewWarnings = new ConcurrentHashMap<>();

	private final LeaseBackend backend;

	private final Settings settings;

	private final Clock clock;

	private final ClusterSingletonListener listener;

	private final LeaseWatchdog watchdog;

	private final StoreClock storeClock;

	private final RunLedgerWriter ledger;

	private final Set<ActiveRun> running = ConcurrentHashMap.newKeySet();

	private volatile boolean closing;

	private volatile boolean backendInitialized;

	/**
	 * Guards the store's initialization, a round trip to the store: a lock rather than a
	 * monitor, so that a virtual thread waiting for it or holding it during that round
	 * trip does not pin its carrier thread (JDK 21 to 23).
	 */
	private final ReentrantLock initializeLock = new ReentrantLock();

	private volatile @Nullable LeaderElection leader;

	private Duration shutdownGracePeriod = Duration.ZERO;

	private volatile RunObserver runObserver = RunObserver.NONE;

	private final Map<String, RegisteredJob> registered = new ConcurrentHashMap<>();

	private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

	/**
	 * Completions of runs here that the store has not taken yet (it could not be
	 * reached), by lease token and fencing token: retried until the store answers
	 * definitively; meanwhile this node does not claim their jobs.
	 */
	private final Map<String, UndeliveredCompletion> undeliveredCompletions = new ConcurrentHashMap<>();

	private @Nullable ScheduledExecutorService completionRetries;

	private final Map<String, Instant> clusterLastSuccess = new ConcurrentHashMap<>();

	/**
	 * When the run ledger was last read successfully for the cluster-wide last successes
	 * (this node's clock), or {@code null} before the first read.
	 */
	private volatile @Nullable Instant lastSuccessesReadAt;

	private final Duration lastSuccessRefresh;

	private volatile Instant monitoringSince;

	private volatile @Nullable ScheduledExecutorService background;

	private volatile @Nullable ExecutorService workers;

	/**
	 * Create an executor.
	 * @param backend the lease store
	 * @param settings the engine settings
	 * @param clock the clock every wall-time read goes through
	 * @param listener the listener to notify
	 */
	public ClusterSingletonExecutor(LeaseBackend backend, Settings settings, Clock clock,
			ClusterSingletonListener listener) {
		Assert.notNull(backend, "'backend' must not be null");
		Assert.notNull(settings, "'settings' must not be null");
		Assert.notNull(clock, "'clock' must not be null");
		Assert.notNull(listener, "'listener' must not be null");
		this.backend = backend;
		this.settings = settings;
		this.clock = clock;
		this.listener = listener;
		this.watchdog = new LeaseWatchdog(backend, settings.leaseTtl(), settings.interruptOnLeaseLoss(), listener);
		this.storeClock = new StoreClock(clock);
		backend.setStoreClockObserver(this.storeClock);
		this.ledger = new RunLedgerWriter(backend.runLedger());
		this.monitoringSince = clock.instant();
		this.lastSuccessRefresh = Duration.ofMillis(Math.max(1000, Math.min(settings.leaseTtl().toMillis(), 30_000)));
	}

	/**
	 * Return how far this node's clock is from the store's, as measured from the last
	 * acquire or renewal round trip that carried the store's time.
	 * @return this node's clock minus the store's, or empty before the first measurement
	 * (and always on a backend whose store has no clock it reports)
	 */
	public Optional<Duration> clockOffset() {
		return this.storeClock.offset();
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
		Assert.state(this.leader == null, "Leader mode is already on");
		LeaderElection.Listener catchingUp = new LeaderElection.Listener() {

			@Override
			public void granted(long term) {
				try {
					listener.granted(term);
				}
				finally {
					// the catch-up a node does when it starts is skipped while it is not
					// the leader: the node that becomes the leader does it
					catchUpMissedSlots();
				}
			}

			@Override
			public void revoked(long term, String reason) {
				listener.revoked(term, reason);
			}

		};
		LeaderElection leader = new LeaderElection(this.backend, this.settings.owner(), leaseName,
				this.settings.leaseTtl(), catchingUp);
		this.watchdog.setLeaderElection(leader);
		this.leader = leader;
		return leader;
	}

	/**
	 * Ask for the leader lease now and at every watchdog tick from now on.
	 */
	public void startLeaderElection() {
		Assert.state(this.leader != null, "Leader mode is off");
		this.watchdog.start();
	}

	/**
	 * Return the leader election, in leader mode.
	 * @return the election, or empty when leader mode is off
	 */
	public Optional<LeaderElection> leadership() {
		return Optional.ofNullable(this.leader);
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
				this.backend.initialize();
				this.backendInitialized = true;
			}
		}
		finally {
			this.initializeLock.unlock();
		}
	}

	/**
	 * Return the lease store this executor uses.
	 * @return the backend
	 */
	public LeaseBackend getBackend() {
		return this.backend;
	}

	/**
	 * Return the settings of this executor.
	 * @return the settings
	 */
	public Settings getSettings() {
		return this.settings;
	}

	/**
	 * Return the clock this executor reads wall time from.
	 * @return the clock
	 */
	public Clock getClock() {
		return this.clock;
	}

	/**
	 * Set the observer that brackets every trigger that reaches the store, for tracing.
	 * @param runObserver the observer, {@link RunObserver#NONE} for none
	 */
	public void setRunObserver(RunObserver runObserver) {
		Assert.notNull(runObserver, "'runObserver' must not be null");
		this.runObserver = runObserver;
	}

	/**
	 * Return the names of the jobs whose leases this node holds right now.
	 * @return the job names
	 */
	public Set<String> heldJobs() {
		return this.watchdog.heldJobs();
	}

	/**
	 * Return how many leases this node holds right now.
	 * @return the number of held leases
	 */
	public int heldLeases() {
		return this.watchdog.heldLeases();
	}

	/**
	 * Set how many runs of each job the run ledger keeps
	 * ({@code cluster-singleton.history.max-runs}).
	 * @param maxRuns the number of runs
	 */
	public void setHistoryMaxRuns(int maxRuns) {
		Assert.isTrue(maxRuns >= 1, "'maxRuns' must be at least 1");
		this.ledger.setMaxRuns(maxRuns);
	}

	/**
	 * Return the cluster-wide run ledger of the lease store.
	 * @return the ledger, {@link io.github.clustersingleton.RunLedger#NONE} when the
	 * store keeps none
	 */
	public io.github.clustersingleton.RunLedger runLedger() {
		return this.ledger.ledger();
	}

	/**
	 * Return how many ledger writes failed or were dropped since startup.
	 * @return the number of failed ledger writes
	 */
	public long ledgerFailures() {
		return this.ledger.failures();
	}

	/**
	 * Register a job that the scheduler triggers, with a way to run its body outside a
	 * trigger: for recovery and catch-up runs, and for the overdue check.
	 * @param job the job
	 * @param invocation runs the job's body (through its proxy, see
	 * {@link PreparedInvocation})
	 */
	public void registerJob(JobDefinition job, Invocation invocation) {
		Assert.notNull(job, "'job' must not be null");
		Assert.notNull(invocation, "'invocation' must not be null");
		this.registered.putIfAbsent(job.name(), new RegisteredJob(job, invocation));
	}

	/**
	 * Start the background work of the registered jobs: at once and then every third of
	 * the lease TTL, one {@link LeaseBackend#findPending} round trip for all jobs with a
	 * recovery or misfire policy, whose pending work this node then tries to claim; a
	 * catch-up of the slots missed while no node ran, for jobs with a misfire policy; and
	 * the refresh of the cluster-wide last successes that tell overdue jobs.
	 */
	public synchronized void startBackgroundWork() {
		if (this.background != null || this.closing) {
			return;
		}
		CustomizableThreadFactory monitorThreads = new CustomizableThreadFactory("cluster-singleton-monitor-");
		monitorThreads.setDaemon(true);
		ScheduledExecutorService background = Executors.newSingleThreadScheduledExecutor(monitorThreads);
		CustomizableThreadFactory workerThreads = new CustomizableThreadFactory("cluster-singleton-recovery-");
		workerThreads.setDaemon(true);
		this.workers = Executors.newCachedThreadPool(workerThreads);
		this.background = background;
		this.monitoringSince = this.clock.instant();
		long tick = Math.max(1, this.settings.leaseTtl().toMillis() / 3);
		boolean anyPolicy = this.registered.values().stream().anyMatch(RegisteredJob::hasPolicy);
		if (anyPolicy) {
			catchUpMissedSlots();
			background.scheduleWithFixedDelay(this::claimPendingWork, tick, tick, TimeUnit.MILLISECONDS);
		}
		if (this.ledger.ledger() != io.github.clustersingleton.RunLedger.NONE
				&& this.registered.values().stream().anyMatch((job) -> job.job().policies().alertAfter() != null)) {
			long refresh = this.lastSuccessRefresh.toMillis();
			background.scheduleWithFixedDelay(this::refreshLastSuccesses, 0, refresh, TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * Catch up, in the background, the slots of the jobs with a misfire policy that no
	 * node claimed while none ran: when the background work starts, and in leader mode
	 * when this node becomes the leader.
	 */
	private void catchUpMissedSlots() {
		if (this.background == null) {
			return;
		}
		LeaderElection leader = this.leader;
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
			if (this.closing) {
				return;
			}
			LeaderElection leader = this.leader;
			if (leader != null && !leader.isLeader()) {
				return;
			}
			Set<String> held = heldJobs();
			Map<String, ClaimPolicy> policies = new java.util.LinkedHashMap<>();
			for (RegisteredJob registered : this.registered.values()) {
				String name = registered.job().name();
				if (registered.hasPolicy() && registered.job().enabled() && !this.inFlight.contains(name)
						&& !held.contains(name) && !endingHere(name)) {
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

	/**
	 * Whether a run of the job ended here and the store has not taken its completion yet,
	 * its first attempt included: this node must not claim the job meanwhile, or it could
	 * take over (and run again) a run it knows has ended. A run still under way holds its
	 * lease, which the store refuses to others.
	 */
	private boolean endingHere(String name) {
		for (ActiveRun run : this.running) {
			if (run.isFinished() && run.jobName().equals(name)) {
				return true;
			}
		}
		return completedHereUndelivered(name);
	}

	/**
	 * Whether a run of the job ended here and the store has not taken its completion yet:
	 * this node must not claim the job meanwhile, or it would take up (and run again) a
	 * run it knows has ended.
	 */
	private boolean completedHereUndelivered(String name) {
		for (UndeliveredCompletion undelivered : this.undeliveredCompletions.values()) {
			// only a policy that recovers runs could take the ended run up again
			if (undelivered.job.name().equals(name) && undelivered.recovers()) {
				return true;
			}
		}
		return false;
	}

	private void submit(RegisteredJob registered, Runnable task) {
		ExecutorService workers = this.workers;
		String name = registered.job().name();
		if (workers == null || this.closing || !this.inFlight.add(name)) {
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
		LeaseRequest request = LeaseRequest.recovery(job.name(), this.settings.owner(), newLeaseToken(),
				this.settings.leaseTtl(), job.policies().claimPolicy());
		runInBackground(job, () -> {
			LeaderElection leader = this.leader;
			if (this.closing || !job.enabled() || (leader != null && !leader.isLeader()) || endingHere(job.name())) {
				return;
			}
			claimAndRun(job, request, RunTrigger.RECOVERY, registered.invocation());
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
			execute(job, latest, RunTrigger.CATCH_UP, registered.invocation());
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
	 * Read the cluster-wide last successes of the jobs with an alert-after from the run
	 * ledger, in one round trip; every min(lease TTL, 30 s), at least every second.
	 */
	void refreshLastSuccesses() {
		try {
			List<String> names = this.registered.values()
				.stream()
				.filter((registered) -> registered.job().policies().alertAfter() != null)
				.map((registered) -> registered.job().name())
				.toList();
			if (!names.isEmpty()) {
				Instant readAt = this.clock.instant();
				this.ledger.ledger().lastSuccess(names).forEach(this::noteSuccess);
				this.lastSuccessesReadAt = readAt;
			}
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not read the last successful runs from the run ledger", ex);
		}
	}

	private void noteSuccess(String jobName, Instant endedAt) {
		this.clusterLastSuccess.merge(jobName, endedAt, (known, seen) -> seen.isAfter(known) ? seen : known);
	}

	private void noteFinished(RunRecord finished) {
		Instant endedAt = finished.finishedAt();
		if (finished.state() == RunState.SUCCEEDED && endedAt != null) {
			noteSuccess(finished.jobName(), endedAt);
		}
	}

	/**
	 * Return when a job last ended a run successfully anywhere in the cluster, as the run
	 * ledger told at its last refresh, or later when this node has run it since.
	 * @param jobName the job name
	 * @return the end of the latest successful run, or empty when none is known
	 */
	public Optional<Instant> clusterLastSuccess(String jobName) {
		return Optional.ofNullable(this.clusterLastSuccess.get(jobName));
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
		Duration alertAfter = job.policies().alertAfter();
		if (alertAfter == null || !job.enabled()) {
			return false;
		}
		if (this.ledger.ledger() == io.github.clustersingleton.RunLedger.NONE) {
			// without a cluster-wide ledger no node can tell
			return false;
		}
		// the ledger's last success, the same for every node (or this node's own, when
		// later); before the first one, the time this node started watching
		Instant lastSuccess = this.clusterLastSuccess.get(job.name());
		Instant reference = (lastSuccess != null) ? lastSuccess : this.monitoringSince;
		// judged as of the last read of the ledger, so that a success elsewhere since
		// that
		// read does not make the job look overdue until the next one; a read older than
		// two
		// refresh periods (the store cannot be reached) no longer holds the answer back
		Instant now = this.clock.instant();
		Instant readAt = this.lastSuccessesReadAt;
		Instant asOf = (readAt != null
				&& Duration.between(readAt, now).compareTo(this.lastSuccessRefresh.multipliedBy(2)) <= 0) ? readAt
						: now;
		return Duration.between(reference, asOf).compareTo(alertAfter) > 0;
	}

	/**
	 * Return the jobs registered for background work.
	 * @return the jobs
	 */
	public List<JobDefinition> registeredJobs() {
		return this.registered.values().stream().map(RegisteredJob::job).toList();
	}

	@FunctionalInterface
	private interface BackgroundWork {

		void run() throws Throwable;

	}

	private record RegisteredJob(JobDefinition job, Invocation invocation) {

		boolean hasPolicy() {
			return this.job.schedule() != null && this.job.policies().claimPolicy().isActive();
		}

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
		CronSlotSchedule schedule = job.schedule();
		Instant slot = null;
		if (scheduled && schedule != null) {
			Instant fireTime = ScheduledFireTime.current();
			slot = (fireTime != null) ? fireTime
					: schedule.slotFor(this.clock.instant(), this.settings.slotTolerance());
		}
		return execute(job, slot, scheduled ? RunTrigger.SCHEDULED : RunTrigger.DIRECT, invocation);
	}

	/**
	 * Return the slot of a scheduled trigger of a job on this thread: the fire time the
	 * scheduler meant where it is known, else derived from the job's cron schedule and
	 * this node's clock.
	 * @param job the job
	 * @return the slot, or {@code null} for a job without a cron schedule
	 */
	public @Nullable Instant slotOf(JobDefinition job) {
		CronSlotSchedule schedule = job.schedule();
		if (schedule == null) {
			return null;
		}
		Instant fireTime = ScheduledFireTime.current();
		return (fireTime != null) ? fireTime : schedule.slotFor(this.clock.instant(), this.settings.slotTolerance());
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
	 * @param job the job
	 * @param slot the slot the run claims, or {@code null} for none
	 * @param trigger why the run starts
	 * @param invocation the job's body
	 * @return whether the job ran
	 * @throws Throwable what the job threw
	 */
	public boolean execute(JobDefinition job, @Nullable Instant slot, RunTrigger trigger, Invocation invocation)
			throws Throwable {
		if (skippedLocally(job, slot)) {
			return false;
		}
		if (slot != null && endingHere(job.name())) {
			logger.debug(LogMessage.of(() -> "cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot)
					+ ": the end of its last run here has not reached the " + this.backend.id() + " lease store yet"));
			return false;
		}
		LeaseRequest request = new LeaseRequest(job.name(), this.settings.owner(), newLeaseToken(),
				this.settings.leaseTtl(), slot, this.settings.slotTolerance());
		ClaimPolicy policy = claimPolicy(job, slot, trigger);
		if (policy.isActive()) {
			CronSlotSchedule schedule = job.schedule();
			Instant previous = (policy.catchUp() && schedule != null && slot != null) ? schedule.previousSlot(slot)
					: null;
			request = request.withPolicy(policy, previous);
		}
		return claimAndRun(job, request, trigger, invocation);
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
		if (skippedLocally(job, slot)) {
			return null;
		}
		LeaseRequest request = new LeaseRequest(job.name(), this.settings.owner(), newLeaseToken(),
				this.settings.leaseTtl(), slot, this.settings.slotTolerance());
		long requested = System.nanoTime();
		RunObserver.Run observed = startDetachedObservation(job, slot);
		Claimed claimed = claim(job, request, requested, observed);
		if (claimed == null) {
			return null;
		}
		HeldLease lease = HeldLease.of(request, claimed.result().fencingToken());
		ActiveRun run = new ActiveRun(job, lease, Thread.currentThread(), claimed.validFrom(),
				this.settings.leaseTtl().toNanos(), 1, trigger, List.of());
		this.running.add(run);
		ScheduledFuture<?> capTimer = this.watchdog.register(run);
		if (capTimer == null) {
			run.finish();
			this.running.remove(run);
			releaseQuietly(lease, job);
			notify(() -> observed.stop("acquired", null));
			return null;
		}
		notify(() -> observed.acquired(lease));
		Instant startedAt = this.clock.instant();
		RunRecord record = new RunRecord(job.name(), slot, 1, lease.fencingToken(), lease.owner(), trigger,
				RunState.RUNNING, startedAt, null, null);
		this.ledger.record(record);
		return new ReactiveRun(job, run, capTimer, record, startedAt, System.nanoTime(), observed);
	}

	/**
	 * A run whose work a reactive publisher does, started by {@link #startReactive}.
	 */
	public final class ReactiveRun {

		private final JobDefinition job;

		private final ActiveRun run;

		private final ScheduledFuture<?> capTimer;

		private final RunRecord record;

		private final Instant startedAt;

		private final long started;

		private final AtomicBoolean finished = new AtomicBoolean();

		private final RunObserver.Run observed;

		private ReactiveRun(JobDefinition job, ActiveRun run, ScheduledFuture<?> capTimer, RunRecord record,
				Instant startedAt, long started, RunObserver.Run observed) {
			this.job = job;
			this.observed = observed;
			this.run = run;
			this.capTimer = capTimer;
			this.record = record;
			this.startedAt = startedAt;
			this.started = started;
		}

		/**
		 * Return the context of this run.
		 * @return the context
		 */
		public ClusterSingletonContext context() {
			return this.run;
		}

		/**
		 * Set what cancels the run's subscription when the lease is lost or
		 * {@code lockAtMostFor} passes.
		 * @param canceller cancels the subscription
		 */
		public void cancelWith(Runnable canceller) {
			this.run.cancelWith(canceller);
		}

		/**
		 * Call the job's method with this run's context current on this thread: a
		 * reactive method assembles its publisher there.
		 * @param invocation the job's method
		 * @return what it returned
		 * @throws Throwable what it threw
		 */
		public @Nullable Object invokeBound(Invocation invocation) throws Throwable {
			ClusterSingletonContext previous = this.run.bindToThread();
			try {
				return invocation.proceed();
			}
			finally {
				ActiveRun.restoreOnThread(previous);
			}
		}

		/**
		 * Return whether the run lost its lease.
		 * @return {@code true} once the lease is lost
		 */
		public boolean isLost() {
			return this.run.isLost();
		}

		/**
		 * End the run: stop renewing, release the lease (honouring
		 * {@code lockAtLeastFor}) and record the outcome. Only the first call counts.
		 * @param failure what the publisher signalled, or {@code null} on completion
		 */
		public void finish(@Nullable Throwable failure) {
			if (!this.finished.compareAndSet(false, true)) {
				return;
			}
			this.run.finish();
			ClusterSingletonExecutor.this.watchdog.unregister(this.run, this.capTimer);
			noteLossAtFinish(this.run);
			Duration duration = Duration.ofNanos(System.nanoTime() - this.started);
			Outcome outcome = new Outcome(outcomeOf(this.run, failure), failure,
					this.run.deadlineNanos() - ClusterSingletonExecutor.this.settings.leaseTtl().toNanos(), this.record,
					this.startedAt, duration, this.run);
			Outcome settled = settle(this.job, this.run.lease(), outcome, this.job.lockAtLeastFor(), true);
			ClusterSingletonExecutor.this.notify(() -> this.observed.stop(settled.outcome().tag(), failure));
		}

	}

	private static ClaimPolicy claimPolicy(JobDefinition job, @Nullable Instant slot, RunTrigger trigger) {
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
	private @Nullable Claimed claim(JobDefinition job, LeaseRequest request, long requested, RunObserver.Run observed) {
		Instant slot = request.slot();
		AcquireResult result;
		try {
			result = this.backend.tryAcquire(request);
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			Duration took = Duration.ofNanos(System.nanoTime() - requested);
			logger.warn("cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot) + ": the "
					+ this.backend.id() + " lease store could not be reached; the next trigger tries again: "
					+ describeFailure(ex), logger.isDebugEnabled() ? ex : null);
			notify(() -> this.listener.acquireFailed(job, slot, ex, took));
			notify(() -> observed.stop("error", ex));
			return null;
		}
		Duration took = Duration.ofNanos(System.nanoTime() - requested);
		notify(() -> this.listener.acquireAttempted(job, slot, result, took));
		if (result.outcome() == AcquireResult.Outcome.CLOCK_SKEW) {
			warnClockSkew(job, slot);
			notify(() -> observed.stop(result.outcome().tag(), null));
			LeaderElection leader = this.leader;
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
			if (!request.recovery()) {
				logger.debug(LogMessage.of(() -> "cluster-singleton skipped job '" + job.name() + "'"
						+ describeSlot(slot) + ": " + describeSkip(result)));
			}
			notify(() -> observed.stop(result.outcome().tag(), null));
			return null;
		}
		long ttl = this.settings.leaseTtl().toNanos();
		if (System.nanoTime() - requested > ttl / 3) {
			// the grant used up more than a third of the TTL on its way (a slow store, a
			// pause): renew before the body starts, as the watchdog would have by now, or
			// give the lease back; a grant after the whole TTL cannot be renewed (the
			// store's lease ended), so it is always given back
			HeldLease granted = HeldLease.of(request, result.fencingToken());
			long sent = System.nanoTime();
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
				releaseQuietly(granted, job);
				IllegalStateException late = new IllegalStateException("the " + this.backend.id()
						+ " lease store granted the lease after " + took + ", more than a third of its TTL of "
						+ this.settings.leaseTtl() + ", and the renewal before the run " + ((renewalFailure != null)
								? "failed: " + describeFailure(renewalFailure) : "found the lease no longer held"));
				logger.warn("cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot) + ": "
						+ late.getMessage() + "; the lease was given back"
						+ (request.policy().recoverLost() ? " and its run is taken up again" : ""));
				notify(() -> observed.stop("error", late));
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
	private record Claimed(AcquireResult result, long validFrom) {

	}

	/**
	 * Whether a trigger is skipped without asking the store: the application shuts down,
	 * the job is disabled, or leader mode is on and this node is not the leader.
	 */
	private boolean skippedLocally(JobDefinition job, @Nullable Instant slot) {
		if (this.closing) {
			logger.debug(LogMessage
				.of(() -> "cluster-singleton skipped job '" + job.name() + "': the application is shutting down"));
			return true;
		}
		if (!job.enabled()) {
			logger.debug(LogMessage.of(() -> "cluster-singleton skipped job '" + job.name()
					+ "': disabled by cluster-singleton.jobs." + job.name() + ".enabled"));
			return true;
		}
		LeaderElection leader = this.leader;
		if (leader != null && !leader.isLeader()) {
			logger.debug(LogMessage.of(() -> "cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot)
					+ ": this node is not the leader"));
			notify(() -> this.listener.acquireAttempted(job, slot, AcquireResult.notLeader(), Duration.ZERO));
			return true;
		}
		return false;
	}

	private boolean claimAndRun(JobDefinition job, LeaseRequest request, RunTrigger trigger, Invocation invocation)
			throws Throwable {
		Instant slot = request.slot();
		RunObserver.Run observed = startObservation(job, slot);
		long requested = System.nanoTime();
		Claimed claimed = claim(job, request, requested, observed);
		if (claimed == null) {
			return false;
		}
		AcquireResult result = claimed.result();
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		SlotRun current = result.run();
		boolean pending = request.policy().isActive() && current != null && (request.recovery() || (slot != null
				&& !(current.slot().equals(slot) && current.attempt() == 1 && current.state() == RunState.RUNNING)));
		if (pending) {
			notify(() -> observed.acquired(lease));
			Sequence sequence;
			try {
				sequence = runPending(job, lease, result, trigger, claimed.validFrom(), invocation);
			}
			finally {
				notify(() -> observed.stop("acquired", null));
			}
			// the exception of the last run the sequence made reaches the caller, as a
			// single run's does; those of the runs before it are logged and recorded
			Throwable failure = sequence.lastFailure();
			if (failure != null && (trigger == RunTrigger.SCHEDULED || trigger == RunTrigger.DIRECT)) {
				throw failure;
			}
			return sequence.ran();
		}
		RunPlan plan = new RunPlan(slot, 1, trigger, List.of());
		Outcome outcome = run(job, lease, claimed.validFrom(), invocation, plan, observed);
		if (outcome == null) {
			return false;
		}
		Outcome settled = settle(job, lease, outcome, job.lockAtLeastFor(), true);
		notify(() -> observed.stop(settled.outcome().tag(), settled.failure()));
		if (settled.failure() != null) {
			throw settled.failure();
		}
		return true;
	}

	/**
	 * What a sequence of runs did.
	 *
	 * @param ran whether any run started
	 * @param lastFailure the exception of the last run it made, if that run threw
	 */
	private record Sequence(boolean ran, @Nullable Throwable lastFailure) {

		static final Sequence NONE = new Sequence(false, null);

	}

	/**
	 * Take over the work the store reported pending on a job whose lease this node just
	 * claimed: run again the slot whose run died or failed (when the policy recovers it),
	 * then the slots after it that no run served yet, by the misfire policy, then the
	 * claimed slot itself; each run with a fencing token of its own
	 * ({@link LeaseBackend#startRun}) and each through the whole advice chain of the
	 * job's method ({@link Invocation#proceed()} is called once per run). A failure that
	 * the policy retries later ends the sequence; so does the loss of the lease.
	 */
	private Sequence runPending(JobDefinition job, HeldLease claimed, AcquireResult result, RunTrigger trigger,
			long requested, Invocation invocation) {
		SlotRun current = result.run();
		Assert.state(current != null, "No run reported");
		Instant lastSlot = (result.lastSlot() != null) ? result.lastSlot() : current.slot();
		if (current.state() == RunState.RUNNING) {
			// the run the store still calls running died with its node or lost its
			// lease, and so did every earlier run still recorded as running (a takeover
			// claim may itself have died before its first run): all of them have a
			// lower fencing token than the claim that took the lease over
			this.ledger.markLostBefore(job.name(), claimed.fencingToken());
		}
		List<RunPlan> plans = plan(job, current, lastSlot, trigger);
		if (plans.isEmpty()) {
			release(claimed, job, Duration.ZERO, RunCompletion.none());
			return Sequence.NONE;
		}
		long validFrom = requested;
		boolean ran = false;
		// the run before this one, whose end only the next startRun records: when the
		// next run does not start, or its start's answer is lost, the store must still
		// learn how it ended, by its own lease and fencing tokens, or a policy that
		// recovers lost runs runs its slot again
		HeldLease previous = null;
		RunCompletion previousCompletion = RunCompletion.none();
		RunRecord previousFinished = null;
		for (int i = 0; i < plans.size(); i++) {
			RunPlan plan = plans.get(i);
			OptionalLong fence;
			boolean interrupted = Thread.interrupted();
			try {
				// between runs no watchdog renews the lease: a sequence of short runs
				// renews it itself, as the watchdog would, once a third of the TTL passed
				long ttl = this.settings.leaseTtl().toNanos();
				if (System.nanoTime() - validFrom > ttl / 3) {
					long sent = System.nanoTime();
					if (!this.backend.renew(List.of(claimed), this.settings.leaseTtl())
						.contains(claimed.leaseToken())) {
						logger.warn("cluster-singleton could not start the " + plan.describe() + " of job '"
								+ job.name() + "': this node no longer holds its lease");
						completePrevious(previous, job, previousCompletion, previousFinished);
						return new Sequence(ran, null);
					}
					validFrom = sent;
				}
				fence = this.backend.startRun(claimed, plan.slot(), plan.attempt());
			}
			catch (RuntimeException ex) {
				logger.warn("cluster-singleton could not start the " + plan.describe() + " of job '" + job.name()
						+ "': the " + this.backend.id() + " lease store could not be reached; the lease expires "
						+ "and the work is taken up again: " + describeFailure(ex),
						logger.isDebugEnabled() ? ex : null);
				// whether or not the start reached the store, the previous run's end is
				// sent: the store records it only while that run, by its fencing token,
				// is still the current one, so a start that did reach the store (and
				// already ended the previous run) is never recorded as done by it
				completePrevious(previous, job, previousCompletion, previousFinished);
				return new Sequence(ran, null);
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
			if (fence.isEmpty()) {
				logger.warn("cluster-singleton could not start the " + plan.describe() + " of job '" + job.name()
						+ "': this node no longer holds its lease");
				completePrevious(previous, job, previousCompletion, previousFinished);
				return new Sequence(ran, null);
			}
			HeldLease lease = new HeldLease(job.name(), claimed.owner(), claimed.leaseToken(), fence.getAsLong(),
					plan.slot());
			if (System.nanoTime() - (validFrom + this.settings.leaseTtl().toNanos()) >= 0) {
				// the store granted the run after this node's view of the lease ended (a
				// slow store, a pause): another node may already have taken it over
				logger.warn("cluster-singleton did not start the " + plan.describe() + " of job '" + job.name()
						+ "': the lease's local deadline passed while the store answered; whoever takes the lease "
						+ "over next carries on");
				return new Sequence(ran, null);
			}
			logger.info("cluster-singleton runs the " + plan.describe() + " of job '" + job.name() + "' (fencingToken="
					+ fence.getAsLong() + ")");
			Outcome outcome;
			try {
				outcome = run(job, lease, validFrom, invocation, plan, RunObserver.Run.NONE);
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				return new Sequence(ran, null);
			}
			if (outcome == null) {
				return new Sequence(ran, null);
			}
			ran = true;
			validFrom = outcome.validFrom();
			boolean last = i == plans.size() - 1;
			ClaimPolicy policy = job.policies().claimPolicy();
			RunCompletion completion = completion(job, plan.slot(), outcome);
			boolean retried = completion.state() == RunState.FAILED && policy.recovers(RunState.FAILED, plan.attempt());
			boolean ends = last || retried || outcome.outcome() == RunOutcome.LEASE_LOST;
			if (outcome.outcome() == RunOutcome.LEASE_LOST) {
				// no completion: the store keeps the run as running, and a policy that
				// recovers lost runs takes it up again once the lease expired; a lease
				// still live (the run reached its lockAtMostFor) is given back at once
				outcome = settle(job, lease, outcome, Duration.ZERO, true);
			}
			else if (ends) {
				// a failure the policy retries ends the sequence: the store keeps it
				// pending, and whoever retries it carries on with the slots after it
				outcome = settle(job, lease, outcome, last ? job.lockAtLeastFor() : Duration.ZERO, true);
			}
			else {
				outcome = settle(job, lease, outcome, Duration.ZERO, false);
			}
			if (outcome.failure() != null) {
				logger.error("cluster-singleton job '" + job.name() + "' failed in its " + plan.describe(),
						outcome.failure());
			}
			if (ends) {
				return new Sequence(true, outcome.failure());
			}
			previous = lease;
			previousCompletion = completion;
			previousFinished = outcome.record();
		}
		return new Sequence(ran, null);
	}

	/**
	 * Record how the previous run of a sequence ended when the next one could not start
	 * (the store refused it, was not reached, or its answer was lost): the completion by
	 * the previous run's lease token is recorded while no other claim took the job, and
	 * only while the store's current run still has the previous run's fencing token (a
	 * start that reached the store has already ended the previous run, and the run it
	 * started is left as it is); it is retried in the background like any other.
	 */
	private void completePrevious(@Nullable HeldLease previous, JobDefinition job, RunCompletion completion,
			@Nullable RunRecord finished) {
		if (previous != null && completion.state() != null) {
			Delivery delivery = release(previous, job, Duration.ZERO, completion, finished);
			if (delivery == Delivery.SUPERSEDED && finished != null && finished.state() == RunState.SUCCEEDED) {
				// another claim took the job over before the store heard of the run's
				// end: the store no longer records it as the job's current run
				this.ledger.record(new RunRecord(finished.jobName(), finished.slot(), finished.attempt(),
						finished.fencingToken(), finished.owner(), finished.trigger(), RunState.LOST,
						finished.startedAt(), finished.finishedAt(), null));
			}
		}
	}

	private List<RunPlan> plan(JobDefinition job, SlotRun current, Instant lastSlot, RunTrigger trigger) {
		JobPolicies policies = job.policies();
		List<RunPlan> plans = new ArrayList<>();
		if (policies.claimPolicy().recovers(current.state(), current.attempt())) {
			plans.add(new RunPlan(current.slot(), current.attempt() + 1, RunTrigger.RECOVERY, List.of()));
		}
		else if (current.state() == RunState.RUNNING || current.state() == RunState.FAILED) {
			logger.warn("cluster-singleton job '" + job.name() + "': the run of slot " + current.slot() + " (attempt "
					+ current.attempt() + ") " + ((current.state() == RunState.FAILED) ? "failed" : "was lost")
					+ " and is not run again (recovery=" + policies.recovery().name().toLowerCase(Locale.ROOT)
					+ ", max-attempts=" + policies.maxAttempts() + ")");
		}
		CronSlotSchedule schedule = job.schedule();
		if (schedule == null || !lastSlot.isAfter(current.slot())) {
			return plans;
		}
		RunTrigger finalTrigger = (trigger == RunTrigger.SCHEDULED) ? RunTrigger.SCHEDULED
				: (trigger == RunTrigger.CATCH_UP) ? RunTrigger.CATCH_UP : RunTrigger.RECOVERY;
		switch (policies.misfire()) {
			case SKIP -> {
				CronSlotSchedule.Slots missed = schedule.slotsBetween(current.slot(), lastSlot, 0);
				if (missed.total() > 0) {
					logger.info("cluster-singleton job '" + job.name() + "' skips " + missed.total()
							+ " missed slot(s) between " + current.slot() + " and " + lastSlot + " (misfire=skip)");
				}
				plans.add(new RunPlan(lastSlot, 1, finalTrigger, List.of()));
			}
			case RUN_ONCE -> {
				CronSlotSchedule.Slots missed = schedule.slotsBetween(current.slot(), lastSlot, MAX_MISSED_SLOTS);
				List<Instant> slots = missed.newest();
				if (finalTrigger == RunTrigger.CATCH_UP) {
					plans.add(new RunPlan(lastSlot, 1, RunTrigger.CATCH_UP, slots));
				}
				else {
					if (!slots.isEmpty()) {
						plans.add(new RunPlan(slots.get(slots.size() - 1), 1, RunTrigger.CATCH_UP,
								slots.subList(0, slots.size() - 1)));
					}
					plans.add(new RunPlan(lastSlot, 1, finalTrigger, List.of()));
				}
			}
			case RUN_ALL -> {
				int limit = policies.misfireLimit() - ((finalTrigger == RunTrigger.CATCH_UP) ? 1 : 0);
				CronSlotSchedule.Slots missed = schedule.slotsBetween(current.slot(), lastSlot, Math.max(limit, 0));
				if (missed.leftOut() > 0) {
					logger.warn("cluster-singleton job '" + job.name() + "' skips the " + missed.leftOut()
							+ " oldest of " + missed.total() + " missed slot(s) before " + lastSlot
							+ " (misfire=run-all, " + "misfire-limit=" + policies.misfireLimit() + ")");
				}
				for (Instant missedSlot : missed.newest()) {
					plans.add(new RunPlan(missedSlot, 1, RunTrigger.CATCH_UP, List.of()));
				}
				plans.add(new RunPlan(lastSlot, 1, finalTrigger, List.of()));
			}
		}
		return plans;
	}

	/**
	 * How a run of a slot ended, for the store: every slot run records it, whatever the
	 * job's policies (a policy switched on later must not take an old, finished run for a
	 * dead one); runs without a slot record nothing.
	 */
	private static RunCompletion completion(JobDefinition job, @Nullable Instant slot, Outcome outcome) {
		if (slot == null) {
			return RunCompletion.none();
		}
		return switch (outcome.outcome()) {
			case SUCCESS -> RunCompletion.succeeded();
			case FAILURE -> RunCompletion.failed(job.policies().retryDelay());
			case LEASE_LOST -> RunCompletion.none();
		};
	}

	/**
	 * Run the job's body once under a lease this node holds, watched by the watchdog, and
	 * record it; the caller releases the lease.
	 * @return how the run went, or {@code null} when it did not start (shutdown)
	 */
	private @Nullable Outcome run(JobDefinition job, HeldLease lease, long validFrom, Invocation invocation,
			RunPlan plan, RunObserver.Run observed) {
		ActiveRun run = new ActiveRun(job, lease, Thread.currentThread(), validFrom, this.settings.leaseTtl().toNanos(),
				plan.attempt(), plan.trigger(), plan.missedSlots());
		this.running.add(run);
		ScheduledFuture<?> capTimer = this.watchdog.register(run);
		if (capTimer == null) {
			// the watchdog closed between the shutdown check and here: nothing would
			// renew the lease, so give it back and skip the run
			if (run.finish()) {
				Thread.interrupted();
			}
			this.running.remove(run);
			releaseQuietly(lease, job);
			logger.debug(LogMessage
				.of(() -> "cluster-singleton skipped job '" + job.name() + "': the application is shutting down"));
			notify(() -> observed.stop("acquired", null));
			return null;
		}
		notify(() -> observed.acquired(lease));
		ClusterSingletonContext previous = run.bindToThread();
		Instant startedAt = this.clock.instant();
		RunRecord record = new RunRecord(job.name(), lease.slot(), plan.attempt(), lease.fencingToken(), lease.owner(),
				plan.trigger(), RunState.RUNNING, startedAt, null, null);
		this.ledger.record(record);
		long started = System.nanoTime();
		logger.debug(LogMessage
			.of(() -> "cluster-singleton running job '" + job.name() + "' (fencingToken=" + lease.fencingToken()
					+ ", slot=" + lease.slot() + ", attempt=" + plan.attempt() + ", trigger=" + plan.trigger() + ")"));
		Throwable failure = null;
		boolean fatal = true;
		try {
			invocation.proceed();
			fatal = false;
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			failure = ex;
			fatal = false;
		}
		finally {
			boolean interrupted = run.finish();
			this.watchdog.unregister(run, capTimer);
			ActiveRun.restoreOnThread(previous);
			if (interrupted) {
				// our interrupt must not leak into whatever this thread runs next
				Thread.interrupted();
			}
			if (fatal) {
				// a VirtualMachineError leaves without settling: the store keeps the run
				// as running, and recovery must not wait for this node
				this.running.remove(run);
			}
			// otherwise the run stays in `running` until settle() has tried once to
			// record its end: meanwhile this node must not take the run over itself
		}
		Duration duration = Duration.ofNanos(System.nanoTime() - started);
		noteLossAtFinish(run);
		RunOutcome outcome = outcomeOf(run, failure);
		if (outcome == RunOutcome.LEASE_LOST && failure != null) {
			logger.warn("cluster-singleton job '" + job.name() + "' ended with " + failure.getClass().getSimpleName()
					+ " after it lost its lease (fencingToken=" + lease.fencingToken() + ", slot=" + lease.slot()
					+ "): recorded as lost, not as failed: " + run.lostBecause());
		}
		return new Outcome(outcome, failure, run.deadlineNanos() - this.settings.leaseTtl().toNanos(), record,
				startedAt, duration, run);
	}

	/**
	 * Decide how a run ended, by the lease rather than by which thread noticed first: a
	 * run that ends with a {@link io.github.clustersingleton.LeaseLostException} (the
	 * job's own {@code checkLease()}), or with any exception after its lease stopped
	 * being valid (an interrupt of the watchdog's included), lost its lease; any other
	 * exception is a failure. A run that returned normally is a success here; for a run
	 * of a slot the store then judges it: it is recorded as succeeded while the store
	 * still records it as the job's current run, and as lost when another claim took the
	 * job over ({@link #settle}). A run without a slot, which the store keeps no record
	 * of, lost its lease when it returned after the lease stopped being valid.
	 */
	static RunOutcome outcomeOf(ActiveRun run, @Nullable Throwable failure) {
		boolean lost = run.isLost();
		if (failure != null) {
			return (lost || isLeaseLoss(failure, run)) ? RunOutcome.LEASE_LOST : RunOutcome.FAILURE;
		}
		return (lost && run.lease().slot() == null) ? RunOutcome.LEASE_LOST : RunOutcome.SUCCESS;
	}

	/**
	 * Whether the exception is this run's own {@code LeaseLostException}, also when an
	 * advisor wrapped it; that of a nested guarded run (another job, another fencing
	 * token) is a failure like any other.
	 */
	private static boolean isLeaseLoss(Throwable failure, ActiveRun run) {
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < 16; depth++) {
			if (cause instanceof io.github.clustersingleton.LeaseLostException lost
					&& lost.getJobName().equals(run.jobName()) && lost.getFencingToken() == run.fencingToken()) {
				return true;
			}
			cause = cause.getCause();
		}
		return false;
	}

	/**
	 * End a run that {@link #run} made: deliver its completion with the release of its
	 * lease when {@code deliver} is true (the last run of a claim), then write its end to
	 * the run ledger and tell the listener. A run of a slot that returned normally and
	 * whose completion the store refused, because another claim took the job over, is
	 * recorded as lost.
	 * @return the outcome as finally recorded
	 */
	private Outcome settle(JobDefinition job, HeldLease lease, Outcome outcome, Duration lockAtLeastFor,
			boolean deliver) {
		try {
			return deliverAndRecord(job, lease, outcome, lockAtLeastFor, deliver);
		}
		finally {
			this.running.remove(outcome.run());
		}
	}

	private Outcome deliverAndRecord(JobDefinition job, HeldLease lease, Outcome outcome, Duration lockAtLeastFor,
			boolean deliver) {
		RunCompletion completion = completion(job, lease.slot(), outcome);
		RunState tentative = stateOf(outcome.outcome());
		String error = (outcome.failure() != null) ? outcome.failure().toString() : null;
		RunRecord finished = outcome.record().finish(tentative, this.clock.instant(), error);
		RunOutcome result = outcome.outcome();
		if (deliver) {
			Delivery delivery = release(lease, job, lockAtLeastFor, completion, finished);
			if (delivery == Delivery.SUPERSEDED && result == RunOutcome.SUCCESS) {
				result = RunOutcome.LEASE_LOST;
				finished = outcome.record().finish(RunState.LOST, finished.finishedAt(), null);
			}
		}
		this.ledger.record(finished);
		noteFinished(finished);
		RunOutcome told = result;
		RunRecord recorded = finished;
		logger.debug(LogMessage
			.of(() -> "cluster-singleton finished job '" + job.name() + "' (fencingToken=" + lease.fencingToken()
					+ ", slot=" + lease.slot() + ", outcome=" + told.tag() + ", duration=" + outcome.duration() + ")"));
		notify(() -> this.listener.runFinished(job, lease, told, outcome.startedAt(), outcome.duration(),
				outcome.failure()));
		return new Outcome(told, outcome.failure(), outcome.validFrom(), recorded, outcome.startedAt(),
				outcome.duration(), outcome.run());
	}

	/**
	 * Tell the listener of a lease loss that the end of the run noticed before the
	 * watchdog's thread did, as the watchdog would have.
	 */
	private void noteLossAtFinish(ActiveRun run) {
		if (run.lostAtFinish()) {
			String reason = run.lostBecause();
			logger.error(
					"cluster-singleton job '" + run.jobName() + "' lost its lease (fencingToken=" + run.fencingToken()
							+ ", slot=" + run.lease().slot() + "): " + reason + "; noticed as the run ended");
			notify(() -> this.listener.leaseLost(run.job(), run.lease(), (reason != null) ? reason : "lease lost"));
		}
	}

	private static RunState stateOf(RunOutcome outcome) {
		return switch (outcome) {
			case SUCCESS -> RunState.SUCCEEDED;
			case FAILURE -> RunState.FAILED;
			case LEASE_LOST -> RunState.LOST;
		};
	}

	/**
	 * How one run went.
	 *
	 * @param outcome the outcome
	 * @param failure what the job threw, or {@code null}
	 * @param validFrom when (nano time) the lease was last known to be extended by a full
	 * TTL
	 * @param record the run's ledger record: as it started, or as it ended once settled
	 * @param startedAt when the run started
	 * @param duration how long the body ran
	 * @param run the run
	 */
	private record Outcome(RunOutcome outcome, @Nullable Throwable failure, long validFrom, RunRecord record,
			Instant startedAt, Duration duration, ActiveRun run) {

	}

	/**
	 * One run the engine is about to start.
	 *
	 * @param slot its slot, or {@code null}
	 * @param attempt its attempt of the slot
	 * @param trigger why it runs
	 * @param missedSlots the other missed slots a catch-up run stands for
	 */
	private record RunPlan(@Nullable Instant slot, int attempt, RunTrigger trigger, List<Instant> missedSlots) {

		String describe() {
			return switch (this.trigger) {
				case RECOVERY -> "recovery run of slot " + this.slot + " (attempt " + this.attempt + ")";
				case CATCH_UP -> "catch-up run of slot " + this.slot + (this.missedSlots.isEmpty() ? ""
						: " (standing for " + (this.missedSlots.size() + 1) + " missed slots)");
				default -> "run of slot " + this.slot;
			};
		}

	}

	private RunObserver.Run startDetachedObservation(JobDefinition job, @Nullable Instant slot) {
		return startObservation(job, slot, true);
	}

	private RunObserver.Run startObservation(JobDefinition job, @Nullable Instant slot) {
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
	 * Give back a lease no run used, without keeping it for lockAtLeastFor.
	 */
	private void releaseQuietly(HeldLease lease, JobDefinition job) {
		release(lease, job, Duration.ZERO, RunCompletion.none());
	}

	private Delivery release(HeldLease lease, JobDefinition job, Duration lockAtLeastFor, RunCompletion completion) {
		return release(lease, job, lockAtLeastFor, completion, null);
	}

	/**
	 * What became of a completion sent with a release.
	 */
	private enum Delivery {

		/** No completion was sent: the lease was only released. */
		RELEASED,

		/** The store recorded the completion. */
		RECORDED,

		/** The store refused it: another claim took the job over. */
		SUPERSEDED,

		/** The store did not answer: retried in the background. */
		PENDING

	}

	private Delivery release(HeldLease lease, JobDefinition job, Duration lockAtLeastFor, RunCompletion completion,
			@Nullable RunRecord finished) {
		// a thread someone else interrupted (the scheduler's shutdownNow, a cancelled
		// future) must still give its lease back: clients such as Redisson and fabric8
		// abandon a request on an interrupted thread
		boolean interrupted = Thread.interrupted();
		try {
			if (completion.state() == null) {
				this.backend.release(lease, lockAtLeastFor);
				return Delivery.RELEASED;
			}
			UndeliveredCompletion undelivered = new UndeliveredCompletion(lease, job, lockAtLeastFor, completion,
					finished);
			if (!undelivered.attempt()) {
				// the store must learn how the run ended, or a policy that recovers lost
				// runs runs the slot again: the store records it by the run's token even
				// after the lease expired, until another claim took the job, and a
				// recovery claim waits a grace before it takes a run still marked running
				retryInBackground(undelivered);
				return Delivery.PENDING;
			}
			return undelivered.recorded ? Delivery.RECORDED : Delivery.SUPERSEDED;
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			logger.warn("cluster-singleton could not release the lease of job '" + job.name() + "' (fencingToken="
					+ lease.fencingToken() + "); it expires by itself within " + this.settings.leaseTtl() + ": " + ex,
					logger.isDebugEnabled() ? ex : null);
			return Delivery.RELEASED;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void retryInBackground(UndeliveredCompletion undelivered) {
		long pause = completionRetryPauseMillis();
		synchronized (this.undeliveredCompletions) {
			ScheduledExecutorService retries = this.completionRetries;
			if (retries == null) {
				CustomizableThreadFactory threads = new CustomizableThreadFactory("cluster-singleton-completion-");
				threads.setDaemon(true);
				retries = Executors.newSingleThreadScheduledExecutor(threads);
				this.completionRetries = retries;
			}
			this.undeliveredCompletions.put(undelivered.key(), undelivered);
			try {
				undelivered.future = retries.scheduleWithFixedDelay(undelivered::retry, pause, pause,
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.undeliveredCompletions.remove(undelivered.key());
				undelivered.giveUp("this node is shutting down");
			}
		}
	}

	/**
	 * Return the pause between two attempts to record a completion: an eighth of the TTL,
	 * at most {@value #MAX_COMPLETION_RETRY_PAUSE_MILLIS} ms, at least 10 ms.
	 */
	long completionRetryPauseMillis() {
		return Math.max(10, Math.min(MAX_COMPLETION_RETRY_PAUSE_MILLIS, this.settings.leaseTtl().toMillis() / 8));
	}

	/**
	 * Return how many completions of runs here the store has not taken yet.
	 * @return the number of undelivered completions
	 */
	public int undeliveredCompletions() {
		return this.undeliveredCompletions.size();
	}

	/**
	 * The completion of a run that ended here, until the store takes it (recorded) or
	 * answers that another claim superseded the run; given up after the job's
	 * {@code lockAtMostFor} (at least {@link #MIN_COMPLETION_RETRY_PERIOD}).
	 */
	private final class UndeliveredCompletion {

		private final HeldLease lease;

		private final JobDefinition job;

		private final Duration lockAtLeastFor;

		private final RunCompletion completion;

		/**
		 * The run's ledger record as it ended: written again once the store answers,
		 * since the ledger lives in the same store and its first write may have failed
		 * too.
		 */
		private final @Nullable RunRecord finished;

		private final long since = System.nanoTime();

		private final long giveUpAt;

		private int attempts;

		private volatile @Nullable ScheduledFuture<?> future;

		private @Nullable RuntimeException lastFailure;

		private boolean recorded;

		UndeliveredCompletion(HeldLease lease, JobDefinition job, Duration lockAtLeastFor, RunCompletion completion,
				@Nullable RunRecord finished) {
			this.lease = lease;
			this.job = job;
			this.lockAtLeastFor = lockAtLeastFor;
			this.completion = completion;
			this.finished = finished;
			Duration period = (job.lockAtMostFor().compareTo(MIN_COMPLETION_RETRY_PERIOD) > 0) ? job.lockAtMostFor()
					: MIN_COMPLETION_RETRY_PERIOD;
			this.giveUpAt = this.since + ActiveRun.saturatedNanos(period);
		}

		String key() {
			return this.lease.leaseToken() + "/" + this.lease.fencingToken();
		}

		/**
		 * Try once to record the completion.
		 * @return whether the store answered definitively
		 */
		boolean attempt() {
			this.attempts++;
			boolean recorded;
			try {
				recorded = ClusterSingletonExecutor.this.backend.completeRun(this.lease, this.lockAtLeastFor,
						this.completion);
			}
			catch (RuntimeException ex) {
				this.lastFailure = ex;
				if (this.attempts == 1) {
					logger.warn("cluster-singleton could not record the end of job '" + this.job.name() + "'"
							+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
							+ describeState() + ") in the " + ClusterSingletonExecutor.this.backend.id()
							+ " lease store; trying again every " + completionRetryPauseMillis() + " ms"
							+ (recovers() ? ", and this node does not claim the job meanwhile" : "") + ": "
							+ describeFailure(ex), logger.isDebugEnabled() ? ex : null);
				}
				else {
					logger.debug("cluster-singleton could not record the end of job '" + this.job.name()
							+ "' (fencingToken=" + this.lease.fencingToken() + "); trying again", ex);
				}
				return false;
			}
			this.recorded = recorded;
			if (this.attempts > 1) {
				// written as the run ended, also when this attempt finds the run
				// superseded:
				// an earlier attempt whose answer was lost may have been the one recorded
				RunRecord run = this.finished;
				if (run != null) {
					// the ledger's write at the end of the run most likely failed with
					// the
					// store: the run ended as it says, whoever took the job over since
					ClusterSingletonExecutor.this.ledger.record(run);
				}
				if (recorded) {
					logger.info("cluster-singleton recorded the end of job '" + this.job.name() + "'"
							+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
							+ describeState() + ") after " + this.attempts + " attempts over "
							+ Duration.ofNanos(System.nanoTime() - this.since));
				}
			}
			if (!recorded) {
				String message = "cluster-singleton could not record the end of job '" + this.job.name() + "'"
						+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
						+ describeState() + "): another claim took the job over first";
				if (recovers()) {
					logger.warn(message + " and may run the slot again (recovery="
							+ describe(this.job.policies().recovery()) + ")");
				}
				else {
					// without a recovery policy nobody runs the slot again
					logger.debug(message);
				}
			}
			return true;
		}

		/**
		 * Whether the job's policy runs a run again that the store still records as
		 * running.
		 */
		boolean recovers() {
			return this.job.policies().claimPolicy().recoverLost();
		}

		/**
		 * One retry from the background: stop on a definitive answer, or after the
		 * give-up time.
		 */
		void retry() {
			if (attempt()) {
				done();
				return;
			}
			if (System.nanoTime() - this.giveUpAt >= 0) {
				done();
				giveUp("the store did not answer for "
						+ Duration.ofNanos(System.nanoTime() - this.since).truncatedTo(ChronoUnit.SECONDS));
			}
		}

		void done() {
			ClusterSingletonExecutor.this.undeliveredCompletions.remove(key(), this);
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

		void giveUp(String reason) {
			RuntimeException failure = this.lastFailure;
			logger.warn("cluster-singleton gave up recording the end of job '" + this.job.name() + "'"
					+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
					+ describeState() + ") after " + this.attempts + " attempts: " + reason
					+ (this.job.policies().claimPolicy().recoverLost()
							? "; another node may run the slot again (recovery="
									+ describe(this.job.policies().recovery()) + ")"
							: "")
					+ ((failure != null) ? ": " + describeFailure(failure) : ""));
		}

		private String describeState() {
			RunState state = this.completion.state();
			return (state != null) ? state.value() : "released";
		}

	}

	private static String describe(Enum<?> policy) {
		return policy.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	private void notify(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton listener failed", ex);
		}
	}

	private static void rethrowIfFatal(Throwable ex) {
		if (ex instanceof VirtualMachineError error) {
			throw error;
		}
	}

	/**
	 * Describe a store failure with its root cause, which clients often wrap in a message
	 * that does not say what went wrong ("Operation [get] failed").
	 */
	static String describeFailure(Throwable ex) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(ex);
		return (root != ex) ? ex + " (caused by " + root + ")" : ex.toString();
	}

	private static String describeSlot(@Nullable Instant slot) {
		return (slot != null) ? " for slot " + slot : "";
	}

	/**
	 * Warn that the store refused a slot as ahead of its clock: at the first refusal of a
	 * job and then at most once a minute per job (a cron job firing every second would
	 * otherwise log every second); the refusals in between are logged at DEBUG and
	 * counted in the {@code clock-skew} outcome.
	 */
	private void warnClockSkew(JobDefinition job, @Nullable Instant slot) {
		long now = System.nanoTime();
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
			case ACQUIRED -> "acquired";
		};
	}

	/**
	 * Return a new lease token: 128 bits from {@link SecureRandom}, not from a seeded
	 * PRNG, so two JVMs restored from one checkpoint (CRaC) or forked from one image
	 * cannot hand out the same tokens.
	 */
	static String newLeaseToken() {
		byte[] bytes = new byte[16];
		TOKEN_SOURCE.nextBytes(bytes);
		return HexFormat.of().formatHex(bytes);
	}

	/**
	 * Stop taking new leases; runs under way go on and release their leases when they
	 * end. Called when the application context starts closing.
	 */
	public void beginShutdown() {
		this.closing = true;
	}

	/**
	 * Shut down: stop taking new leases, wait up to {@code gracePeriod} for running jobs
	 * to end (they release their leases themselves), then stop the watchdog; runs still
	 * going are declared lost and interrupted when configured.
	 * @param gracePeriod how long to wait for running jobs
	 */
	public void shutdown(Duration gracePeriod) {
		this.closing = true;
		long deadline = System.nanoTime() + ActiveRun.saturatedNanos(gracePeriod);
		while (!this.running.isEmpty() && deadline - System.nanoTime() > 0) {
			try {
				TimeUnit.MILLISECONDS.sleep(Math.min(50, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		if (!this.running.isEmpty()) {
			logger.warn("cluster-singleton is shutting down while " + this.running.size()
					+ " job(s) still run; their leases are no longer renewed");
		}
		// completions the store has not taken yet: keep trying within the same grace
		// period
		while (!this.undeliveredCompletions.isEmpty() && deadline - System.nanoTime() > 0) {
			try {
				TimeUnit.MILLISECONDS.sleep(Math.min(50, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		synchronized (this.undeliveredCompletions) {
			ScheduledExecutorService retries = this.completionRetries;
			if (retries != null) {
				retries.shutdownNow();
			}
			for (UndeliveredCompletion undelivered : this.undeliveredCompletions.values()) {
				undelivered.done();
				undelivered.giveUp("this node shut down");
			}
		}
		this.watchdog.close();
		ScheduledExecutorService background = this.background;
		if (background != null) {
			background.shutdownNow();
		}
		ExecutorService workers = this.workers;
		if (workers != null) {
			workers.shutdown();
		}
		LeaderElection leader = this.leader;
		if (leader != null) {
			leader.resign();
		}
		this.ledger.close(1000);
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
