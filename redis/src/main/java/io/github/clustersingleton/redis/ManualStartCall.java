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

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code manual-start.lua}: start a pending run-now request for the holder of
 * the job's live lease.
 *
 * @param jobName the job
 * @param requestId the request's id
 * @param owner the node that runs it
 * @param fencingToken the fencing token of the owner's lease
 * @author cluster-singleton contributors
 */
record ManualStartCall(String jobName, String requestId, String owner,
		long fencingToken) implements RedisScriptCall<Boolean> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.MANUAL_START;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.lease(this.jobName), keys.meta(this.jobName), keys.manual(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of(this.requestId, this.owner, Long.toString(this.fencingToken));
	}

	/**
	 * Decode {@code {started}}.
	 */
	@Override
	public Boolean decode(List<Object> reply) {
		return asLong(element(reply, 0)) == 1;
	}

}
