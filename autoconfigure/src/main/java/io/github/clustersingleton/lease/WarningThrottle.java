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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets one warning of a kind through per interval: a failure that repeats every renewal
 * (a store that stays away) is logged once in a while, with the number of those left out
 * since.
 *
 * @author cluster-singleton contributors
 */
final class WarningThrottle {

	private final Ticker ticker;

	private final long intervalNanos;

	private volatile long lastNanos;

	private final AtomicInteger leftOut = new AtomicInteger();

	/**
	 * Create a throttle whose first warning goes through.
	 * @param ticker the monotonic clock
	 * @param interval the shortest time between two warnings that go through
	 */
	WarningThrottle(Ticker ticker, Duration interval) {
		this.ticker = ticker;
		this.intervalNanos = interval.toNanos();
		this.lastNanos = ticker.nanoTime() - this.intervalNanos;
	}

	/**
	 * Decide whether a warning goes through now.
	 * @return how many warnings were left out since the last one that went through, or
	 * {@code -1} when this one is left out
	 */
	int admit() {
		long now = this.ticker.nanoTime();
		if (now - this.lastNanos >= this.intervalNanos) {
			this.lastNanos = now;
			return this.leftOut.getAndSet(0);
		}
		this.leftOut.incrementAndGet();
		return -1;
	}

}
