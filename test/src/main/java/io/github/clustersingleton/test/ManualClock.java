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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import io.github.clustersingleton.lease.Ticker;

import org.springframework.util.Assert;

/**
 * A clock moved by hand, for tests in virtual time: a wall {@link Clock} and a monotonic
 * {@link Ticker} that {@link #advance(Duration) advance} together, so that an engine's
 * deadlines (measured on the ticker) and the store's expiry (judged on the wall clock)
 * agree to the nanosecond. Time never moves by itself and never backwards.
 * <p>
 * For a node whose clock is skewed from the store's, use
 * {@link Clock#offset(Clock, Duration) Clock.offset(manualClock, skew)}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 * @see DeterministicScheduler
 * @see ManualClusterSingletonEngine
 */
public final class ManualClock extends Clock implements Ticker {

	private final Time time;

	private final ZoneId zone;

	/**
	 * Create a clock that starts at {@code 2026-01-01T00:00:00Z}.
	 */
	public ManualClock() {
		this(Instant.parse("2026-01-01T00:00:00Z"));
	}

	/**
	 * Create a clock that starts at {@code start}, in UTC.
	 * @param start the wall time to start at
	 */
	public ManualClock(Instant start) {
		this(new Time(start), ZoneOffset.UTC);
		Assert.notNull(start, "'start' must not be null");
	}

	private ManualClock(Time time, ZoneId zone) {
		this.time = time;
		this.zone = zone;
	}

	/**
	 * Move wall time and the ticker forward together.
	 * @param duration how far to move, not negative
	 */
	public void advance(Duration duration) {
		Assert.isTrue(duration != null && !duration.isNegative(), "'duration' must not be negative");
		this.time.advance(duration);
	}

	@Override
	public Instant instant() {
		return this.time.instant;
	}

	@Override
	public long nanoTime() {
		return this.time.nanos;
	}

	@Override
	public ZoneId getZone() {
		return this.zone;
	}

	/**
	 * Return a view of this clock in another zone: it moves with this clock.
	 * @param zone the zone
	 * @return the view
	 */
	@Override
	public ManualClock withZone(ZoneId zone) {
		return new ManualClock(this.time, zone);
	}

	@Override
	public String toString() {
		return "ManualClock[" + instant() + "]";
	}

	/**
	 * The time a clock and its zone views share.
	 */
	private static final class Time {

		private volatile Instant instant;

		// an arbitrary origin far from zero, as System.nanoTime() has
		private volatile long nanos = 1_000_000_000_000L;

		Time(Instant instant) {
			this.instant = instant;
		}

		synchronized void advance(Duration duration) {
			this.nanos += duration.toNanos();
			this.instant = this.instant.plus(duration);
		}

	}

}
