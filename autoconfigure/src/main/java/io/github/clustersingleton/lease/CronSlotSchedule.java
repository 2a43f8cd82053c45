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
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.Assert;

/**
 * The cron expressions of a job (usually one) and how a trigger maps to a slot: one fire
 * time of the union of the expressions, each evaluated in its zone.
 * <p>
 * With {@code p} the latest fire time at or before now and {@code n} the next one after
 * now, the slot is {@code n} when {@code n - now} is within the tolerance and within half
 * of {@code n - p}, so a trigger that fires a few milliseconds early still gets its own
 * slot and a one-second cron never borrows the next one; otherwise it is {@code p}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class CronSlotSchedule {

	/**
	 * Longest look-back when searching the previous fire time: longer than four years, so
	 * a February 29th expression still finds its previous fire time.
	 */
	private static final long MAX_LOOK_BACK_SECONDS = 1L << 27;

	/**
	 * How many fire times {@link #slotsBetween} walks at most (a week of a job that fires
	 * every second, in well under a second).
	 */
	private static final long MAX_SLOTS_SCANNED = 1_000_000;

	/**
	 * The parsed expressions, shared by the schedules of the same expression in the same
	 * zone: when many jobs fire at one instant, the next fire time after it, which every
	 * trigger routed to another node asks for, is computed once for all of them.
	 */
	private static final Map<CronKey, Cron> CRONS = new ConcurrentHashMap<>();

	private final List<Cron> crons;

	private CronSlotSchedule(List<Cron> crons) {
		Assert.notEmpty(crons, "'crons' must not be empty");
		this.crons = List.copyOf(crons);
	}

	/**
	 * Create a schedule of one cron expression.
	 * @param expression the cron expression, as {@code @Scheduled(cron)} takes it
	 * @param zone the zone the expression is evaluated in
	 * @return the schedule
	 * @throws IllegalArgumentException when the expression is invalid
	 */
	public static CronSlotSchedule of(String expression, ZoneId zone) {
		CronKey key = new CronKey(expression, zone);
		Cron cron = CRONS.get(key);
		if (cron == null) {
			// parse outside the map: an invalid expression throws and is not kept
			Cron parsed = new Cron(expression, CronExpression.parse(expression), zone);
			cron = CRONS.computeIfAbsent(key, (absent) -> parsed);
		}
		return new CronSlotSchedule(List.of(cron));
	}

	/**
	 * Create a schedule that is the union of several cron schedules.
	 * @param schedules the schedules to combine
	 * @return the schedule
	 */
	public static CronSlotSchedule union(List<CronSlotSchedule> schedules) {
		return new CronSlotSchedule(schedules.stream().flatMap((schedule) -> schedule.crons.stream()).toList());
	}

	/**
	 * Return the zone of the first cron expression of this schedule.
	 * @return the zone
	 */
	public ZoneId zone() {
		return this.crons.get(0).zone();
	}

	/**
	 * Return how many cron expressions this schedule combines.
	 * @return the number of expressions
	 */
	public int size() {
		return this.crons.size();
	}

	/**
	 * Return the expressions of this schedule, each with its zone, for display.
	 * @return the expressions
	 */
	public List<String> describe() {
		return this.crons.stream().map((cron) -> cron.expression() + " [" + cron.zone().getId() + "]").toList();
	}

	/**
	 * Return the slot a trigger at {@code now} owns.
	 * @param now the current time
	 * @param tolerance how early a trigger may fire and still own the next fire time
	 * @return the slot, or {@code null} when the expressions never fire
	 */
	public @Nullable Instant slotFor(Instant now, Duration tolerance) {
		Instant previous = null;
		Instant next = null;
		for (Cron cron : this.crons) {
			Instant p = cron.previousOrSame(now);
			Instant n = cron.next(now);
			if (p != null && (previous == null || p.isAfter(previous))) {
				previous = p;
			}
			if (n != null && (next == null || n.isBefore(next))) {
				next = n;
			}
		}
		if (next != null) {
			Duration untilNext = Duration.between(now, next);
			boolean withinTolerance = untilNext.compareTo(tolerance) <= 0;
			boolean withinHalfPeriod = previous == null
					|| untilNext.multipliedBy(2).compareTo(Duration.between(previous, next)) <= 0;
			if (withinTolerance && withinHalfPeriod) {
				return next;
			}
		}
		return previous;
	}

	/**
	 * Return the latest fire time at or before {@code now}.
	 * @param now the time
	 * @return the latest fire time not after {@code now}, or {@code null} when there is
	 * none within the look-back window
	 */
	public @Nullable Instant latestAtOrBefore(Instant now) {
		Instant latest = null;
		for (Cron cron : this.crons) {
			Instant p = cron.previousOrSame(now);
			if (p != null && (latest == null || p.isAfter(latest))) {
				latest = p;
			}
		}
		return latest;
	}

	/**
	 * Return the fire time just before a slot.
	 * @param slot the slot
	 * @return the latest fire time strictly before {@code slot}, or {@code null}
	 */
	public @Nullable Instant previousSlot(Instant slot) {
		return latestAtOrBefore(slot.minusNanos(1));
	}

	/**
	 * Return the fire times strictly between two instants, oldest first, keeping only the
	 * newest {@code limit} of them.
	 * @param after the exclusive lower bound
	 * @param before the exclusive upper bound
	 * @param limit how many of the newest fire times to return at most
	 * @return the fire times and how many there were in all (counting at most a million)
	 */
	public Slots slotsBetween(Instant after, Instant before, int limit) {
		Assert.isTrue(limit >= 0, "'limit' must not be negative");
		Deque<Instant> newest = new ArrayDeque<>();
		long count = 0;
		Instant current = after;
		while (true) {
			Instant next = null;
			for (Cron cron : this.crons) {
				Instant n = cron.next(current);
				if (n != null && (next == null || n.isBefore(next))) {
					next = n;
				}
			}
			if (next == null || !next.isBefore(before) || count >= MAX_SLOTS_SCANNED) {
				break;
			}
			count++;
			newest.addLast(next);
			if (newest.size() > limit) {
				newest.removeFirst();
			}
			current = next;
		}
		return new Slots(List.copyOf(newest), count);
	}

	/**
	 * Return the time between the next two fire times after {@code now}, the shortest
	 * over every cron of the schedule.
	 * @return the period, or {@code null} when the schedule fires fewer than twice more
	 */
	public @Nullable Duration period() {
		Instant now = Instant.now();
		Duration shortest = null;
		for (Cron cron : this.crons) {
			Instant first = cron.next(now);
			Instant second = (first != null) ? cron.next(first) : null;
			if (second != null) {
				Duration period = Duration.between(first, second);
				if (shortest == null || period.compareTo(shortest) < 0) {
					shortest = period;
				}
			}
		}
		return shortest;
	}

	/**
	 * Fire times of a schedule within a window.
	 *
	 * @param newest the newest fire times in the window, oldest first
	 * @param total how many fire times the window holds in all
	 */
	public record Slots(List<Instant> newest, long total) {

		/**
		 * Return how many fire times of the window are not in {@link #newest()}.
		 * @return the number of older fire times left out
		 */
		public long leftOut() {
			return this.total - this.newest.size();
		}

	}

	/**
	 * Return the first fire time after {@code now}, the earliest over every cron
	 * expression of this schedule.
	 * @param now the time
	 * @return the next fire time, or {@code null} when the expressions never fire again
	 */
	public @Nullable Instant next(Instant now) {
		Instant next = null;
		for (Cron cron : this.crons) {
			Instant n = cron.nextRemembered(now);
			if (n != null && (next == null || n.isBefore(next))) {
				next = n;
			}
		}
		return next;
	}

	@Override
	public String toString() {
		return String.join(", ", describe());
	}

	private record CronKey(String expression, ZoneId zone) {
	}

	private static final class Cron {

		private final String expression;

		private final CronExpression parsed;

		private final ZoneId zone;

		/** The last answer of {@link #nextRemembered}, or {@code null}. */
		private volatile @Nullable Next last;

		Cron(String expression, CronExpression parsed, ZoneId zone) {
			this.expression = expression;
			this.parsed = parsed;
			this.zone = zone;
		}

		String expression() {
			return this.expression;
		}

		ZoneId zone() {
			return this.zone;
		}

		@Nullable Instant next(Instant now) {
			ZonedDateTime next = this.parsed.next(now.atZone(this.zone));
			return (next != null) ? next.toInstant() : null;
		}

		/**
		 * {@link #next}, answered from the last call when it asked for the same instant.
		 */
		@Nullable Instant nextRemembered(Instant now) {
			Next last = this.last;
			if (last != null && last.after().equals(now)) {
				return last.next();
			}
			Instant next = next(now);
			this.last = new Next(now, next);
			return next;
		}

		/**
		 * Search backwards in doubling windows: the first window holding a fire time
		 * holds at most about two periods of them, so this costs a few
		 * {@link CronExpression#next} calls whatever the period.
		 */
		@Nullable Instant previousOrSame(Instant now) {
			ZonedDateTime end = now.atZone(this.zone);
			for (long window = 1; window <= MAX_LOOK_BACK_SECONDS; window <<= 1) {
				// next() is strictly after its argument, so start one nanosecond early
				ZonedDateTime candidate = this.parsed.next(end.minusSeconds(window).minusNanos(1));
				if (candidate != null && !candidate.isAfter(end)) {
					ZonedDateTime latest = candidate;
					ZonedDateTime following = this.parsed.next(latest);
					while (following != null && !following.isAfter(end)) {
						latest = following;
						following = this.parsed.next(latest);
					}
					return latest.toInstant();
				}
			}
			return null;
		}

	}

	private record Next(Instant after, @Nullable Instant next) {
	}

}
