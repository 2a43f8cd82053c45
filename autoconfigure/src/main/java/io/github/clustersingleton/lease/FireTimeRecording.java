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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.clustersingleton.lease.ScheduledFireTime.CronSwitch;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * The runs of one triggered task scheduled through {@link ScheduledFireTime}: queues the
 * fire times its trigger returns and hands each run the oldest, with the job's mark on
 * the thread; stops when the task is armed again on another trigger.
 *
 * @author cluster-singleton contributors
 */
final class FireTimeRecording implements Runnable {

	private final Runnable task;

	private final Trigger trigger;

	private final @Nullable String jobName;

	private final @Nullable CronSwitch cronSwitch;

	private final Queue<Instant> fireTimes = new ConcurrentLinkedQueue<>();

	/** The fire times that {@link #nextExecution} deferred, until they run. */
	private final Set<Instant> deferred = ConcurrentHashMap.newKeySet();

	/** The first fire time is the trigger's next after this, when set. */
	private final @Nullable Instant from;

	/** When the task was armed again on another trigger, if it was. */
	private @Nullable Instant retiredAt;

	/** The latest fire time a run of this recording took. */
	private @Nullable Instant lastStarted;

	FireTimeRecording(Runnable task, Trigger trigger, @Nullable String jobName, @Nullable CronSwitch cronSwitch,
			@Nullable Instant from) {
		this.from = from;
		this.task = task;
		this.trigger = trigger;
		this.jobName = jobName;
		this.cronSwitch = cronSwitch;
	}

	/**
	 * Queue the trigger's next fire time for its run, and return when to start that run:
	 * the fire time, or the switch's {@link CronSwitch#deferral} after it for a trigger
	 * the job's switch defers. The trigger computes the time after that from the run's
	 * completion, or its start time if later; a deferred start is still before the job's
	 * next fire time, as only jobs whose next fire time is further than the deferral and
	 * a margin are deferred (2.5 s with routing's defaults, 3 s in leader mode).
	 */
	synchronized @Nullable Instant nextExecution(TriggerContext context) {
		if (this.retiredAt != null) {
			return null;
		}
		Instant from = this.from;
		TriggerContext asked = (from != null && context.lastScheduledExecution() == null
				&& context.lastCompletion() == null)
						? new SimpleTriggerContext(Clock.fixed(from, context.getClock().getZone())) : context;
		Instant next = this.trigger.nextExecution(asked);
		if (next == null) {
			return null;
		}
		this.fireTimes.add(next);
		String jobName = this.jobName;
		CronSwitch cronSwitch = this.cronSwitch;
		if (jobName == null || cronSwitch == null || !cronSwitch.defers(jobName, next)) {
			return next;
		}
		Duration deferral = cronSwitch.deferral();
		if (deferral.isNegative() || deferral.isZero()) {
			return next;
		}
		this.deferred.add(next);
		return next.plus(deferral);
	}

	/**
	 * Stop this recording, its task armed again on another trigger: it asks for no next
	 * fire time from now on, and a run that takes a fire time after {@code now} from now
	 * on does nothing (the old trigger's times still to come are dropped).
	 * @param now the scheduler's time
	 * @return whether the old trigger's next run must still start, and after when the new
	 * trigger's first fire time must be
	 */
	synchronized Retirement retire(Instant now) {
		this.retiredAt = now;
		// a fire time that is due still runs, its task deciding as without the deferral
		this.deferred.clear();
		Instant last = null;
		for (Instant fireTime : this.fireTimes) {
			last = fireTime;
			String jobName = this.jobName;
			CronSwitch cronSwitch = this.cronSwitch;
			if (fireTime.isAfter(now) && jobName != null && cronSwitch != null) {
				cronSwitch.dropped(jobName, fireTime);
			}
		}
		// after now, every fire time a run of this recording took, and the moment
		// after
		// which its own first fire time was (it may have run none yet)
		Instant from = latest(latest(now, this.lastStarted), this.from);
		return new Retirement(last != null && !last.isAfter(now), from);
	}

	private static Instant latest(Instant instant, @Nullable Instant other) {
		return (other != null && other.isAfter(instant)) ? other : instant;
	}

	@Override
	public void run() {
		Instant fireTime;
		synchronized (this) {
			fireTime = this.fireTimes.poll();
			Instant retiredAt = this.retiredAt;
			if (retiredAt != null && fireTime != null && fireTime.isAfter(retiredAt)) {
				return;
			}
			if (fireTime != null && (this.lastStarted == null || fireTime.isAfter(this.lastStarted))) {
				this.lastStarted = fireTime;
			}
		}
		if (fireTime != null && this.deferred.remove(fireTime) && skippedHere(fireTime)) {
			return;
		}
		runAt(fireTime);
	}

	/**
	 * Skip the trigger of a deferred fire time, without running the task, if the switch
	 * leaves it to another node as it comes.
	 */
	private boolean skippedHere(Instant fireTime) {
		String jobName = this.jobName;
		CronSwitch cronSwitch = this.cronSwitch;
		return jobName != null && cronSwitch != null && cronSwitch.skip(jobName, fireTime);
	}

	/**
	 * What a recording's retirement tells the task's next arming.
	 *
	 * @param due whether every fire time queued for a run had come: the next run the
	 * scheduler starts for the old trigger is for one of them, and must still start
	 * @param from the moment after which the new trigger's first fire time must be: the
	 * retirement's, or the latest fire time a run of the old trigger took if later (the
	 * clock was stepped back)
	 */
	record Retirement(boolean due, Instant from) {

	}

	/**
	 * Run the task for a fire time, with the job's mark on the thread.
	 */
	private void runAt(@Nullable Instant fireTime) {
		Instant previous = ScheduledFireTime.FIRE_TIME.get();
		String previousJob = ScheduledFireTime.TRIGGERED_JOB.get();
		ScheduledFireTime.FIRE_TIME.set(fireTime);
		ScheduledFireTime.set(ScheduledFireTime.TRIGGERED_JOB, this.jobName);
		try {
			this.task.run();
		}
		finally {
			ScheduledFireTime.set(ScheduledFireTime.FIRE_TIME, previous);
			ScheduledFireTime.set(ScheduledFireTime.TRIGGERED_JOB, previousJob);
		}
	}

	@Override
	public String toString() {
		return this.task.toString();
	}

}
