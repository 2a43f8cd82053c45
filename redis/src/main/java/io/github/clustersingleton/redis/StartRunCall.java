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
import java.util.List;
import java.util.OptionalLong;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code start-run.lua}: start another run under a held lease.
 *
 * @param jobName the job
 * @param leaseToken the token of the held lease
 * @param slot the slot of the run
 * @param attempt the attempt of the run
 * @param withPauseAll whether the pause-all key is passed too (not in a Redis Cluster)
 * @author cluster-singleton contributors
 */
record StartRunCall(String jobName, String leaseToken, Instant slot, int attempt,
		boolean withPauseAll) implements RedisScriptCall<StartRunCall.Reply>, GrantingCall {

	@Override
	public String grantName() {
		return "new run";
	}

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.START_RUN;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		if (!this.withPauseAll) {
			return keys.leaseAndMeta(this.jobName);
		}
		return List.of(keys.lease(this.jobName), keys.meta(this.jobName), keys.controls());
	}

	@Override
	public List<String> args() {
		return List.of(this.leaseToken, Long.toString(this.slot.toEpochMilli()), Integer.toString(this.attempt));
	}

	/**
	 * Decode {@code {1, fence}} or {@code {0}}.
	 */
	@Override
	public Reply decode(List<Object> reply) {
		boolean started = asLong(element(reply, 0)) == 1;
		return new Reply(started ? OptionalLong.of(asLong(element(reply, 1))) : OptionalLong.empty());
	}

	/**
	 * The reply of {@code start-run.lua}.
	 *
	 * @param fence the fencing token of the new run, empty when the lease no longer
	 * carries the token, the job is paused, or the slot is before the current run's
	 */
	record Reply(OptionalLong fence) {

		boolean started() {
			return this.fence.isPresent();
		}

	}

}
