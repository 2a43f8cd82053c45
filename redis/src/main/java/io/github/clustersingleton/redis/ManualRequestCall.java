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
import java.util.Objects;

import io.github.clustersingleton.ManualRun;

import static io.github.clustersingleton.redis.RedisReplies.asText;
import static io.github.clustersingleton.redis.RedisReplies.asTime;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code manual-request.lua}: store a run-now request of a job.
 *
 * @param jobName the job
 * @param requestedBy who asked
 * @author cluster-singleton contributors
 */
record ManualRequestCall(String jobName, String requestedBy) implements RedisScriptCall<ManualRun> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.MANUAL_REQUEST;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.meta(this.jobName), keys.manual(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of(this.requestedBy);
	}

	/**
	 * Decode {@code {id, now}}.
	 */
	@Override
	public ManualRun decode(List<Object> reply) {
		String id = Objects.requireNonNull(asText(element(reply, 0)), "request id");
		return new ManualRun(id, this.jobName, this.requestedBy,
				Objects.requireNonNull(asTime(element(reply, 1)), "requested at"), ManualRun.State.PENDING, null, 0,
				null, null);
	}

}
