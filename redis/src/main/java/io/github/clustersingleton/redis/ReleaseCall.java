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

import java.time.Duration;
import java.util.List;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunState;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code release.lua}: record how a run ended, by its token, and release its
 * lease if it still carries that token.
 *
 * @param jobName the job
 * @param leaseToken the lease token of the run
 * @param lockAtLeastForMillis lockAtLeastFor in milliseconds
 * @param state how the run ended ({@link RunState#value()}), {@code ""} to leave the run
 * fields alone
 * @param retryDelayMillis the retry delay in milliseconds
 * @param fencingToken the fencing token of the run; {@code null} to send none (the run
 * under the token is recorded whatever its fence)
 * @author cluster-singleton contributors
 */
record ReleaseCall(String jobName, String leaseToken, long lockAtLeastForMillis, String state, long retryDelayMillis,
		@Nullable Long fencingToken) implements RedisScriptCall<ReleaseCall.Reply> {

	/**
	 * Return the call that records a completion and releases the lease.
	 * @param lease the lease of the run
	 * @param lockAtLeastFor how long the lease is kept after its acquisition
	 * @param completion how the run ended
	 * @return the call
	 */
	static ReleaseCall of(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		RunState state = completion.state();
		return new ReleaseCall(lease.jobName(), lease.leaseToken(), lockAtLeastFor.toMillis(),
				(state != null) ? state.value() : "", completion.retryDelay().toMillis(), lease.fencingToken());
	}

	/**
	 * Return the call that gives back a grant: no lockAtLeastFor, nothing recorded, no
	 * fencing token.
	 * @param jobName the job
	 * @param leaseToken the lease token of the grant
	 * @return the call
	 */
	static ReleaseCall giveBack(String jobName, String leaseToken) {
		return new ReleaseCall(jobName, leaseToken, 0, "", 0, null);
	}

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.RELEASE;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return keys.leaseAndMeta(this.jobName);
	}

	@Override
	public List<String> args() {
		if (this.fencingToken == null) {
			return List.of(this.leaseToken, Long.toString(this.lockAtLeastForMillis), this.state,
					Long.toString(this.retryDelayMillis));
		}
		return List.of(this.leaseToken, Long.toString(this.lockAtLeastForMillis), this.state,
				Long.toString(this.retryDelayMillis), Long.toString(this.fencingToken));
	}

	/**
	 * Decode {@code {released, recorded}}; a reply without {@code recorded} counts as
	 * recorded.
	 */
	@Override
	public Reply decode(List<Object> reply) {
		return new Reply(asLong(element(reply, 0)), reply.size() < 2 || asLong(element(reply, 1)) == 1);
	}

	/**
	 * The reply of {@code release.lua}.
	 *
	 * @param released 0 when the lease was not the run's, 1 when deleted, 2 when kept
	 * until lockAtLeastFor
	 * @param recorded whether the completion was recorded (or had nothing to record),
	 * {@code false} when it was superseded
	 */
	record Reply(long released, boolean recorded) {

	}

}
