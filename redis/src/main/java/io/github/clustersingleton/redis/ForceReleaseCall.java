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
 * A call of {@code force-release.lua}: expire a job's lease now, whoever holds it.
 *
 * @param jobName the job
 * @author cluster-singleton contributors
 */
record ForceReleaseCall(String jobName) implements RedisScriptCall<Boolean> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.FORCE_RELEASE;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.lease(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of();
	}

	/**
	 * Decode {@code {deleted}}: whether a live lease was deleted.
	 */
	@Override
	public Boolean decode(List<Object> reply) {
		return asLong(element(reply, 0)) > 0;
	}

}
