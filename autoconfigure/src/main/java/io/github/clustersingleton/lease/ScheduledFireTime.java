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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.util.Assert;

/**
 * A {@link TaskScheduler} that tells each run of a triggered task (a
 * {@code @Scheduled(cron = ...)} method) the fire time its trigger was scheduled for, so
 * that a run that starts late still claims the slot the scheduler meant. Every call is
 * delegated; only {@link #schedule(Runnable, Trigger)} is decorated.
 * <p>
 * Spring's schedulers ({@code ThreadPoolTaskScheduler}, {@code SimpleAsyncTaskScheduler},
 * {@code ConcurrentTaskScheduler}) ask a trigger for its next fire time, wait for it,
 * start the task, and ask again; each time the trigger returns is followed by exactly one
 * run, in order. The run cannot simply read the last time the trigger returned:
 * {@code SimpleAsyncTaskScheduler} hands the task to a new thread and asks the trigger
 * for the next fire time at once, often before that thread has started. So the fire times
 * are queued as the trigger returns them, and each run takes the oldest.
 *
 * @author cluster-singleton contributors
 * @since 0.2.0
 */
public class ScheduledFireTime implements TaskScheduler {

	private static final ThreadLocal<@Nullable Instant> FIRE_TIME = new ThreadLocal<>();

	private final TaskScheduler delegate;

	/**
	 * Decorate a scheduler.
	 * @param delegate the scheduler that runs the tasks
	 */
	public ScheduledFireTime(TaskScheduler delegate) {
		Assert.notNull(delegate, "'delegate' must not be null");
		this.delegate = delegate;
	}

	/**
	 * Return the fire time of the triggered run on this thread.
	 * @return the fire time the trigger meant, or {@code null} outside a triggered run of
	 * a decorated scheduler
	 */
	public static @Nullable Instant current() {
		return FIRE_TIME.get();
	}

	/**
	 * Return the scheduler this one decorates.
	 * @return the delegate
	 */
	public TaskScheduler getDelegate() {
		return this.delegate;
	}

	@Override
	public Clock getClock() {
		return this.delegate.getClock();
	}

	@Override
	public @Nullable ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
		Recording recording = new Recording(task, trigger);
		return this.delegate.schedule(recording, recording::nextExecution);
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
		return this.delegate.schedule(task, startTime);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
		return this.delegate.scheduleAtFixedRate(task, startTime, period);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
		return this.delegate.scheduleAtFixedRate(task, period);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
		return this.delegate.scheduleWithFixedDelay(task, startTime, delay);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
		return this.delegate.scheduleWithFixedDelay(task, delay);
	}

	@Override
	public String toString() {
		return "ScheduledFireTime[" + this.delegate + "]";
	}

	private static final class Recording implements Runnable {

		private final Runnable task;

		private final Trigger trigger;

		private final Queue<Instant> fireTimes = new ConcurrentLinkedQueue<>();

		Recording(Runnable task, Trigger trigger) {
			this.task = task;
			this.trigger = trigger;
		}

		@Nullable Instant nextExecution(TriggerContext context) {
			Instant next = this.trigger.nextExecution(context);
			if (next != null) {
				this.fireTimes.add(next);
			}
			return next;
		}

		@Override
		public void run() {
			Instant previous = FIRE_TIME.get();
			FIRE_TIME.set(this.fireTimes.poll());
			try {
				this.task.run();
			}
			finally {
				if (previous != null) {
					FIRE_TIME.set(previous);
				}
				else {
					FIRE_TIME.remove();
				}
			}
		}

		@Override
		public String toString() {
			return this.task.toString();
		}

	}

}
