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

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Writes to the run ledger off the runs' threads, in order, on one daemon thread with a
 * bounded queue: a slow or unreachable store delays history, never a run. A write that
 * fails, or finds the queue full, is logged and counted, and the run goes on.
 * <p>
 * Writes are sent in groups: the records that queue up within a moment
 * ({@link EngineExecutors#ledgerLinger()}) of the first, or while a write is on its way,
 * go together in the next one ({@link RunLedger#recordAll}), where a record that replaces
 * an earlier one of the same run (its end, after its start) is sent alone. A mark of lost
 * runs keeps its place in the order. A write that fails is tried again, with growing
 * pauses, for {@link EngineExecutors#ledgerRetryPeriod()} before it counts as failed; the
 * writes queued behind it wait, so the order holds.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class RunLedgerWriter {

	private static final Log logger = LogFactory.getLog(RunLedgerWriter.class);

	private static final int QUEUE_CAPACITY = 10_000;

	/**
	 * The most records sent in one write.
	 */
	static final int MAX_BATCH = 200;

	private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private static final long FIRST_RETRY_PAUSE_MILLIS = 100;

	private static final long MAX_RETRY_PAUSE_MILLIS = 1_000;

	private final RunLedger ledger;

	private final ExecutorService writer;

	private final Ticker ticker;

	private final long lingerMillis;

	private final long retryPeriodNanos;

	private final Queue<Write> pending = new ConcurrentLinkedQueue<>();

	private final AtomicInteger queued = new AtomicInteger();

	private final AtomicBoolean draining = new AtomicBoolean();

	private final AtomicLong failures = new AtomicLong();

	private volatile long lastWarning;

	private volatile int maxRuns = 100;

	RunLedgerWriter(RunLedger ledger) {
		this(ledger, Ticker.SYSTEM, EngineExecutors.standard());
	}

	RunLedgerWriter(RunLedger ledger, Ticker ticker, EngineExecutors executors) {
		this.ledger = ledger;
		this.ticker = ticker;
		this.lastWarning = ticker.nanoTime() - WARN_INTERVAL_NANOS;
		// at most one drain is queued at a time: a rejection means the writer is shut
		// down
		this.writer = executors.ledgerWriter(QUEUE_CAPACITY, () -> this.draining.set(false));
		this.lingerMillis = executors.ledgerLinger().toMillis();
		this.retryPeriodNanos = executors.ledgerRetryPeriod().toNanos();
	}

	void setMaxRuns(int maxRuns) {
		this.maxRuns = maxRuns;
	}

	int maxRuns() {
		return this.maxRuns;
	}

	RunLedger ledger() {
		return this.ledger;
	}

	long failures() {
		return this.failures.get();
	}

	void record(RunRecord run) {
		if (this.ledger == RunLedger.NONE) {
			return;
		}
		submit(new Write(run, null, 0));
	}

	void markLostBefore(String jobName, long fencingToken) {
		if (this.ledger == RunLedger.NONE) {
			return;
		}
		submit(new Write(null, jobName, fencingToken));
	}

	private void submit(Write write) {
		if (this.writer.isShutdown()) {
			return;
		}
		if (this.queued.incrementAndGet() > QUEUE_CAPACITY) {
			this.queued.decrementAndGet();
			failed("the ledger queue is full", null, 1);
			return;
		}
		this.pending.add(write);
		scheduleDrain();
	}

	private void scheduleDrain() {
		if (this.draining.compareAndSet(false, true)) {
			try {
				this.writer.execute(this::drain);
			}
			catch (RejectedExecutionException ex) {
				this.draining.set(false);
			}
		}
	}

	private void drain() {
		try {
			linger();
			List<Write> writes = take();
			while (!writes.isEmpty()) {
				send(writes);
				linger();
				writes = take();
			}
		}
		finally {
			this.draining.set(false);
			if (!this.pending.isEmpty()) {
				if (this.writer.isShutdown()) {
					// queued as this drain ended, and no drain can be scheduled any more
					for (List<Write> writes = take(); !writes.isEmpty(); writes = take()) {
						send(writes);
					}
				}
				else {
					scheduleDrain();
				}
			}
		}
	}

	/**
	 * Give the writes that follow the first a moment to join it, unless a full group is
	 * already waiting.
	 */
	private void linger() {
		if (this.lingerMillis > 0 && this.queued.get() < MAX_BATCH) {
			pause(this.lingerMillis);
		}
	}

	private List<Write> take() {
		List<Write> writes = new ArrayList<>();
		Write write;
		while (writes.size() < MAX_BATCH && (write = this.pending.poll()) != null) {
			this.queued.decrementAndGet();
			writes.add(write);
		}
		return writes;
	}

	private void send(List<Write> writes) {
		Map<RunKey, RunRecord> records = new LinkedHashMap<>();
		Set<RunKey> startsReplaced = new HashSet<>();
		for (Write write : writes) {
			RunRecord run = write.run();
			if (run != null) {
				RunKey key = new RunKey(run.jobName(), run.fencingToken());
				RunRecord replaced = records.put(key, run);
				if (replaced != null && replaced.state() == RunState.RUNNING && run.state() != RunState.RUNNING) {
					startsReplaced.add(key);
				}
			}
			else {
				sendRecords(records, startsReplaced);
				records.clear();
				startsReplaced.clear();
				call("a write for job '" + write.jobName() + "' failed", 1,
						() -> this.ledger.markLostBefore(String.valueOf(write.jobName()), write.fencingToken()));
			}
		}
		sendRecords(records, startsReplaced);
	}

	/**
	 * Send the records of a group. A run's end that replaced its start within the group
	 * is the first record of that run anyone writes (a run's start is recorded once,
	 * first, by the node that runs it; a mark of lost runs rewrites only records already
	 * written): the store is told so.
	 */
	private void sendRecords(Map<RunKey, RunRecord> records, Set<RunKey> startsReplaced) {
		if (records.isEmpty()) {
			return;
		}
		List<RunRecord> runs = List.copyOf(records.values());
		int maxRuns = this.maxRuns;
		if (runs.size() == 1) {
			call("a write for job '" + runs.get(0).jobName() + "' failed", 1,
					() -> this.ledger.record(runs.get(0), maxRuns));
		}
		else {
			call("a write of " + runs.size() + " runs failed", runs.size(), () -> this.ledger.recordAll(runs, maxRuns,
					(run) -> startsReplaced.contains(new RunKey(run.jobName(), run.fencingToken()))));
		}
	}

	/**
	 * Make one call to the ledger; if it fails, try again with growing pauses until the
	 * retry period has passed since the first attempt, or the writer is shut down, then
	 * count the records it carried as failed.
	 */
	private void call(String what, int records, Runnable call) {
		long deadline = this.ticker.nanoTime() + this.retryPeriodNanos;
		long pause = FIRST_RETRY_PAUSE_MILLIS;
		while (true) {
			try {
				call.run();
				return;
			}
			catch (RuntimeException ex) {
				long left = TimeUnit.NANOSECONDS.toMillis(deadline - this.ticker.nanoTime());
				if (left <= 0 || this.writer.isShutdown() || !pause(Math.min(pause, left))) {
					failed(what, ex, records);
					return;
				}
				pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MILLIS);
			}
		}
	}

	private static boolean pause(long millis) {
		try {
			Thread.sleep(millis);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private void failed(String what, @Nullable RuntimeException ex, int lost) {
		this.failures.addAndGet(lost);
		long now = this.ticker.nanoTime();
		if (now - this.lastWarning >= WARN_INTERVAL_NANOS) {
			this.lastWarning = now;
			logger.warn(
					"cluster-singleton could not write to the run ledger: " + what
							+ ((ex != null) ? ": " + EngineSupport.describeFailure(ex) : "")
							+ "; runs go on, their history is lost (repeated at most once a minute)",
					logger.isDebugEnabled() ? ex : null);
		}
	}

	void close(long timeoutMillis) {
		this.writer.shutdown();
		try {
			this.writer.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A queued write: a run's record, or a mark of the runs lost before a fencing token.
	 */
	private record Write(@Nullable RunRecord run, @Nullable String jobName, long fencingToken) {
	}

	/**
	 * What identifies a run's record in the ledger.
	 */
	private record RunKey(String jobName, long fencingToken) {
	}

}
