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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ScheduledExecutorService} that runs nothing by itself: a test steps it with
 * {@link #tick(Duration)}, which moves the shared {@link ManualTicker} from one due task
 * to the next and runs each on the test's thread, in order of due time (then of
 * submission). Tasks submitted for immediate execution are due at once. Modelled on
 * jMock's {@code DeterministicScheduler} as ShedLock's {@code KeepAliveLockProviderTest}
 * uses it.
 *
 * @author cluster-singleton contributors
 */
final class DeterministicScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private final ManualTicker ticker;

	private final List<Task<?>> queue = new ArrayList<>();

	private final AtomicLong sequence = new AtomicLong();

	private boolean shutdown;

	DeterministicScheduler(ManualTicker ticker) {
		this.ticker = ticker;
	}

	/**
	 * Move time forward by {@code duration}, running every task that falls due on the
	 * way, at its due time.
	 * @param duration how far to move
	 */
	void tick(Duration duration) {
		long until = this.ticker.nanoTime() + duration.toNanos();
		Task<?> next;
		while ((next = nextDueBy(until)) != null) {
			long wait = next.dueAt - this.ticker.nanoTime();
			if (wait > 0) {
				this.ticker.advance(Duration.ofNanos(wait));
			}
			next.runOnce();
		}
		long rest = until - this.ticker.nanoTime();
		if (rest > 0) {
			this.ticker.advance(Duration.ofNanos(rest));
		}
	}

	/**
	 * Run the tasks due now, without moving time.
	 */
	void runDueTasks() {
		tick(Duration.ZERO);
	}

	/**
	 * Return how many tasks wait, due or not.
	 * @return the number of queued tasks
	 */
	synchronized int queued() {
		return this.queue.size();
	}

	private synchronized Task<?> nextDueBy(long until) {
		Task<?> next = this.queue.stream()
			.min(Comparator.<Task<?>>comparingLong((task) -> task.dueAt - until).thenComparingLong((task) -> task.seq))
			.orElse(null);
		if (next == null || next.dueAt - until > 0) {
			return null;
		}
		this.queue.remove(next);
		return next;
	}

	private synchronized <T> Task<T> enqueue(Task<T> task) {
		if (this.shutdown) {
			throw new RejectedExecutionException("shut down");
		}
		this.queue.add(task);
		return task;
	}

	private synchronized void requeue(Task<?> task) {
		if (!this.shutdown) {
			this.queue.add(task);
		}
	}

	private synchronized void remove(Task<?> task) {
		this.queue.remove(task);
	}

	@Override
	public void execute(Runnable command) {
		enqueue(new Task<>(Executors.callable(command), this.ticker.nanoTime(), 0));
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return enqueue(new Task<>(Executors.callable(command), dueIn(delay, unit), 0));
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		return enqueue(new Task<>(callable, dueIn(delay, unit), 0));
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		// a fixed rate and a fixed delay are the same when tasks take no time
		return scheduleWithFixedDelay(command, initialDelay, period, unit);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		return enqueue(new Task<>(Executors.callable(command), dueIn(initialDelay, unit), unit.toNanos(delay)));
	}

	private long dueIn(long delay, TimeUnit unit) {
		return this.ticker.nanoTime() + Math.max(0, unit.toNanos(delay));
	}

	@Override
	public synchronized void shutdown() {
		this.shutdown = true;
	}

	@Override
	public synchronized List<Runnable> shutdownNow() {
		this.shutdown = true;
		this.queue.clear();
		return List.of();
	}

	@Override
	public synchronized boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public synchronized boolean isTerminated() {
		return this.shutdown;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return isTerminated();
	}

	private final class Task<V> implements ScheduledFuture<V> {

		private final Callable<V> callable;

		private final long periodNanos;

		private final long seq = DeterministicScheduler.this.sequence.incrementAndGet();

		private volatile long dueAt;

		private volatile FutureTask<V> current;

		private volatile boolean cancelled;

		Task(Callable<V> callable, long dueAt, long periodNanos) {
			this.callable = callable;
			this.dueAt = dueAt;
			this.periodNanos = periodNanos;
			this.current = new FutureTask<>(callable);
		}

		void runOnce() {
			if (this.cancelled) {
				return;
			}
			if (this.periodNanos == 0) {
				this.current.run();
				return;
			}
			FutureTask<V> run = new FutureTask<>(this.callable);
			run.run();
			try {
				run.get();
			}
			catch (ExecutionException | InterruptedException | CancellationException ex) {
				// a periodic task that throws runs no more, as with a real pool
				this.current = run;
				return;
			}
			this.dueAt = DeterministicScheduler.this.ticker.nanoTime() + this.periodNanos;
			requeue(this);
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.dueAt - DeterministicScheduler.this.ticker.nanoTime(), TimeUnit.NANOSECONDS);
		}

		@Override
		public int compareTo(Delayed other) {
			return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			this.cancelled = true;
			remove(this);
			return this.current.cancel(false);
		}

		@Override
		public boolean isCancelled() {
			return this.cancelled;
		}

		@Override
		public boolean isDone() {
			return this.cancelled || this.current.isDone();
		}

		@Override
		public V get() throws InterruptedException, ExecutionException {
			return this.current.get();
		}

		@Override
		public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException {
			return this.current.get();
		}

	}

	/**
	 * Executors for an engine whose every pool is this one scheduler.
	 * @return the executors
	 */
	EngineExecutors asEngineExecutors() {
		DeterministicScheduler scheduler = this;
		return new EngineExecutors() {

			@Override
			public ScheduledExecutorService watchdogTimer() {
				return scheduler;
			}

			@Override
			public ExecutorService renewer() {
				return scheduler;
			}

			@Override
			public ScheduledExecutorService monitor() {
				return scheduler;
			}

			@Override
			public ExecutorService recoveryWorkers() {
				return scheduler;
			}

			@Override
			public ScheduledExecutorService completionRetries() {
				return scheduler;
			}

			@Override
			public ExecutorService ledgerWriter(int queueCapacity, Runnable whenFull) {
				return scheduler;
			}

		};
	}

}
