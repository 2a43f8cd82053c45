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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
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
 * <p>
 * A run of a guarded job's task (one the {@link CronSwitch} names) also marks its thread
 * with the job's name, which the job's interceptor {@link #takeTriggerOf takes}: that
 * tells the scheduler's own call of the method from a call by application code without
 * walking the stack at every trigger.
 * <p>
 * A guarded job's trigger that this node will leave to another node (its preferred node
 * for the slot, or the leader in leader mode: {@link CronSwitch#defers}) is started
 * {@link CronSwitch#deferral} after its fire time, with the same fire time as its slot:
 * when many jobs fire at one instant, the scheduler runs the triggers whose claims start
 * runs here first, and the ones it will skip after them, once the claims of the instant
 * across the cluster are mostly done. Spring's list of scheduled tasks shows such a
 * trigger's next execution that much later.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ScheduledFireTime implements TaskScheduler {

	/**
	 * How much later than its fire time a deferred trigger starts when the switch does
	 * not say ({@link CronSwitch#deferral}): enough to put it behind the triggers of its
	 * instant (schedulers start tasks in the order of their start times, which they turn
	 * into deadlines on the monotonic clock when they schedule them, a period earlier, so
	 * a thread preempted in between may shift one by a little).
	 */
	static final Duration DEFERRAL = Duration.ofMillis(10);

	static final ThreadLocal<@Nullable Instant> FIRE_TIME = new ThreadLocal<>();

	static final ThreadLocal<@Nullable String> TRIGGERED_JOB = new ThreadLocal<>();

	private final TaskScheduler delegate;

	private final @Nullable CronSwitch cronSwitch;

	private final Map<String, List<SwitchableTask>> switchable = new ConcurrentHashMap<>();

	/**
	 * Decorate a scheduler.
	 * @param delegate the scheduler that runs the tasks
	 */
	public ScheduledFireTime(TaskScheduler delegate) {
		this(delegate, null);
	}

	/**
	 * Decorate a scheduler whose triggered tasks of guarded jobs follow the jobs' cron
	 * overrides: such a task's trigger asks {@code cronSwitch} for the job's trigger at
	 * every fire time, and a change of the override re-arms the task at once: a waiting
	 * fire time that has come still runs, one still to come is dropped, and the next one
	 * is the new trigger's first after the change and after every fire time that ran.
	 * @param delegate the scheduler that runs the tasks
	 * @param cronSwitch tells the job of a task and the trigger it follows now, or
	 * {@code null}
	 * @since 0.1.0
	 */
	public ScheduledFireTime(TaskScheduler delegate, @Nullable CronSwitch cronSwitch) {
		Assert.notNull(delegate, "'delegate' must not be null");
		this.delegate = delegate;
		this.cronSwitch = cronSwitch;
		if (cronSwitch != null) {
			cronSwitch.addListener(this::rearm);
		}
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
	 * Take the mark of a guarded job's trigger on this thread: whether this thread is
	 * running the task of {@code jobName}'s cron trigger and nothing took the mark yet.
	 * The first call of the job's method in its task is the scheduler's own; any later
	 * one (the job calling itself, say) finds no mark.
	 * @param jobName the job whose method is being called
	 * @return {@code true} once per run of the job's triggered task, to the first caller
	 * @since 0.1.0
	 */
	public static boolean takeTriggerOf(String jobName) {
		if (jobName.equals(TRIGGERED_JOB.get())) {
			TRIGGERED_JOB.remove();
			return true;
		}
		return false;
	}

	/**
	 * Run a task as a decorated scheduler runs a cron trigger: with {@link #current()}
	 * returning {@code fireTime} on this thread while it runs. For code that fires cron
	 * triggers itself (a benchmark, a test).
	 * @param fireTime the fire time the trigger was scheduled for
	 * @param task the trigger's task
	 * @since 0.1.0
	 */
	public static void runAt(Instant fireTime, Runnable task) {
		Instant previous = FIRE_TIME.get();
		FIRE_TIME.set(fireTime);
		try {
			task.run();
		}
		finally {
			set(FIRE_TIME, previous);
		}
	}

	static <T> void set(ThreadLocal<@Nullable T> local, @Nullable T value) {
		if (value != null) {
			local.set(value);
		}
		else {
			local.remove();
		}
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
		CronSwitch cronSwitch = this.cronSwitch;
		String jobName = (cronSwitch != null) ? cronSwitch.jobOf(task, trigger) : null;
		if (cronSwitch == null || jobName == null) {
			FireTimeRecording recording = new FireTimeRecording(task, trigger, null, null, null);
			return this.delegate.schedule(recording, recording::nextExecution);
		}
		SwitchableTask switchable = new SwitchableTask(task, jobName, (context) -> {
			Trigger current = cronSwitch.triggerOf(jobName);
			return ((current != null) ? current : trigger).nextExecution(context);
		});
		this.switchable.computeIfAbsent(jobName, (name) -> new CopyOnWriteArrayList<>()).add(switchable);
		switchable.arm();
		return switchable;
	}

	private void rearm(String jobName) {
		List<SwitchableTask> tasks = this.switchable.get(jobName);
		if (tasks != null) {
			tasks.forEach(SwitchableTask::rearm);
		}
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

	/**
	 * Tells which guarded job a triggered task runs and which trigger that job follows
	 * now.
	 */
	public interface CronSwitch {

		/**
		 * Return the job a triggered task runs, when its schedule can be switched.
		 * @param task the task as the scheduler receives it
		 * @param trigger the task's own trigger
		 * @return the job's name, or {@code null} to schedule the task as it is
		 */
		@Nullable String jobOf(Runnable task, Trigger trigger);

		/**
		 * Return the trigger a job follows now instead of its task's own.
		 * @param jobName the job
		 * @return the trigger, or {@code null} for the task's own
		 */
		@Nullable Trigger triggerOf(String jobName);

		/**
		 * Call a listener with a job's name whenever the trigger it follows changes.
		 * @param listener the listener
		 */
		void addListener(Consumer<String> listener);

		/**
		 * Return whether a job's trigger for a fire time may start after the other
		 * triggers of that instant: this node expects to leave it to another node.
		 * @param jobName the job
		 * @param fireTime the fire time the trigger returned
		 * @return whether to start the trigger {@link #deferral()} late, with the same
		 * fire time
		 */
		default boolean defers(String jobName, Instant fireTime) {
			return false;
		}

		/**
		 * Return how long after its fire time a trigger that {@link #defers} starts: less
		 * than the time after which the other nodes look whether its slot was claimed,
		 * which a deferred trigger that finds its node preferred after all (the view of
		 * the live nodes changed) must not miss by much.
		 * @return the deferral; zero or less defers nothing
		 * @since 0.1.0
		 */
		default Duration deferral() {
			return DEFERRAL;
		}

		/**
		 * Skip a trigger deferred by {@link #defers} as it comes if this node leaves it
		 * to another node, doing what the job's guard does for such a skip, so that the
		 * job's task is not run at all: the job's method, its proxy and the scheduler's
		 * observation are left out along with the claim. The default skips nothing and
		 * leaves every trigger to the task.
		 * @param jobName the job
		 * @param fireTime the fire time
		 * @return whether the trigger was skipped, without running the task
		 * @since 0.1.0
		 */
		default boolean skip(String jobName, Instant fireTime) {
			return false;
		}

		/**
		 * Hear that a fire time a job's trigger returned will not run: the task was armed
		 * again on another trigger before it came.
		 * @param jobName the job
		 * @param fireTime the fire time
		 * @since 0.1.0
		 */
		default void dropped(String jobName, Instant fireTime) {
		}

	}

	/**
	 * A triggered task that can be scheduled again with a fresh fire-time queue: the
	 * future the scheduler's caller holds.
	 */
	private final class SwitchableTask implements ScheduledFuture<Object> {

		private final Runnable task;

		private final String jobName;

		private final Trigger trigger;

		private @Nullable ScheduledFuture<?> current;

		private @Nullable FireTimeRecording recording;

		/**
		 * Futures of earlier triggers kept for a fire time that had come when the task
		 * was armed again: cancelled with the task.
		 */
		private final List<ScheduledFuture<?>> retiring = new ArrayList<>();

		private boolean cancelled;

		SwitchableTask(Runnable task, String jobName, Trigger trigger) {
			this.task = task;
			this.jobName = jobName;
			this.trigger = trigger;
		}

		synchronized void arm() {
			arm(null);
		}

		/**
		 * Schedule the task on a new recording, whose first fire time is the trigger's
		 * next after {@code from} (by default, after the scheduler's time when it asks).
		 */
		private void arm(@Nullable Instant from) {
			if (this.cancelled) {
				return;
			}
			FireTimeRecording recording = new FireTimeRecording(this.task, this.trigger, this.jobName,
					ScheduledFireTime.this.cronSwitch, from);
			ScheduledFuture<?> scheduled = ScheduledFireTime.this.delegate.schedule(recording,
					recording::nextExecution);
			this.recording = recording;
			this.current = scheduled;
		}

		synchronized void rearm() {
			ScheduledFuture<?> current = this.current;
			if (this.cancelled || (current != null && current.isCancelled())) {
				return;
			}
			Instant now = ScheduledFireTime.this.delegate.getClock().instant();
			FireTimeRecording previous = this.recording;
			FireTimeRecording.Retirement retirement = (previous != null) ? previous.retire(now)
					: new FireTimeRecording.Retirement(false, now);
			if (current != null) {
				if (retirement.due()) {
					// the old trigger's next run is for a fire time that has come (its
					// thread is busy, or the trigger was deferred): it still runs, and
					// the
					// old trigger asks for no fire time after it
					this.retiring.removeIf(ScheduledFuture::isDone);
					this.retiring.add(current);
				}
				else {
					// a run under way ends normally; only its next fire time is dropped
					current.cancel(false);
				}
			}
			// the new trigger's first fire time is its next after now and after every
			// fire
			// time the old one started, so that none runs twice and none falls between
			// the two
			arm(retirement.from());
		}

		private synchronized @Nullable ScheduledFuture<?> current() {
			return this.current;
		}

		@Override
		public synchronized boolean cancel(boolean mayInterruptIfRunning) {
			this.cancelled = true;
			this.retiring.forEach((retired) -> retired.cancel(mayInterruptIfRunning));
			this.retiring.clear();
			ScheduledFuture<?> current = this.current;
			return current == null || current.cancel(mayInterruptIfRunning);
		}

		@Override
		public synchronized boolean isCancelled() {
			return this.cancelled;
		}

		@Override
		public boolean isDone() {
			ScheduledFuture<?> current = current();
			return isCancelled() || current == null || current.isDone();
		}

		@Override
		public @Nullable Object get() throws InterruptedException, ExecutionException {
			ScheduledFuture<?> current = current();
			return (current != null) ? current.get() : null;
		}

		@Override
		public @Nullable Object get(long timeout, TimeUnit unit)
				throws InterruptedException, ExecutionException, TimeoutException {
			ScheduledFuture<?> current = current();
			return (current != null) ? current.get(timeout, unit) : null;
		}

		@Override
		public long getDelay(TimeUnit unit) {
			ScheduledFuture<?> current = current();
			return (current != null) ? current.getDelay(unit) : Long.MAX_VALUE;
		}

		@Override
		public int compareTo(Delayed other) {
			return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
		}

		@Override
		public String toString() {
			return this.task.toString();
		}

	}

}
