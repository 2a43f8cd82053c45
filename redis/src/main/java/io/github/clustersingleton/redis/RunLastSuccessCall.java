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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.github.clustersingleton.redis.RedisReplies.asInstant;
import static io.github.clustersingleton.redis.RedisReplies.asLong;

/**
 * A call of {@code run-last-success.lua}: read when each of the given jobs (of one hash
 * slot in a Redis Cluster) last succeeded.
 *
 * @param jobNames the jobs, whose positions the reply names
 * @author cluster-singleton contributors
 */
record RunLastSuccessCall(List<String> jobNames) implements RedisScriptCall<Map<String, Instant>> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.RUN_LAST_SUCCESS;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return this.jobNames.stream().map(keys::runs).toList();
	}

	@Override
	public List<String> args() {
		return List.of();
	}

	/**
	 * Decode pairs of a job's (1-based) position and its last successful end.
	 * @return the last successful end of each job that has one
	 */
	@Override
	public Map<String, Instant> decode(List<Object> reply) {
		Map<String, Instant> lastSuccess = new HashMap<>();
		for (int i = 0; i + 1 < reply.size(); i += 2) {
			Instant finishedAt = asInstant(reply.get(i + 1));
			if (finishedAt != null) {
				lastSuccess.put(this.jobNames.get((int) asLong(reply.get(i)) - 1), finishedAt);
			}
		}
		return lastSuccess;
	}

}
