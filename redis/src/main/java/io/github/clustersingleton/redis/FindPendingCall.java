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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.clustersingleton.ClaimPolicy;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.flag;

/**
 * A call of {@code find-pending.lua}: find which of the given jobs (of one hash slot in a
 * Redis Cluster) have pending work.
 *
 * @param jobNames the jobs, whose positions the reply names
 * @param policies the claim policy of each job
 * @author cluster-singleton contributors
 */
record FindPendingCall(List<String> jobNames,
		Map<String, ClaimPolicy> policies) implements RedisScriptCall<List<String>> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.FIND_PENDING;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		List<String> list = new ArrayList<>(this.jobNames.size() * 2);
		for (String jobName : this.jobNames) {
			list.add(keys.lease(jobName));
			list.add(keys.meta(jobName));
		}
		return list;
	}

	@Override
	public List<String> args() {
		List<String> args = new ArrayList<>(this.jobNames.size() * 4);
		for (String jobName : this.jobNames) {
			ClaimPolicy policy = this.policies.get(jobName);
			args.add(flag(policy.recoverLost()));
			args.add(flag(policy.recoverFailed()));
			args.add(Integer.toString(policy.maxAttempts()));
			args.add(flag(policy.catchUp()));
		}
		return args;
	}

	/**
	 * Decode the (1-based) positions of the pending jobs.
	 * @return the names of the pending jobs
	 */
	@Override
	public List<String> decode(List<Object> reply) {
		List<String> pending = new ArrayList<>(reply.size());
		for (Object position : reply) {
			pending.add(this.jobNames.get((int) asLong(position) - 1));
		}
		return pending;
	}

}
