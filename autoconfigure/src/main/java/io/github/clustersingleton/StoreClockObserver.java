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

package io.github.clustersingleton;

import java.time.Instant;

/**
 * Receives the store's current time whenever a {@link LeaseBackend} learns it from a
 * round trip it makes anyway (an acquisition, a renewal), so that the engine can tell how
 * far this node's clock is from the store's without extra requests.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@FunctionalInterface
public interface StoreClockObserver {

	/**
	 * An observer that ignores every reading.
	 */
	StoreClockObserver NONE = (storeTime) -> {
	};

	/**
	 * Called with the store's time as the store read it during a round trip that just
	 * ended. Must be fast and must not throw.
	 * @param storeTime the store's time
	 */
	void storeTimeObserved(Instant storeTime);

}
