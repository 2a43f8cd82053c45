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
import static io.github.clustersingleton.redis.RedisReplies.asText;
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
 * @param resumeTime in a resume of every job, for a job's meta key: the time in epoch
 * milliseconds that clearing the pause-all key answered, or {@code null}
 * @author cluster-singleton contributors
 */
record ControlResumeCall(String key, @Nullable String leaseKey, boolean skip, boolean all,
		@Nullable String resumeTime) implements RedisScriptCall<ControlResumeCall.Reply> {

	ControlResumeCall(String key, @Nullable String leaseKey, boolean skip, boolean all) {
		this(key, leaseKey, skip, all, null);
	}

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
		return List.of(flag(this.skip), flag(this.all), (this.resumeTime != null) ? this.resumeTime : "");
	}

	/**
	 * Decode {@code {cleared, time}}.
	 */
	@Override
	public Reply decode(List<Object> reply) {
		return new Reply(asLong(element(reply, 0)) == 1, asText(element(reply, 1)));
	}

	/**
	 * The reply of {@code control-resume.lua}.
	 *
	 * @param cleared whether a pause was cleared
	 * @param time the server's clock in epoch milliseconds, or for the pause-all key the
	 * time its pause was last cleared ({@code null} for never)
	 */
	record Reply(boolean cleared, @Nullable String time) {

	}

}
