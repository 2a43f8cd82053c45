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

/**
 * A {@link Ticker} that moves only when a test moves it. It starts far from zero, so that
 * code which subtracts readings meets the same arithmetic as on a real clock.
 *
 * @author cluster-singleton contributors
 */
final class ManualTicker implements Ticker {

	private volatile long now = 1_000_000_000_000L;

	@Override
	public long nanoTime() {
		return this.now;
	}

	void advance(Duration duration) {
		this.now += duration.toNanos();
	}

}
