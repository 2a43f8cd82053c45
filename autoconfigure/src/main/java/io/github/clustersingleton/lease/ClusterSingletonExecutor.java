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
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.log.LogMessage;
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

	private final Map<String, Long> clockSkewWarnings = new ConcurrentHashMap<>();

	private final LeaseBackend backend;

	private final Settings settings;

	private final Clock clock;

	private final ClusterSingletonListener listener;

	private final LeaseWatchdog watchdog;

	private final StoreClock storeClock;

	private final Set<ActiveRun> running = ConcurrentHashMap.newKeySet();

	private volatile boolean closing;

	private volatile boolean backendInitialized;

	private volatile @Nullable LeaderElection leader;

	private Duration shutdownGracePeriod = Duration.ZERO;

	private volatile RunObserver runObserver = RunObserver.NONE;

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
		LeaderElection leader = new LeaderElection(this.backend, this.settings.owner(), leaseName,
				this.settings.leaseTtl(), listener);
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
		synchronized (this) {
			if (!this.backendInitialized) {
				this.backend.initialize();
				this.backendInitialized = true;
			}
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
	 * Run a job if this node gets its lease. The slot is derived from the job's cron
	 * schedule when {@code scheduled} is true.
	 * @param job the job
	 * @param scheduled whether the scheduler triggered this run (direct calls have no
	 * slot)
	 * @param invocation the job's body
	 * @return whether the job ran
	 * @throws Throwable what the job threw
	 */
	public boolean execute(JobDefinition job, boolean scheduled, Invocation invocation) throws Throwable {
		CronSlotSchedule schedule = job.schedule();
		Instant slot = (scheduled && schedule != null)
				? schedule.slotFor(this.clock.instant(), this.settings.slotTolerance()) : null;
		return execute(job, slot, invocation);
	}

	/**
	 * Run a job for an explicit slot if this node gets its lease.
	 * @param job the job
	 * @param slot the slot the run claims, or {@code null} for none
	 * @param invocation the job's body
	 * @return whether the job ran
	 * @throws Throwable what the job threw
	 */
	public boolean execute(JobDefinition job, @Nullable Instant slot, Invocation invocation) throws Throwable {
		if (this.closing) {
			logger.debug(LogMessage
				.of(() -> "cluster-singleton skipped job '" + job.name() + "': the application is shutting down"));
			return false;
		}
		if (!job.enabled()) {
			logger.debug(LogMessage.of(() -> "cluster-singleton skipped job '" + job.name()
					+ "': disabled by cluster-singleton.jobs." + job.name() + ".enabled"));
			return false;
		}
		LeaderElection leader = this.leader;
		if (leader != null && !leader.isLeader()) {
			logger.debug(LogMessage.of(() -> "cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot)
					+ ": this node is not the leader"));
			notify(() -> this.listener.acquireAttempted(job, slot, AcquireResult.notLeader(), Duration.ZERO));
			return false;
		}
		LeaseRequest request = new LeaseRequest(job.name(), this.settings.owner(), newLeaseToken(),
				this.settings.leaseTtl(), slot, this.settings.slotTolerance());
		RunObserver.Run observed = startObservation(job, slot);
		long requested = System.nanoTime();
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
			return false;
		}
		Duration took = Duration.ofNanos(System.nanoTime() - requested);
		notify(() -> this.listener.acquireAttempted(job, slot, result, took));
		if (result.outcome() == AcquireResult.Outcome.CLOCK_SKEW) {
			warnClockSkew(job, slot);
			notify(() -> observed.stop(result.outcome().tag(), null));
			return false;
		}
		if (!result.isAcquired()) {
			logger.debug(LogMessage.of(() -> "cluster-singleton skipped job '" + job.name() + "'" + describeSlot(slot)
					+ ": " + describeSkip(result)));
			notify(() -> observed.stop(result.outcome().tag(), null));
			return false;
		}
		return run(job, HeldLease.of(request, result.fencingToken()), requested, invocation, observed);
	}

	private boolean run(JobDefinition job, HeldLease lease, long requested, Invocation invocation,
			RunObserver.Run observed) throws Throwable {
		Duration took = Duration.ofNanos(System.nanoTime() - requested);
		if (took.compareTo(this.settings.leaseTtl()) >= 0) {
			// the store answered so late that the lease may already have ended for the
			// others: never run on it
			releaseQuietly(lease, job);
			IllegalStateException late = new IllegalStateException("the " + this.backend.id() + " lease store "
					+ "granted the lease after " + took + ", at or past its TTL of " + this.settings.leaseTtl());
			logger.warn("cluster-singleton skipped job '" + job.name() + "'" + describeSlot(lease.slot()) + ": "
					+ late.getMessage() + "; the next trigger tries again");
			notify(() -> observed.stop("error", late));
			return false;
		}
		ActiveRun run = new ActiveRun(job, lease, Thread.currentThread(), requested,
				this.settings.leaseTtl().toNanos());
		this.running.add(run);
		ScheduledFuture<?> capTimer = this.watchdog.register(run);
		if (capTimer == null) {
			// the watchdog closed between the shutdown check and here: nothing would
			// renew
			// the lease, so give it back and skip the run
			if (run.finish()) {
				Thread.interrupted();
			}
			this.running.remove(run);
			release(run);
			logger.debug(LogMessage
				.of(() -> "cluster-singleton skipped job '" + job.name() + "': the application is shutting down"));
			notify(() -> observed.stop("acquired", null));
			return false;
		}
		notify(() -> observed.acquired(lease));
		ClusterSingletonContext previous = run.bindToThread();
		Instant startedAt = this.clock.instant();
		long started = System.nanoTime();
		logger.debug(LogMessage.of(() -> "cluster-singleton running job '" + job.name() + "' (fencingToken="
				+ lease.fencingToken() + ", slot=" + lease.slot() + ")"));
		Throwable failure = null;
		try {
			invocation.proceed();
			return true;
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			boolean interrupted = run.finish();
			this.watchdog.unregister(run, capTimer);
			ActiveRun.restoreOnThread(previous);
			if (interrupted) {
				// our interrupt must not leak into whatever this thread runs next
				Thread.interrupted();
			}
			release(run);
			this.running.remove(run);
			Duration duration = Duration.ofNanos(System.nanoTime() - started);
			RunOutcome outcome = run.isLost() ? RunOutcome.LEASE_LOST
					: (failure != null) ? RunOutcome.FAILURE : RunOutcome.SUCCESS;
			Throwable error = failure;
			logger.debug(LogMessage
				.of(() -> "cluster-singleton finished job '" + job.name() + "' (fencingToken=" + lease.fencingToken()
						+ ", slot=" + lease.slot() + ", outcome=" + outcome.tag() + ", duration=" + duration + ")"));
			notify(() -> this.listener.runFinished(job, lease, outcome, startedAt, duration, error));
			notify(() -> observed.stop(outcome.tag(), error));
		}
	}

	private RunObserver.Run startObservation(JobDefinition job, @Nullable Instant slot) {
		try {
			return this.runObserver.start(job, slot, this.backend.id());
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton run observer failed", ex);
			return RunObserver.Run.NONE;
		}
	}

	private void release(ActiveRun run) {
		release(run.lease(), run.job(), run.job().lockAtLeastFor());
	}

	/**
	 * Give back a lease no run used, without keeping it for lockAtLeastFor.
	 */
	private void releaseQuietly(HeldLease lease, JobDefinition job) {
		release(lease, job, Duration.ZERO);
	}

	private void release(HeldLease lease, JobDefinition job, Duration lockAtLeastFor) {
		// a thread someone else interrupted (the scheduler's shutdownNow, a cancelled
		// future) must still give its lease back: clients such as Redisson and fabric8
		// abandon a request on an interrupted thread
		boolean interrupted = Thread.interrupted();
		try {
			this.backend.release(lease, lockAtLeastFor);
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			logger.warn("cluster-singleton could not release the lease of job '" + job.name() + "' (fencingToken="
					+ lease.fencingToken() + "); it expires by itself within " + this.settings.leaseTtl() + ": " + ex,
					logger.isDebugEnabled() ? ex : null);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
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
		this.watchdog.close();
		LeaderElection leader = this.leader;
		if (leader != null) {
			leader.resign();
		}
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
