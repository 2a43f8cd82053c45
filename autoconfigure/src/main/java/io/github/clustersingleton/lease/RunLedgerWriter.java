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

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Writes to the run ledger off the runs' threads, in order, on one daemon thread with a
 * bounded queue: a slow or unreachable store delays history, never a run. A write that
 * fails, or finds the queue full, is logged and counted, and the run goes on.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class RunLedgerWriter {

	private static final Log logger = LogFactory.getLog(RunLedgerWriter.class);

	private static final int QUEUE_CAPACITY = 10_000;

	private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final RunLedger ledger;

	private final ExecutorService writer;

	private final Ticker ticker;

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
		this.writer = executors.ledgerWriter(QUEUE_CAPACITY, () -> failed("the ledger queue is full", null));
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
		int maxRuns = this.maxRuns;
		submit(() -> this.ledger.record(run, maxRuns), run.jobName());
	}

	void markLostBefore(String jobName, long fencingToken) {
		if (this.ledger == RunLedger.NONE) {
			return;
		}
		submit(() -> this.ledger.markLostBefore(jobName, fencingToken), jobName);
	}

	private void submit(Runnable write, String jobName) {
		if (this.writer.isShutdown()) {
			return;
		}
		this.writer.execute(() -> {
			try {
				write.run();
			}
			catch (RuntimeException ex) {
				failed("a write for job '" + jobName + "' failed", ex);
			}
		});
	}

	private void failed(String what, RuntimeException ex) {
		this.failures.incrementAndGet();
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

}
