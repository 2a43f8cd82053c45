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

package io.github.clustersingleton.redis;

import java.time.Instant;

import io.github.clustersingleton.StoreClockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Tells a {@link StoreClockObserver} the server clock a script returned, and keeps a
 * failing observer from turning a good round trip into a failure.
 *
 * @author cluster-singleton contributors
 */
final class StoreTimeRelay {

	private volatile StoreClockObserver observer = StoreClockObserver.NONE;

	/**
	 * Set the observer.
	 * @param observer the observer
	 */
	void set(StoreClockObserver observer) {
		Assert.notNull(observer, "'observer' must not be null");
		this.observer = observer;
	}

	/**
	 * Tell the observer a server's clock.
	 * @param storeTime the time, {@code null} when the reply carried none
	 * @return the time
	 */
	@Nullable Instant observe(@Nullable Instant storeTime) {
		if (storeTime == null) {
			return null;
		}
		try {
			this.observer.storeTimeObserved(storeTime);
		}
		catch (RuntimeException ex) {
			// an observer must not turn a good round trip into a failure
		}
		return storeTime;
	}

}
