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

import java.time.Instant;
import java.util.List;

import io.github.clustersingleton.RunTrigger;
import org.jspecify.annotations.Nullable;

/**
 * One run the engine is about to start.
 *
 * @param slot its slot, or {@code null}
 * @param attempt its attempt of the slot
 * @param trigger why it runs
 * @param missedSlots the other missed slots a catch-up run stands for
 * @author cluster-singleton contributors
 */
record RunPlan(@Nullable Instant slot, int attempt, RunTrigger trigger, List<Instant> missedSlots) {

	String describe() {
		return switch (this.trigger) {
			case RECOVERY -> "recovery run of slot " + this.slot + " (attempt " + this.attempt + ")";
			case CATCH_UP -> "catch-up run of slot " + this.slot + (this.missedSlots.isEmpty() ? ""
					: " (standing for " + (this.missedSlots.size() + 1) + " missed slots)");
			default -> "run of slot " + this.slot;
		};
	}

}
