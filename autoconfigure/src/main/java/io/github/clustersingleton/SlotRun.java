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

import org.springframework.util.Assert;

/**
 * The run of a job's current slot as the lease store records it: which slot, which
 * attempt, and how it went.
 *
 * @param slot the slot of the run
 * @param attempt the attempt, 1 for the slot's first run
 * @param state the state of the run ({@link RunState#RUNNING}, {@link RunState#SUCCEEDED}
 * or {@link RunState#FAILED})
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record SlotRun(Instant slot, int attempt, RunState state) {

	public SlotRun {
		Assert.notNull(slot, "'slot' must not be null");
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		Assert.notNull(state, "'state' must not be null");
	}

}
