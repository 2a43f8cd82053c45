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
 * A call of {@code control-pause.lua}: pause a job or every job, or mark a job as paused
 * by a pause of every job.
 *
 * @param key the job's meta key or the pause-all key
 * @param pausedBy who paused it
 * @param reason why, or {@code ""}
 * @param mark whether only to mark an existing meta hash as paused by a pause of every
 * job
 * @author cluster-singleton contributors
 */
record ControlPauseCall(String key, String pausedBy, String reason, boolean mark) implements RedisScriptCall<Boolean> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.CONTROL_PAUSE;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(this.key);
	}

	@Override
	public List<String> args() {
		return List.of(this.pausedBy, this.reason, RedisReplies.flag(this.mark));
	}

	/**
	 * Decode {@code {written, now}}.
	 */
	@Override
	public Boolean decode(List<Object> reply) {
		return asLong(element(reply, 0)) == 1;
	}

}
