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
 * State of one run of a job: in the lease store for the run of the job's current slot,
 * and in the run ledger for every run.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public enum RunState {

	/**
	 * The run started and has not reported an end. On a row whose lease expired, the run
	 * died with its node or lost its lease.
	 */
	RUNNING("running"),

	/**
	 * The run returned normally while its node held the lease.
	 */
	SUCCEEDED("succeeded"),

	/**
	 * The run threw while its node held the lease.
	 */
	FAILED("failed"),

	/**
	 * The run died with its node or lost its lease before it ended (ledger only: the
	 * store keeps such a run as {@link #RUNNING} on an expired lease).
	 */
	LOST("lost"),

	/**
	 * Not run: the job was paused cluster-wide when its slot came (a run ledger record
	 * only, never a row's current run). Recorded once per slot, with a negative fencing
	 * token derived from the slot (see {@link #pausedFencingToken(java.time.Instant)}).
	 */
	PAUSED("paused");

	private final String value;

	RunState(String value) {
		this.value = value;
	}

	/**
	 * Return the value stored for this state, and shown by the endpoint.
	 * @return the stored value
	 */
	public String value() {
		return this.value;
	}

	/**
	 * Return the ledger key of a slot skipped because its job was paused: minus the
	 * slot's epoch second, so that every node that skipped the slot writes the same
	 * record, and no real run's fencing token (always positive) is ever used.
	 * @param slot the skipped slot
	 * @return the fencing token of its ledger record
	 */
	public static long pausedFencingToken(Instant slot) {
		return -Math.max(1, slot.getEpochSecond());
	}

	/**
	 * Return the state a stored value stands for.
	 * @param value the stored value
	 * @return the state
	 * @throws IllegalArgumentException for an unknown value
	 */
	public static RunState fromValue(String value) {
		for (RunState state : values()) {
			if (state.value.equals(value)) {
				return state;
			}
		}
		throw new IllegalArgumentException("Unknown run state '" + value + "'");
	}

}
