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

package io.github.clustersingleton.test;

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
import java.util.function.Predicate;

import io.github.clustersingleton.lease.EngineExecutors;
import io.github.clustersingleton.lease.Sleeper;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Runs an engine's background work in virtual time: every pool it hands out
 * ({@link #newExecutor()}, {@link #engineExecutors()}) runs nothing by itself; a test
 * steps time with {@link #advance(Duration)}, which moves the {@link ManualClock} from
 * one due task to the next and runs each on the calling thread, in order of due time
 * (then of submission). Tasks submitted for immediate execution are due at once. Modelled
 * on jMock's {@code DeterministicScheduler}, as ShedLock's
 * {@code KeepAliveLockProviderTest} uses it.
 * <p>
 * Each pool shuts down on its own, so that several engines (nodes) can share one
 * scheduler, one clock and one store.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class DeterministicScheduler {

	private final ManualClock clock;

	private final List<Task<?>> queue = new ArrayList<>();

	private final AtomicLong sequence = new AtomicLong();

	/**
	 * Create a scheduler that moves {@code clock}.
	 * @param clock the clock
	 */
	public DeterministicScheduler(ManualClock clock) {
		Assert.notNull(clock, "'clock' must not be null");
		this.clock = clock;
	}

	/**
	 * Return the clock this scheduler moves.
	 * @return the clock
	 */
	public ManualClock clock() {
		return this.clock;
	}

	/**
	 * Move time forward by {@code duration}, running every task that falls due on the
	 * way, at its due time, on the calling thread.
	 * @param duration how far to move, not negative
	 */
	public void advance(Duration duration) {
		Assert.isTrue(duration != null && !duration.isNegative(), "'duration' must not be negative");
		long until = this.clock.nanoTime() + duration.toNanos();
		Task<?> next;
		while ((next = nextDueBy(until)) != null) {
			long wait = next.dueAt - this.clock.nanoTime();
			if (wait > 0) {
				this.clock.advance(Duration.ofNanos(wait));
			}
			next.runOnce();
		}
		long rest = until - this.clock.nanoTime();
		if (rest > 0) {
			this.clock.advance(Duration.ofNanos(rest));
		}
	}

	/**
	 * Run the tasks due now, and those they submit for now, without moving time.
	 */
	public void runDueTasks() {
		advance(Duration.ZERO);
	}

	/**
	 * Return how many tasks wait, due or not.
	 * @return the number of queued tasks
	 */
	public synchronized int queued() {
		return this.queue.size();
	}

	/**
	 * Create a pool whose tasks this scheduler runs.
	 * @return a new pool, shut down independently of the others
	 */
	public ScheduledExecutorService newExecutor() {
		return new Pool();
	}

	/**
	 * Return executors for one engine: each pool it asks for is a new
	 * {@link #newExecutor() pool} of this scheduler.
	 * @return the executors
	 */
	public EngineExecutors engineExecutors() {
		return new EngineExecutors() {

			@Override
			public ScheduledExecutorService watchdogTimer() {
				return newExecutor();
			}

			@Override
			public ExecutorService renewer() {
				return newExecutor();
			}

			@Override
			public ScheduledExecutorService monitor() {
				return newExecutor();
			}

			@Override
			public ExecutorService recoveryWorkers() {
				return newExecutor();
			}

			@Override
			public ScheduledExecutorService completionRetries() {
				return newExecutor();
			}

			@Override
			public ExecutorService ledgerWriter(int queueCapacity, Runnable whenFull) {
				return newExecutor();
			}

			@Override
			public ScheduledExecutorService settling() {
				return newExecutor();
			}

		};
	}

	/**
	 * Return a sleeper whose pauses {@link #advance(Duration) advance} this scheduler
	 * instead of sleeping: the engine's shutdown waits then run in virtual time.
	 * @return the sleeper
	 */
	public Sleeper sleeper() {
		return (millis) -> advance(Duration.ofMillis(millis));
	}

	private @Nullable Task<?> nextDueBy(long until) {
		return nextDueBy(until, (task) -> true);
	}

	private synchronized @Nullable Task<?> nextDueBy(long until, Predicate<Task<?>> which) {
		Task<?> next = this.queue.stream()
			.filter(which)
			.min(Comparator.<Task<?>>comparingLong((task) -> task.dueAt - until).thenComparingLong((task) -> task.seq))
			.orElse(null);
		if (next == null || next.dueAt - until > 0) {
			return null;
		}
		this.queue.remove(next);
		return next;
	}

	private synchronized boolean hasQueued(Pool pool) {
		return this.queue.stream().anyMatch((task) -> task.pool == pool);
	}

	private synchronized <T> Task<T> enqueue(Task<T> task) {
		if (task.pool.shutdown) {
			throw new RejectedExecutionException("shut down");
		}
		this.queue.add(task);
		return task;
	}

	private synchronized void requeue(Task<?> task) {
		if (!task.pool.shutdown) {
			this.queue.add(task);
		}
	}

	private synchronized void remove(Task<?> task) {
		this.queue.remove(task);
	}

	private synchronized void shutdownNow(Pool pool) {
		pool.shutdown = true;
		this.queue.removeIf((task) -> task.pool == pool);
	}

	/**
	 * One pool: its own shutdown state, the scheduler's queue and time.
	 */
	private final class Pool extends AbstractExecutorService implements ScheduledExecutorService {

		private volatile boolean shutdown;

		@Override
		public void execute(Runnable command) {
			enqueue(new Task<>(this, Executors.callable(command), DeterministicScheduler.this.clock.nanoTime(), 0));
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
			return enqueue(new Task<>(this, Executors.callable(command), dueIn(delay, unit), 0));
		}

		@Override
		public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
			return enqueue(new Task<>(this, callable, dueIn(delay, unit), 0));
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
			// a fixed rate and a fixed delay are the same when tasks take no time
			return scheduleWithFixedDelay(command, initialDelay, period, unit);
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
				TimeUnit unit) {
			return enqueue(
					new Task<>(this, Executors.callable(command), dueIn(initialDelay, unit), unit.toNanos(delay)));
		}

		private long dueIn(long delay, TimeUnit unit) {
			return DeterministicScheduler.this.clock.nanoTime() + Math.max(0, unit.toNanos(delay));
		}

		@Override
		public void shutdown() {
			this.shutdown = true;
		}

		@Override
		public List<Runnable> shutdownNow() {
			DeterministicScheduler.this.shutdownNow(this);
			return List.of();
		}

		@Override
		public boolean isShutdown() {
			return this.shutdown;
		}

		@Override
		public boolean isTerminated() {
			return this.shutdown && !hasQueued(this);
		}

		/**
		 * Run this pool's tasks that fall due within {@code timeout}, moving the clock to
		 * each, as a real pool's threads would finish its queue after a shutdown.
		 */
		@Override
		public boolean awaitTermination(long timeout, TimeUnit unit) {
			long until = DeterministicScheduler.this.clock.nanoTime() + unit.toNanos(timeout);
			Task<?> next;
			while ((next = nextDueBy(until, (task) -> task.pool == this)) != null) {
				long wait = next.dueAt - DeterministicScheduler.this.clock.nanoTime();
				if (wait > 0) {
					DeterministicScheduler.this.clock.advance(Duration.ofNanos(wait));
				}
				next.runOnce();
			}
			return isTerminated();
		}

	}

	private final class Task<V> implements ScheduledFuture<V> {

		private final Pool pool;

		private final Callable<V> callable;

		private final long periodNanos;

		private final long seq = DeterministicScheduler.this.sequence.incrementAndGet();

		private volatile long dueAt;

		private volatile FutureTask<V> current;

		private volatile boolean cancelled;

		Task(Pool pool, Callable<V> callable, long dueAt, long periodNanos) {
			this.pool = pool;
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
			this.dueAt = DeterministicScheduler.this.clock.nanoTime() + this.periodNanos;
			requeue(this);
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.dueAt - DeterministicScheduler.this.clock.nanoTime(), TimeUnit.NANOSECONDS);
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

}
