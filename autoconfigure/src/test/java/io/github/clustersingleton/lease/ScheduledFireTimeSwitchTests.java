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
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.scheduling.support.PeriodicTrigger;
import org.springframework.scheduling.support.SimpleTriggerContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ScheduledFireTime} with a {@link ScheduledFireTime.CronSwitch}: the cron task of
 * a guarded job follows the job's override, and a change re-arms it at once.
 *
 * @author cluster-singleton contributors
 */
class ScheduledFireTimeSwitchTests {

	private static final Instant NOW = Instant.parse("2026-05-01T10:01:00Z");

	private final RecordingScheduler scheduler = new RecordingScheduler();

	private final AtomicReference<@Nullable Trigger> override = new AtomicReference<>();

	private final List<Consumer<String>> listeners = new ArrayList<>();

	private volatile boolean deferred;

	/** The switch's deferral, not the decorator's own default. */
	private static final Duration DEFERRAL = Duration.ofMillis(200);

	private final ScheduledFireTime fireTime = new ScheduledFireTime(this.scheduler,
			new ScheduledFireTime.CronSwitch() {

				@Override
				public @Nullable String jobOf(Runnable task, Trigger trigger) {
					return (trigger instanceof CronTrigger) ? "report" : null;
				}

				@Override
				public @Nullable Trigger triggerOf(String jobName) {
					return ScheduledFireTimeSwitchTests.this.override.get();
				}

				@Override
				public void addListener(Consumer<String> listener) {
					ScheduledFireTimeSwitchTests.this.listeners.add(listener);
				}

				@Override
				public boolean defers(String jobName, Instant fireTime) {
					return ScheduledFireTimeSwitchTests.this.deferred;
				}

				@Override
				public Duration deferral() {
					return DEFERRAL;
				}

				@Override
				public boolean skip(String jobName, Instant fireTime) {
					ScheduledFireTimeSwitchTests.this.asked.add(jobName + "@" + fireTime);
					return ScheduledFireTimeSwitchTests.this.skipped;
				}

				@Override
				public void dropped(String jobName, Instant fireTime) {
					ScheduledFireTimeSwitchTests.this.dropped.add(jobName + "@" + fireTime);
				}

			});

	private final List<String> dropped = new ArrayList<>();

	private volatile boolean skipped;

	/** The fire times the switch was asked whether it leaves them to another node. */
	private final List<String> asked = new ArrayList<>();

	@Test
	void aDeferredTriggerLeftToAnotherNodeDoesNotRunItsTaskAndAnOwnOneIsNotAsked() {
		List<@Nullable Instant> ran = new ArrayList<>();
		this.fireTime.schedule(() -> ran.add(ScheduledFireTime.current()),
				new CronTrigger("0 0 3 * * *", ZoneOffset.UTC));
		Instant fire = Instant.parse("2026-05-02T03:00:00Z");
		this.deferred = true;
		this.skipped = true;
		assertThat(next(0)).isEqualTo(fire.plus(DEFERRAL));
		this.scheduler.scheduled.get(0).task().run();
		assertThat(this.asked).containsExactly("report@" + fire);
		assertThat(ran).as("left to another node").isEmpty();
		// deferred, but this node finds it is the one to claim after all
		this.skipped = false;
		assertThat(next(0)).isEqualTo(fire.plus(DEFERRAL));
		this.scheduler.scheduled.get(0).task().run();
		assertThat(ran).containsExactly(fire);
		// not deferred: the task decides, the switch is not asked
		this.deferred = false;
		this.skipped = true;
		assertThat(next(0)).isEqualTo(fire);
		this.scheduler.scheduled.get(0).task().run();
		assertThat(ran).containsExactly(fire, fire);
		assertThat(this.asked).hasSize(2);
	}

	@Test
	void cronTaskFollowsTheOverrideFromItsChangeOnAndClearingRestoresItsOwnTrigger() {
		List<@Nullable Instant> ran = new ArrayList<>();
		ScheduledFuture<?> future = this.fireTime.schedule(() -> ran.add(ScheduledFireTime.current()),
				new CronTrigger("0 0 3 * * *", ZoneOffset.UTC));
		assertThat(this.scheduler.scheduled).hasSize(1);
		assertThat(next(0)).isEqualTo(Instant.parse("2026-05-02T03:00:00Z"));
		this.override.set(new CronTrigger("0 0/5 * * * *", ZoneOffset.UTC));
		this.listeners.forEach((listener) -> listener.accept("report"));
		// the waiting fire time is dropped, the switch told, and the task armed again on
		// the override
		assertThat(this.scheduler.futures.get(0).isCancelled()).isTrue();
		assertThat(this.dropped).containsExactly("report@2026-05-02T03:00:00Z");
		assertThat(this.scheduler.scheduled).hasSize(2);
		assertThat(next(1)).isEqualTo(Instant.parse("2026-05-01T10:05:00Z"));
		this.scheduler.scheduled.get(1).task().run();
		assertThat(ran).containsExactly(Instant.parse("2026-05-01T10:05:00Z"));
		this.override.set(null);
		this.listeners.forEach((listener) -> listener.accept("report"));
		assertThat(this.scheduler.futures.get(1).isCancelled()).isTrue();
		assertThat(next(2)).isEqualTo(Instant.parse("2026-05-02T03:00:00Z"));
		// cancelled by its owner (the application shuts down): never armed again
		assertThat(future.cancel(false)).isTrue();
		assertThat(this.scheduler.futures.get(2).isCancelled()).isTrue();
		this.listeners.forEach((listener) -> listener.accept("report"));
		assertThat(this.scheduler.scheduled).hasSize(3);
		assertThat(future.isCancelled()).isTrue();
	}

