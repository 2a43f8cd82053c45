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
import java.util.Optional;

import io.github.clustersingleton.StoreClockObserver;

/**
 * The offset of this node's clock from the store's, as last measured: this node's wall
 * clock (the injected {@link Clock}) minus the store's time, read when a round trip that
 * carried the store's time returns. The reading is late by the time the answer took to
 * travel back, so the offset is exact to within one round trip.
 *
 * @author cluster-singleton contributors
 */
final class StoreClock implements StoreClockObserver {

	private final Clock clock;

	private volatile long offsetNanos;

	private volatile boolean measured;

	StoreClock(Clock clock) {
		this.clock = clock;
	}

	@Override
	public void storeTimeObserved(Instant storeTime) {
		try {
			this.offsetNanos = Duration.between(storeTime, this.clock.instant()).toNanos();
			this.measured = true;
		}
		catch (ArithmeticException ex) {
			// an offset of centuries is not a reading worth keeping
		}
	}

	/**
	 * Return the last measured offset.
	 * @return this node's clock minus the store's, or empty before the first reading
	 */
	Optional<Duration> offset() {
		return this.measured ? Optional.of(Duration.ofNanos(this.offsetNanos)) : Optional.empty();
	}

}
