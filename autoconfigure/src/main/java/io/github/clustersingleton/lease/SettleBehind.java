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
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * The releases of scheduled runs, made behind them. In leader mode one node runs every
 * job, on its scheduler's threads, and the release of each run's lease with the
 * completion of its run (a store round trip, {@link GuardedRun#settleBehind}) is made on
 * a thread of its own ({@link EngineExecutors#settling()}), so that the scheduler's
 * thread goes on to the instant's next job. With preferred-node routing, the release of a
 * run of a routed slot is made there too, but only once the instant's claims are made
 * ({@link PreferredNodes#releaseDelay}): at the top of a busy minute the releases then no
 * longer compete with the claims for the store and the cores. The run ledger and the
 * listener hear of the run's end on the run's own thread, as without this; only store
 * round trips are made here.
 * <p>
 * Until the store has answered, the run's lease is renewed by the watchdog, as while it
 * ran, and the run counts as running here, so that no node takes it up again. A release
 * is made once, by whoever comes first: the settling thread, the job's next claim on this
 * node (which makes it itself rather than be refused by its own lease), or the shutdown.
 * Nobody waits for a release another thread is making longer than a lease TTL, or than
 * the shutdown's grace period.
 *
 * @author cluster-singleton contributors
 */
final class SettleBehind {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	/**
	 * How far behind its runs the settling thread may fall: a run that returns while the
	 * oldest release waits longer than this past its due time gives its lease back on its
	 * own thread, as without this class, so that the releases that wait stay few (at the
	 * shutdown too).
	 */
	static final Duration MAX_BEHIND = Duration.ofSeconds(1);

	/**
	 * How many releases may wait for their time ({@link PreferredNodes#releaseDelay}) at
	 * once: beyond it a run gives its lease back on its own thread, so that a shutdown
	 * that comes while they wait has few to make.
	 */
	static final int MAX_WAITING = 256;

	private final EngineState state;

	private final LeaseWatchdog watchdog;

	private final EngineExecutors executors;

	private final Ticker ticker;

	private final long ttlNanos;

	/** The releases not made yet, by job: one per job, its last run's. */
	private final Map<String, Release> releases = new ConcurrentHashMap<>();

	/** The releases in the order they were handed over, the made ones dropped lazily. */
	private final Queue<Release> order = new ConcurrentLinkedQueue<>();

	private @Nullable ScheduledExecutorService settling;

	private boolean closed;

	SettleBehind(EngineState state, LeaseWatchdog watchdog, EngineExecutors executors, Ticker ticker,
			Duration leaseTtl) {
		this.state = state;
		this.watchdog = watchdog;
		this.executors = executors;
		this.ticker = ticker;
		this.ttlNanos = leaseTtl.toNanos();
	}

	/**
	 * How long after now a run's lease is given back behind it, if it is: at once on the
	 * settling thread for a scheduled run of a slot in leader mode; after the wait
	 * routing gives ({@link PreferredNodes#releaseDelay}) for a scheduled run of a cron
	 * slot of a job that neither recovers, retries nor catches up runs (a node killed
	 * before the release then leaves nothing that another node would run again), while
	 * fewer than {@value #MAX_WAITING} releases wait; never while the node is closing.
	 * @param job the job
	 * @param slot the run's slot
	 * @param trigger why the run started
	 * @param policy the job's claim policy
	 * @param routing preferred-node routing, if on
	 * @return the delay to hand to {@link #settle}, or {@code null} to give the lease
	 * back on the run's own thread
	 */
	@Nullable Duration behindBy(JobDefinition job, @Nullable Instant slot, RunTrigger trigger, ClaimPolicy policy,
			@Nullable PreferredNodes routing) {
		if (slot == null || trigger != RunTrigger.SCHEDULED || this.state.isClosing()) {
			return null;
		}
		if (this.state.leader() != null) {
			return Duration.ZERO;
		}
		if (routing == null || policy.isActive() || this.releases.size() >= MAX_WAITING) {
			return null;
		}
		return routing.releaseDelay(job, slot);
	}

	/**
	 * Give a run's lease back behind it.
	 * @param held the run's lease, renewed by the watchdog until the release begins
	 * @param release the release, with the completion of the run
	 * @param delay how long from now the release waits before the settling thread makes
	 * it ({@link #behindBy})
	 */
	void settle(AheadClaim held, Runnable release, Duration delay) {
		String jobName = held.job().name();
		long now = this.ticker.nanoTime();
		Release pending = new Release(jobName, held, release, now + delay.toNanos());
		// renewed from before anyone can take it: the one who makes it stops the renewal
		boolean renewed = this.watchdog.holdAhead(held);
		Release earlier = this.releases.put(jobName, pending);
		if (earlier != null) {
			// a job's lease is given back before its next claim here: not expected
			earlier.makeOrAwait(deadlineIn(this.ttlNanos));
		}
		this.order.add(pending);
		if (!renewed || this.state.isClosing() || behind()) {
			// the shutdown may have made the others already; or the settling thread is
			// more than MAX_BEHIND behind, and this thread makes its own
			pending.makeOrAwait(deadlineIn(this.ttlNanos));
			return;
		}
		try {
			ScheduledExecutorService settling = settling();
			if (settling != null) {
				if (delay.isZero()) {
					settling.execute(pending::makeIfNotTaken);
				}
				else {
					settling.schedule(pending::makeIfNotTaken, delay.toNanos(), TimeUnit.NANOSECONDS);
				}
				return;
			}
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			// closed meanwhile, or no thread to be had
		}
		pending.makeOrAwait(deadlineIn(this.ttlNanos));
	}

	/**
	 * Whether the oldest release that waits was due more than {@link #MAX_BEHIND} ago.
	 */
	private boolean behind() {
		Release oldest;
		while ((oldest = this.order.peek()) != null && oldest.isMade()) {
			this.order.remove(oldest);
		}
		return oldest != null && this.ticker.nanoTime() - oldest.due > MAX_BEHIND.toNanos();
	}

	/**
	 * Give back the lease of the job's last run here, if its release waits, on this
	 * thread; or wait, a lease TTL at most, for the thread making it.
	 * @param jobName the job
	 */
	void settled(String jobName) {
		Release pending = this.releases.get(jobName);
		if (pending != null) {
			pending.makeOrAwait(deadlineIn(this.ttlNanos));
		}
	}

	/**
	 * Make every release that waits, on this thread, until the deadline: the node shuts
	 * down. A release not made by then is left: its lease expires within a TTL, as after
	 * a release that failed.
	 * @param deadline until when (ticker time)
	 */
	void settleAll(long deadline) {
		for (Release pending : this.releases.values()) {
			if (deadline - this.ticker.nanoTime() <= 0) {
				logger
					.warn("cluster-singleton is shutting down before it gave back the leases of " + this.releases.size()
							+ " run(s) that returned; they expire within " + Duration.ofNanos(this.ttlNanos));
				return;
			}
			pending.makeOrAwait(deadline);
		}
	}

	/**
	 * Make every release that waits, until the deadline, then stop the settling thread.
	 * @param deadline until when (ticker time)
	 */
	void close(long deadline) {
		ScheduledExecutorService settling;
		synchronized (this) {
			this.closed = true;
			settling = this.settling;
		}
		settleAll(deadline);
		if (settling != null) {
			settling.shutdown();
		}
	}

	private long deadlineIn(long nanos) {
		return this.ticker.nanoTime() + nanos;
	}

	private synchronized @Nullable ScheduledExecutorService settling() {
		if (this.closed) {
			return null;
		}
		ScheduledExecutorService settling = this.settling;
		if (settling == null) {
			settling = this.executors.settling();
			this.settling = settling;
		}
		return settling;
	}

	/**
	 * The release of one run's lease, made once.
	 */
	private final class Release {

		private final String jobName;

		private final AheadClaim held;

		private final Runnable release;

		/** When the settling thread is to make it (ticker time). */
		private final long due;

		private final AtomicBoolean taken = new AtomicBoolean();

		private final CountDownLatch made = new CountDownLatch(1);

		Release(String jobName, AheadClaim held, Runnable release, long due) {
			this.jobName = jobName;
			this.held = held;
			this.release = release;
			this.due = due;
		}

		boolean isMade() {
			return this.made.getCount() == 0;
		}

		/**
		 * Make the release unless another thread took it: the settling thread never waits
		 * for another's.
		 */
		void makeIfNotTaken() {
			if (this.taken.compareAndSet(false, true)) {
				make();
			}
		}

		/**
		 * Make the release, or wait until the deadline (ticker time) for the thread
		 * making it.
		 */
		void makeOrAwait(long deadline) {
			if (this.taken.compareAndSet(false, true)) {
				make();
				return;
			}
			try {
				long left = deadline - SettleBehind.this.ticker.nanoTime();
				if (left <= 0 || !this.made.await(left, TimeUnit.NANOSECONDS)) {
					logger.warn("cluster-singleton did not wait longer for the lease of the last run of job '"
							+ this.jobName + "' to be given back");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		private void make() {
			SettleBehind.this.watchdog.dropAhead(this.held);
			try {
				this.release.run();
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				logger.error("cluster-singleton could not give back the lease of a run of job '" + this.jobName + "'",
						ex);
			}
			finally {
				SettleBehind.this.releases.remove(this.jobName, this);
				this.made.countDown();
			}
		}

	}

}