	@Test
	void aDeferredTriggerStartsAMomentLateWithItsOwnFireTime() {
		List<@Nullable Instant> ran = new ArrayList<>();
		this.fireTime.schedule(() -> ran.add(ScheduledFireTime.current()),
				new CronTrigger("0 0 3 * * *", ZoneOffset.UTC));
		this.deferred = true;
		Instant fire = Instant.parse("2026-05-02T03:00:00Z");
		assertThat(next(0)).isEqualTo(fire.plus(DEFERRAL));
		this.deferred = false;
		// the trigger's next fire time after the deferred start is the next day's
		assertThat(this.scheduler.scheduled.get(0)
			.trigger()
			.nextExecution(new SimpleTriggerContext(fire.plus(DEFERRAL), fire.plus(DEFERRAL).plusMillis(2),
					fire.plus(DEFERRAL).plusMillis(3))))
			.isEqualTo(fire.plus(Duration.ofDays(1)));
		this.scheduler.scheduled.get(0).task().run();
		this.scheduler.scheduled.get(0).task().run();
		assertThat(ran).containsExactly(fire, fire.plus(Duration.ofDays(1)));
	}

	@Test
	void aRearmKeepsTheRunOfAFireTimeThatHasComeAndStartsTheNewTriggerRightAfterIt() {
		List<@Nullable Instant> ran = new ArrayList<>();
		List<Boolean> marked = new ArrayList<>();
		ScheduledFuture<?> future = this.fireTime.schedule(() -> {
			ran.add(ScheduledFireTime.current());
			marked.add(ScheduledFireTime.takeTriggerOf("report"));
		}, new CronTrigger("0 0 3 * * *", ZoneOffset.UTC));
		this.deferred = true;
		Instant fire = Instant.parse("2026-05-02T03:00:00Z");
		assertThat(next(0)).isEqualTo(fire.plus(DEFERRAL));
		this.deferred = false;
		// the override comes after the fire time, before the deferred start
		Instant rearmed = fire.plusMillis(50);
		this.scheduler.clock = Clock.fixed(rearmed, ZoneOffset.UTC);
		this.override.set(new CronTrigger("0 30 3 * * *", ZoneOffset.UTC));
		this.listeners.forEach((listener) -> listener.accept("report"));
		// the old trigger's run for the fire time that has come still starts, once
		assertThat(this.scheduler.futures.get(0).isCancelled()).isFalse();
		this.scheduler.scheduled.get(0).task().run();
		assertThat(ran).containsExactly(fire);
		assertThat(marked).containsExactly(true);
		assertThat(this.scheduler.scheduled.get(0).trigger().nextExecution(new SimpleTriggerContext())).isNull();
		// the new trigger's first fire time is its next after the moment of the rearm,
		// whenever the scheduler asks
		assertThat(next(1)).isEqualTo(Instant.parse("2026-05-02T03:30:00Z"));
		// a fire time still to come is dropped with its trigger, as before
		this.override.set(new CronTrigger("0 0/10 3 * * *", ZoneOffset.UTC));
		this.listeners.forEach((listener) -> listener.accept("report"));
		assertThat(this.scheduler.futures.get(1).isCancelled()).isTrue();
		assertThat(next(2)).isEqualTo(Instant.parse("2026-05-02T03:10:00Z"));
		// the application cancels the task: the kept run too
		future.cancel(false);
		assertThat(this.scheduler.futures).allMatch(RecordedFuture::isCancelled);
	}

