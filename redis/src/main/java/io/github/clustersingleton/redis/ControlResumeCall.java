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

import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;
import static io.github.clustersingleton.redis.RedisReplies.flag;

/**
 * A call of {@code control-resume.lua}: resume a job, or clear a pause of every job.
 *
 * @param key the job's meta key or the pause-all key
 * @param leaseKey the job's lease key, {@code null} with the pause-all key
 * @param skip whether the slots that passed while paused are skipped (a resume without
 * catch-up)
 * @param all whether this is a resume of every job
 * @author cluster-singleton contributors
 */
record ControlResumeCall(String key, @Nullable String leaseKey, boolean skip,
		boolean all) implements RedisScriptCall<Boolean> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.CONTROL_RESUME;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return (this.leaseKey != null) ? List.of(this.key, this.leaseKey) : List.of(this.key);
	}

	@Override
	public List<String> args() {
		return List.of(flag(this.skip), flag(this.all));
	}

	/**
	 * Decode {@code {cleared, now}}.
	 */
	@Override
	public Boolean decode(List<Object> reply) {
		return asLong(element(reply, 0)) == 1;
	}

}
