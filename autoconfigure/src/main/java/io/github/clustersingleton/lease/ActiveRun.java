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

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.RunTrigger;
import org.jspecify.annotations.Nullable;

/**
 * One guarded run that holds its lease: the context the job sees, and the state the
 * watchdog works on. Deadlines are measured on the monotonic clock ({@link Ticker}), so a
 * wall-clock step cannot extend a lease.
 *
 * @author cluster-singleton contributors
 */
final class ActiveRun extends ClusterSingletonContext {

	private final JobDefinition job;

	private final HeldLease lease;

	private final Thread thread;

	private final long capNanos;

	private volatile long deadlineNanos;

	private volatile @Nullable String lossReason;

	private boolean finished;

	private boolean interruptedByWatchdog;

	private boolean lostAtFinish;

	private @Nullable Runnable canceller;

	private final int attempt;

	private final RunTrigger trigger;

	private final List<Instant> missedSlots;

	private final Ticker ticker;

	ActiveRun(JobDefinition job, HeldLease lease, Thread thread, long requestedNanos, long ttlNanos) {
		this(job, lease, thread, requestedNanos, ttlNanos, 1,
				(lease.slot() != null) ? RunTrigger.SCHEDULED : RunTrigger.DIRECT, List.of());
	}

	ActiveRun(JobDefinition job, HeldLease lease, Thread thread, long requestedNanos, long ttlNanos, int attempt,
			RunTrigger trigger, List<Instant> missedSlots) {
		this(job, lease, thread, requestedNanos, ttlNanos, attempt, trigger, missedSlots, Ticker.SYSTEM);
	}

	ActiveRun(JobDefinition job, HeldLease lease, Thread thread, long requestedNanos, long ttlNanos, int attempt,
			RunTrigger trigger, List<Instant> missedSlots, Ticker ticker) {
		this.job = job;
		this.ticker = ticker;
		this.lease = lease;
		this.thread = thread;
		this.attempt = attempt;
		this.trigger = trigger;
		this.missedSlots = List.copyOf(missedSlots);
		this.deadlineNanos = requestedNanos + ttlNanos;
		this.capNanos = requestedNanos + saturatedNanos(job.lockAtMostFor());
	}

	/**
	 * Convert to nanoseconds, capped at about 73 years so that deadline arithmetic on
	 * {@link System#nanoTime()} values cannot overflow.
	 */
	static long saturatedNanos(java.time.Duration duration) {
		long cap = Long.MAX_VALUE / 4;
		try {
			return Math.min(duration.toNanos(), cap);
		}
		catch (ArithmeticException ex) {
			return cap;
		}
	}

	JobDefinition job() {
		return this.job;
	}

	HeldLease lease() {
		return this.lease;
	}

	long capNanos() {
		return this.capNanos;
	}

	long deadlineNanos() {
		return this.deadlineNanos;
	}

	/**
	 * Move the local deadline after a successful renewal whose request left at
	 * {@code sentNanos}: the store's expiry is at least {@code ttl} after that.
	 */
	void renewed(long sentNanos, long ttlNanos) {
		long deadline = sentNanos + ttlNanos;
		if (deadline - this.deadlineNanos > 0) {
			this.deadlineNanos = deadline;
		}
	}

	/**
	 * Mark the lease lost, once.
	 * @return whether this call marked it (false when already lost or finished)
	 */
	synchronized boolean lose(String reason) {
		if (this.finished || this.lossReason != null) {
			return false;
		}
		this.lossReason = reason;
		return true;
	}

	/**
	 * Interrupt the run's thread, unless the run already ended; the lock makes sure a
	 * thread that moved on to other work is never interrupted.
	 */
	/**
	 * Set what stops this run instead of interrupting its thread: a reactive run, whose
	 * work happens on whatever threads its publisher uses, is cancelled instead.
	 * @param canceller cancels the run
	 */
	synchronized void cancelWith(Runnable canceller) {
		this.canceller = canceller;
	}

	synchronized void interrupt() {
		if (!this.finished) {
			Runnable canceller = this.canceller;
			if (canceller != null) {
				canceller.run();
				return;
			}
			this.interruptedByWatchdog = true;
			this.thread.interrupt();
		}
	}

	/**
	 * Mark the run finished; from now on the watchdog leaves its thread alone. Whether
	 * the lease was still valid is decided here, once, under the same lock as
	 * {@link #lose}: a run that ends after its local deadline or its
	 * {@code lockAtMostFor} counts as having lost its lease whether or not the watchdog's
	 * thread has noticed yet, so both thread orders give one answer.
	 * @return whether the watchdog interrupted the thread during the run
	 */
	synchronized boolean finish() {
		if (!this.finished && this.lossReason == null) {
			this.lossReason = lossReason();
			this.lostAtFinish = this.lossReason != null;
		}
		this.finished = true;
		return this.interruptedByWatchdog;
	}

	/**
	 * Whether the run's body has ended.
	 * @return {@code true} once {@link #finish()} was called
	 */
	synchronized boolean isFinished() {
		return this.finished;
	}

	/**
	 * Whether the run lost its lease: the watchdog declared it lost, or, once the run
	 * finished, its lease was no longer valid when it did.
	 * @return {@code true} when the lease is lost
	 */
	boolean isLost() {
		return this.lossReason != null;
	}

	/**
	 * Whether {@link #finish()} found the lease no longer valid before the watchdog had
	 * declared it lost.
	 * @return {@code true} when the loss was noticed at the end of the run
	 */
	synchronized boolean lostAtFinish() {
		return this.lostAtFinish;
	}

	/**
	 * Return why the run lost its lease.
	 * @return the reason, or {@code null} while the lease is valid
	 */
	@Nullable String lostBecause() {
		return lossReason();
	}

	@Override
	public String jobName() {
		return this.job.name();
	}

	@Override
	public long fencingToken() {
		return this.lease.fencingToken();
	}

	@Override
	public Optional<Instant> slot() {
		return Optional.ofNullable(this.lease.slot());
	}

	@Override
	public int attempt() {
		return this.attempt;
	}

	@Override
	public RunTrigger trigger() {
		return this.trigger;
	}

	@Override
	public List<Instant> missedSlots() {
		return this.missedSlots;
	}

	@Override
	public boolean isLeaseValid() {
		if (this.lossReason != null) {
			return false;
		}
		long now = this.ticker.nanoTime();
		return now - this.deadlineNanos < 0 && now - this.capNanos < 0;
	}

	@Override
	protected @Nullable String lossReason() {
		String reason = this.lossReason;
		if (reason != null) {
			return reason;
		}
		long now = this.ticker.nanoTime();
		if (now - this.capNanos >= 0) {
			return "the run exceeded its lockAtMostFor of " + this.job.lockAtMostFor();
		}
		if (now - this.deadlineNanos >= 0) {
			return "the lease was not renewed before its local deadline";
		}
		return null;
	}

	@Nullable ClusterSingletonContext bindToThread() {
		return bind(this);
	}

	static void restoreOnThread(@Nullable ClusterSingletonContext previous) {
		restore(previous);
	}

	@Override
	public String toString() {
		return "ActiveRun[job=" + this.job.name() + ", fencingToken=" + this.lease.fencingToken() + ", slot="
				+ this.lease.slot() + ", attempt=" + this.attempt + ", trigger=" + this.trigger + "]";
	}

}
