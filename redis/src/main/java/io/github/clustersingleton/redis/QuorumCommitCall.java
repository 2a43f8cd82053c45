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

import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;
import static io.github.clustersingleton.redis.RedisReplies.millis;

/**
 * A call of {@code quorum-commit.lua}, phase 2 of a quorum acquisition on one member:
 * raise the fence and the last slot to the picked ones.
 *
 * @param jobName the job
 * @param leaseToken the lease token of the acquisition
 * @param fence the fence the acquirer picked
 * @param slot the claimed slot, {@code null} for none
 * @author cluster-singleton contributors
 */
record QuorumCommitCall(String jobName, String leaseToken, long fence,
		@Nullable Instant slot) implements RedisScriptCall<Boolean> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.QUORUM_COMMIT;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return keys.leaseAndMeta(this.jobName);
	}

	@Override
	public List<String> args() {
		return List.of(this.leaseToken, Long.toString(this.fence), millis(this.slot));
	}

	/**
	 * Decode {@code {confirmed}}: whether the member still holds the lease.
	 */
	@Override
	public Boolean decode(List<Object> reply) {
		return asLong(element(reply, 0)) == 1;
	}

}
