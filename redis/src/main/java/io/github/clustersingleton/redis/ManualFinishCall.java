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
import java.util.Locale;

import io.github.clustersingleton.ManualRun;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code manual-finish.lua}: record how a running run-now request ended.
 *
 * @param jobName the job
 * @param requestId the request's id
 * @param state how it ended
 * @param error what went wrong, or {@code null}
 * @param keep how many ended requests of the job to keep
 * @author cluster-singleton contributors
 */
record ManualFinishCall(String jobName, String requestId, ManualRun.State state, @Nullable String error,
		int keep) implements RedisScriptCall<Boolean> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.MANUAL_FINISH;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.manual(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of(this.requestId, this.state.name().toLowerCase(Locale.ROOT),
				(this.error != null) ? this.error : "", Integer.toString(this.keep));
	}

	/**
	 * Decode {@code {changed}}.
	 */
	@Override
	public Boolean decode(List<Object> reply) {
		return asLong(element(reply, 0)) == 1;
	}

}
