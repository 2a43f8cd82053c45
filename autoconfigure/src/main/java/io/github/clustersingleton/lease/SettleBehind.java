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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * The ends of the leader's scheduled runs, settled behind them: in leader mode one node
 * runs every job, on its scheduler's threads, and the release of each run's lease with
 * the record of its end (a store round trip, {@link GuardedRun#settle}) is made on a
 * thread of its own ({@link EngineExecutors#settling()}), so that the scheduler's thread
 * goes on to the instant's next job.
 * <p>
 * Until the store has answered for it, an end that waits keeps its lease renewed by the
 * watchdog, as a run does, for {@link #HELD_AT_MOST} lease TTLs at most, and the run
 * counts as running here, so that neither this node nor another takes it up again. The
 * store's part of an end is done once, by whoever comes first: the settling thread, the
 * job's next claim on this node (which settles it itself rather than be refused by its
 * own lease), or the shutdown. What follows it (the run ledger, the listener) is done by
 * the same thread, after the others stopped waiting. Nobody waits for another thread's
 * end longer than a lease TTL, or than the shutdown's grace period.
 *
 * @author cluster-singleton contributors
 */
final class SettleBehind {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	/**
	 * How many lease TTLs at most after a run returned the watchdog renews its lease
	 * while its end waits: a settling thread stuck that long (a store call without a
	 * timeout) lets the lease expire, so that the job's next slot can be claimed, as it
	 * would be after a release that failed.
	 */
	static final int HELD_AT_MOST = 2;

	private final EngineState state;

	private final LeaseWatchdog watchdog;

	private final EngineExecutors executors;

	private final Ticker ticker;

	private final long ttlNanos;

	/** The ends not settled yet, by job: one per job, the last run's. */
	private final Map<String, End> ends = new ConcurrentHashMap<>();

	private @Nullable ExecutorService settling;

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
	 * Until when (nano time) the lease of a run that returned now is renewed while its
	 * end waits.
	 * @return the cap for {@link AheadClaim}
	 */
	long holdCap() {
		return this.ticker.nanoTime() + HELD_AT_MOST * this.ttlNanos;
	}

	/**
	 * Whether a run's end is settled behind it: a scheduled run of a slot in leader mode,
	 * while the node is not closing.
	 * @param slot the run's slot
	 * @param trigger why the run started
	 * @return whether to hand its end to {@link #settle}
	 */
	boolean takes(@Nullable Instant slot, RunTrigger trigger) {
		return slot != null && trigger == RunTrigger.SCHEDULED && this.state.leader() != null
				&& !this.state.isClosing();
	}

	/**
	 * Settle a run's end behind it.
	 * @param held the run's lease, renewed by the watchdog until the store's part of the
	 * end begins
	 * @param settle what settles it, calling the given hook once the store answered for
	 * the lease
	 */
	void settle(AheadClaim held, Consumer<Runnable> settle) {
		String jobName = held.job().name();
		End end = new End(jobName, held, settle);
		End earlier = this.ends.put(jobName, end);
		if (earlier != null) {
			// a run's end is settled before its job's next claim here: not expected
			earlier.settleOnce();
		}
		if (this.state.isClosing() || !this.watchdog.holdAhead(held)) {
			// the shutdown may have settled the others already
			end.settleOnce();
			return;
		}
		ExecutorService settling = settling();
		if (settling == null) {
			end.settleOnce();
			return;
		}
		try {
			settling.execute(end::settleOnce);
		}
		catch (RejectedExecutionException ex) {
			end.settleOnce();
		}
	}

	private synchronized @Nullable ExecutorService settling() {
		if (this.closed) {
			return null;
		}
		ExecutorService settling = this.settling;
		if (settling == null) {
			settling = this.executors.settling();
			this.settling = settling;
		}
		return settling;
	}

	/**
	 * Settle the store's part of the end of the job's last run here, if it waits, on this
	 * thread; or wait for the thread doing it.
	 * @param jobName the job
	 */
	void settled(String jobName) {
		End end = this.ends.get(jobName);
		if (end != null) {
			end.settleOnce(this.ticker.nanoTime() + this.ttlNanos);
		}
	}

	/**
	 * Settle every end that waits, on this thread: the node shuts down. An end whose run
	 * returned is settled whatever the grace period: its lease is live, and a recovery
	 * policy would otherwise have another node run its slot again.
	 */
	void settleAll(long deadline) {
		this.ends.values().forEach((end) -> end.settleOnce(deadline));
	}

	/**
	 * Settle every end that waits, then stop the settling thread.
	 * @param deadline until when (ticker time) to wait for another thread's end
	 */
	void close(long deadline) {
		ExecutorService settling;
		synchronized (this) {
			this.closed = true;
			settling = this.settling;
		}
		settleAll(deadline);
		if (settling != null) {
			settling.shutdown();
		}
	}

	/**
	 * One run's end, settled once.
	 */
	private final class End {

		private final String jobName;

		private final AheadClaim held;

		private final Consumer<Runnable> settle;

		private final AtomicReference<@Nullable Thread> taken = new AtomicReference<>();

		private final CountDownLatch delivered = new CountDownLatch(1);

		End(String jobName, AheadClaim held, Consumer<Runnable> settle) {
			this.jobName = jobName;
			this.held = held;
			this.settle = settle;
		}

		void settleOnce() {
			settleOnce(Long.MAX_VALUE);
		}

		/**
		 * Settle this end, or wait until the deadline (ticker time) for the thread that
		 * does.
		 */
		void settleOnce(long deadline) {
			Thread current = Thread.currentThread();
			if (!this.taken.compareAndSet(null, current)) {
				if (this.taken.get() != current) {
					awaitDelivered(deadline);
				}
				// else: the listener of this end, on the thread settling it, claims the
				// job: the store has answered for this end already
				return;
			}
			SettleBehind.this.watchdog.dropAhead(this.held);
			try {
				this.settle.accept(this::delivered);
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				logger.error("cluster-singleton could not settle the end of a run of job '" + this.jobName + "'", ex);
			}
			finally {
				delivered();
			}
		}

		/**
		 * The store answered for the lease: the others stop waiting.
		 */
		private void delivered() {
			SettleBehind.this.ends.remove(this.jobName, this);
			this.delivered.countDown();
		}

		private void awaitDelivered(long deadline) {
			try {
				long left = (deadline == Long.MAX_VALUE) ? Long.MAX_VALUE
						: deadline - SettleBehind.this.ticker.nanoTime();
				if (left <= 0 || !this.delivered.await(left, TimeUnit.NANOSECONDS)) {
					logger.warn("cluster-singleton did not wait longer for the end of the last run of job '"
							+ this.jobName + "' to reach the store");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
