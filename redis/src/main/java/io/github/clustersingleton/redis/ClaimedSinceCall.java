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
import java.util.ArrayList;
import java.util.List;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.millis;

/**
 * A call of {@code claimed-since.lua}, which reads the meta hashes of several jobs (in a
 * Redis Cluster, of one hash slot), or of {@code claimed-since-index.lua}, which reads
 * the claims index (not in a Redis Cluster): which of the jobs were claimed for a slot or
 * a later one.
 *
 * @param jobNames the jobs
 * @param slot the slot
 * @param indexed whether to read the claims index (one {@code ZMSCORE} for all jobs)
 * rather than every job's meta hash
 * @author cluster-singleton contributors
 */
record ClaimedSinceCall(List<String> jobNames, Instant slot, boolean indexed) implements RedisScriptCall<List<String>> {

	@Override
	public RedisLeaseScript script() {
		return this.indexed ? RedisLeaseScript.CLAIMED_SINCE_INDEX : RedisLeaseScript.CLAIMED_SINCE;
	}

	/**
	 * Return the meta hashes of the jobs, after the claims index when it is read: the
	 * script reads them only before Redis 6.2, and passing them makes a Redis Cluster
	 * refuse the call ({@code CROSSSLOT}) rather than answer from an index it lacks.
	 */
	@Override
	public List<String> keys(RedisKeys keys) {
		List<String> list = new ArrayList<>(this.jobNames.size() + 1);
		if (this.indexed) {
			list.add(keys.claims());
		}
		for (String jobName : this.jobNames) {
			list.add(keys.meta(jobName));
		}
		return list;
	}

	@Override
	public List<String> args() {
		if (!this.indexed) {
			return List.of(millis(this.slot));
		}
		List<String> args = new ArrayList<>(this.jobNames.size() + 1);
		args.add(millis(this.slot));
		args.addAll(this.jobNames);
		return args;
	}

	/**
	 * Decode the positions of the claimed jobs.
	 */
	@Override
	public List<String> decode(List<Object> reply) {
		List<String> claimed = new ArrayList<>(reply.size());
		for (Object position : reply) {
			claimed.add(this.jobNames.get((int) asLong(position) - 1));
		}
		return claimed;
	}

}