	@Test
	void aRearmAfterTheClockSteppedBackRunsNoFireTimeTwiceAndDropsTheOldTriggersTimesToCome() {
		List<@Nullable Instant> ran = new ArrayList<>();
		this.fireTime.schedule(() -> ran.add(ScheduledFireTime.current()),
				new CronTrigger("0 0 3 * * *", ZoneOffset.UTC));
		Instant fire = Instant.parse("2026-05-02T03:00:00Z");
		assertThat(next(0)).isEqualTo(fire);
		this.scheduler.scheduled.get(0).task().run();
		assertThat(ran).containsExactly(fire);
		// the override, to the same expression, comes while the clock reads a little
		// before the fire time that ran
		this.scheduler.clock = Clock.fixed(fire.minusMillis(5), ZoneOffset.UTC);
		this.override.set(new CronTrigger("0 0 3 * * *", ZoneOffset.UTC));
		this.listeners.forEach((listener) -> listener.accept("report"));
		assertThat(this.scheduler.futures.get(0).isCancelled()).isTrue();
		assertThat(next(1)).as("the new trigger's first fire time").isEqualTo(fire.plus(Duration.ofDays(1)));
		// a run of the new trigger queued its fire time; the override changes again
		// before it comes, and the old trigger's run, had it started anyway, does nothing
		this.listeners.forEach((listener) -> listener.accept("report"));
		this.scheduler.scheduled.get(1).task().run();
		assertThat(ran).containsExactly(fire);
		// two overrides in a row, the clock stepped back in between, before the trigger
		// between them computed a fire time: the fire time that ran is still behind
		this.scheduler.clock = Clock.fixed(fire.plusSeconds(1), ZoneOffset.UTC);
		this.listeners.forEach((listener) -> listener.accept("report"));
		this.scheduler.clock = Clock.fixed(fire.minusMillis(5), ZoneOffset.UTC);
		this.listeners.forEach((listener) -> listener.accept("report"));
		assertThat(next(4)).isEqualTo(fire.plus(Duration.ofDays(1)));
	}

	@Test
	void otherTasksAreScheduledAsTheyAre() {
		this.fireTime.schedule(() -> {
		}, new PeriodicTrigger(Duration.ofSeconds(5)));
		this.listeners.forEach((listener) -> listener.accept("report"));
		assertThat(this.scheduler.scheduled).hasSize(1);
		assertThat(this.scheduler.futures.get(0).isCancelled()).isFalse();
	}

	@Test
	void aGuardedJobsTaskMarksItsThreadForTheFirstCallOfTheJobOnly() {
		List<Boolean> taken = new ArrayList<>();
		this.fireTime.schedule(() -> {
			taken.add(ScheduledFireTime.takeTriggerOf("other"));
			taken.add(ScheduledFireTime.takeTriggerOf("report"));
			taken.add(ScheduledFireTime.takeTriggerOf("report"));
		}, new CronTrigger("0 0 3 * * *", ZoneOffset.UTC));
		next(0);
		this.scheduler.scheduled.get(0).task().run();
		assertThat(taken).containsExactly(false, true, false);
		// the mark ends with the task's run, taken or not
		this.fireTime.schedule(() -> {
		}, new CronTrigger("0 0 4 * * *", ZoneOffset.UTC));
		this.scheduler.scheduled.get(1).task().run();
		assertThat(ScheduledFireTime.takeTriggerOf("report")).isFalse();
	}

	@Test
	void otherTasksLeaveNoMark() {
		List<Boolean> taken = new ArrayList<>();
		this.fireTime.schedule(() -> taken.add(ScheduledFireTime.takeTriggerOf("report")),
				new PeriodicTrigger(Duration.ofSeconds(5)));
		this.scheduler.scheduled.get(0).task().run();
		assertThat(taken).containsExactly(false);
	}

	private @Nullable Instant next(int index) {
		return this.scheduler.scheduled.get(index)
			.trigger()
			.nextExecution(new SimpleTriggerContext(Clock.fixed(NOW, ZoneOffset.UTC)));
	}

	record Scheduled(Runnable task, Trigger trigger) {

	}

	static final class RecordingScheduler implements TaskScheduler {

		final List<Scheduled> scheduled = new ArrayList<>();

		final List<RecordedFuture> futures = new ArrayList<>();

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
			this.scheduled.add(new Scheduled(task, trigger));
			RecordedFuture future = new RecordedFuture();
			this.futures.add(future);
			return future;
		}

		volatile Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

		@Override
		public Clock getClock() {
			return this.clock;
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
			throw new UnsupportedOperationException();
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
			throw new UnsupportedOperationException();
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
			throw new UnsupportedOperationException();
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
			throw new UnsupportedOperationException();
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
			throw new UnsupportedOperationException();
		}

	}

	static final class RecordedFuture implements ScheduledFuture<Object> {

		private volatile boolean cancelled;

		@Override
		public long getDelay(TimeUnit unit) {
			return 0;
		}

		@Override
		public int compareTo(Delayed other) {
			return 0;
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			this.cancelled = true;
			return true;
		}

		@Override
		public boolean isCancelled() {
			return this.cancelled;
		}

		@Override
		public boolean isDone() {
			return this.cancelled;
		}

		@Override
		public @Nullable Object get() {
			return null;
		}

		@Override
		public @Nullable Object get(long timeout, TimeUnit unit) {
			return null;
		}

	}

}
