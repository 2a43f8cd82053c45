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

import java.util.List;
import java.util.Optional;

import io.github.clustersingleton.LeaseInfo;

import static io.github.clustersingleton.redis.RedisReplies.asInstant;
import static io.github.clustersingleton.redis.RedisReplies.asText;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code describe.lua}: read the stored state of a job's lease.
 *
 * @param jobName the job
 * @author cluster-singleton contributors
 */
record DescribeCall(String jobName) implements RedisScriptCall<Optional<LeaseInfo>> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.DESCRIBE;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return keys.leaseAndMeta(this.jobName);
	}

	@Override
	public List<String> args() {
		return List.of();
	}

	/**
	 * Decode {@code {}} for a job the server never saw, else {@code {fence, last_slot,
	 * owner, acquired_at, expires_at}}.
	 */
	@Override
	public Optional<LeaseInfo> decode(List<Object> reply) {
		if (reply.isEmpty()) {
			return Optional.empty();
		}
		String fence = asText(element(reply, 0));
		String holder = asText(element(reply, 2));
		return Optional.of(new LeaseInfo(this.jobName, holder, holder != null, asInstant(element(reply, 3)),
				asInstant(element(reply, 4)), (fence != null) ? Long.parseLong(fence) : 0,
				asInstant(element(reply, 1))));
	}

}
