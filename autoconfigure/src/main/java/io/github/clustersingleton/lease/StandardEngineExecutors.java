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
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The pools of a production engine, all on daemon threads.
 *
 * @author cluster-singleton contributors
 */
final class StandardEngineExecutors implements EngineExecutors {

	static final StandardEngineExecutors INSTANCE = new StandardEngineExecutors();

	/**
	 * How long the run-ledger writer waits for more writes to join the first.
	 */
	static final Duration LEDGER_LINGER = Duration.ofMillis(100);

	/**
	 * How long the run-ledger writer keeps trying a write that failed.
	 */
	static final Duration LEDGER_RETRY_PERIOD = Duration.ofSeconds(10);

	private StandardEngineExecutors() {
	}

	@Override
	public ScheduledExecutorService watchdogTimer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
				daemonThread("cluster-singleton-watchdog"));
		timer.setRemoveOnCancelPolicy(true);
		timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return timer;
	}

	@Override
	public ExecutorService renewer() {
		return Executors.newSingleThreadExecutor(daemonThread("cluster-singleton-renewal"));
	}

	@Override
	public ScheduledExecutorService monitor() {
		return Executors.newSingleThreadScheduledExecutor(daemonThreads("cluster-singleton-monitor-"));
	}

	@Override
	public ExecutorService recoveryWorkers() {
		return Executors.newCachedThreadPool(daemonThreads("cluster-singleton-recovery-"));
	}

	@Override
	public ScheduledExecutorService completionRetries() {
		return Executors.newSingleThreadScheduledExecutor(daemonThreads("cluster-singleton-completion-"));
	}

	@Override
	public ScheduledExecutorService settling() {
		ScheduledThreadPoolExecutor settling = new ScheduledThreadPoolExecutor(1,
				daemonThread("cluster-singleton-settle"));
		// the shutdown makes the releases that wait itself
		settling.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return settling;
	}

	@Override
	public ExecutorService ledgerWriter(int queueCapacity, Runnable whenFull) {
		return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queueCapacity),
				daemonThreads("cluster-singleton-ledger-"), (task, executor) -> whenFull.run());
	}

	@Override
	public Duration ledgerLinger() {
		return LEDGER_LINGER;
	}

	@Override
	public Duration ledgerRetryPeriod() {
		return LEDGER_RETRY_PERIOD;
	}

	/**
	 * Daemon threads that all bear the same name.
	 */
	private static ThreadFactory daemonThread(String name) {
		return (runnable) -> {
			Thread thread = new Thread(runnable, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * Daemon threads named with a prefix and a sequence number.
	 */
	private static ThreadFactory daemonThreads(String prefix) {
		CustomizableThreadFactory threads = new CustomizableThreadFactory(prefix);
		threads.setDaemon(true);
		return threads;
	}

}
