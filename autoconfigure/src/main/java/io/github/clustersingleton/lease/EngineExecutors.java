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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Creates the threads the engine runs its background work on: the watchdog's timer and
 * renewal thread, the pending-work monitor and its recovery workers, the completion
 * retries and the run-ledger writer. Each method is called once per engine, when the
 * engine needs that pool. Production uses {@link #standard()}; a test can hand the engine
 * executors it steps by hand, together with a manual {@link Ticker}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface EngineExecutors {

	/**
	 * Return the pools of a production engine: daemon threads named
	 * {@code cluster-singleton-*}.
	 * @return the standard executors
	 */
	static EngineExecutors standard() {
		return StandardEngineExecutors.INSTANCE;
	}

	/**
	 * Create the watchdog's timer: deadline checks and ticks, never a store round trip.
	 * Tasks cancelled or still delayed at shutdown must not run.
	 * @return a single-threaded scheduled executor
	 */
	ScheduledExecutorService watchdogTimer();

	/**
	 * Create the watchdog's renewal thread, which makes the store round trips of the
	 * renewals and of the leader election.
	 * @return a single-threaded executor
	 */
	ExecutorService renewer();

	/**
	 * Create the thread of the background work: pending-work scans and the refresh of the
	 * cluster-wide last successes.
	 * @return a single-threaded scheduled executor
	 */
	ScheduledExecutorService monitor();

	/**
	 * Create the workers that run recovery and catch-up work, one job at a time each.
	 * @return an executor
	 */
	ExecutorService recoveryWorkers();

	/**
	 * Create the thread that retries completions the store did not take.
	 * @return a single-threaded scheduled executor
	 */
	ScheduledExecutorService completionRetries();

	/**
	 * Create the run-ledger writer: one thread, in order, with a bounded queue.
	 * @param queueCapacity how many writes may wait
	 * @param whenFull called instead of a write that finds the queue full
	 * @return a single-threaded executor
	 */
	ExecutorService ledgerWriter(int queueCapacity, Runnable whenFull);

	/**
	 * Return how long the run-ledger writer waits, once a write is queued, for more to
	 * join it in one store call. The ledger is history, read by people and dashboards: a
	 * tenth of a second later costs nothing, and at the top of a busy minute it turns the
	 * records of a node's runs into a few calls instead of two per run. Executors stepped
	 * by hand wait for nothing (the default), so that a write is sent as soon as its task
	 * runs.
	 * @return the wait, zero for none
	 */
	default Duration ledgerLinger() {
		return Duration.ZERO;
	}

	/**
	 * Return how long the run-ledger writer keeps trying a write the store refused or did
	 * not answer, with growing pauses, before it counts the write as failed. The store
	 * that holds the ledger also holds the leases: a connection dropped, a failover or a
	 * restart of a few seconds must not leave a run that ended recorded as running.
	 * Executors stepped by hand do not retry (the default).
	 * @return the period, zero for a single attempt
	 */
	default Duration ledgerRetryPeriod() {
		return Duration.ZERO;
	}

	/**
	 * Create the thread that gives back the leases of scheduled runs behind them: in
	 * leader mode those of the leader's runs, at once, so that the scheduler's thread
	 * goes on to its next job; with preferred-node routing those of the runs of routed
	 * slots, once the instant's claims are made (delayed tasks). Its tasks are store
	 * round trips followed by the run ledger's and the listeners' calls. Tasks still
	 * queued at shutdown are settled by the shutdown itself: delayed tasks need not run
	 * after it (they find their release made).
	 * @return a single-threaded scheduled executor
	 */
	default ScheduledExecutorService settling() {
		return StandardEngineExecutors.INSTANCE.settling();
	}

}
