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
import java.util.Locale;
import java.util.Objects;

import io.github.clustersingleton.ManualRun;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asInstant;
import static io.github.clustersingleton.redis.RedisReplies.asText;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code manual-read.lua}: read one run-now request of a job, or its newest
 * ones.
 *
 * @param jobName the job
 * @param requestId the request's id, or {@code null} for the newest requests
 * @param limit how many at most
 * @author cluster-singleton contributors
 */
record ManualReadCall(String jobName, @Nullable String requestId,
		int limit) implements RedisScriptCall<List<ManualRun>> {

	/**
	 * The number of elements of one request in a reply.
	 */
	static final int FIELDS = 8;

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.MANUAL_READ;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.manual(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of((this.requestId != null) ? this.requestId : "", Integer.toString(this.limit));
	}

	/**
	 * Decode the requests, {@value #FIELDS} elements each.
	 */
	@Override
	public List<ManualRun> decode(List<Object> reply) {
		List<ManualRun> runs = new ArrayList<>();
		for (int i = 0; i + FIELDS <= reply.size(); i += FIELDS) {
			runs.add(manualRun(this.jobName, reply, i));
		}
		return runs;
	}

	/**
	 * Decode one request of a reply: {@code id, requested_by, requested_at, state, owner,
	 * fence, finished_at, error}.
	 * @param jobName the job
	 * @param reply the reply
	 * @param from the index of the request's first element
	 * @return the request
	 */
	static ManualRun manualRun(String jobName, List<Object> reply, int from) {
		String id = Objects.requireNonNull(asText(element(reply, from)), "request id");
		String requestedBy = Objects.requireNonNull(asText(element(reply, from + 1)), "requested by");
		Instant requestedAt = Objects.requireNonNull(asInstant(element(reply, from + 2)), "requested at");
		String state = Objects.requireNonNull(asText(element(reply, from + 3)), "state");
		String fence = asText(element(reply, from + 5));
		return new ManualRun(id, jobName, requestedBy, requestedAt,
				ManualRun.State.valueOf(state.toUpperCase(Locale.ROOT)), asText(element(reply, from + 4)),
				(fence != null) ? Long.parseLong(fence) : 0, asInstant(element(reply, from + 6)),
				asText(element(reply, from + 7)));
	}

}
