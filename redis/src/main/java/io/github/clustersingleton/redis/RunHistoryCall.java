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

import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;

import static io.github.clustersingleton.redis.RedisReplies.asInstant;
import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.asText;

/**
 * A call of {@code run-history.lua}: read the newest runs of a job's ledger.
 *
 * @param jobName the job
 * @param limit the most runs to return
 * @author cluster-singleton contributors
 */
record RunHistoryCall(String jobName, int limit) implements RedisScriptCall<List<RunRecord>> {

	private static final int FIELDS_PER_RUN = 9;

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.RUN_HISTORY;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.runs(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of(Integer.toString(this.limit));
	}

	/**
	 * Decode nine elements per run, newest first: fencing_token, slot, attempt, owner,
	 * trigger, state, started_at, finished_at, error. A run without an owner, trigger,
	 * state or start is skipped.
	 */
	@Override
	public List<RunRecord> decode(List<Object> reply) {
		List<RunRecord> runs = new ArrayList<>(reply.size() / FIELDS_PER_RUN);
		for (int i = 0; i + FIELDS_PER_RUN <= reply.size(); i += FIELDS_PER_RUN) {
			String owner = asText(reply.get(i + 3));
			String trigger = asText(reply.get(i + 4));
			String state = asText(reply.get(i + 5));
			Instant startedAt = asInstant(reply.get(i + 6));
			if (owner == null || trigger == null || state == null || startedAt == null) {
				continue;
			}
			String attempt = asText(reply.get(i + 2));
			runs.add(new RunRecord(this.jobName, asInstant(reply.get(i + 1)),
					(attempt != null) ? Integer.parseInt(attempt) : 1, asLong(reply.get(i)), owner,
					RunTrigger.valueOf(trigger), RunState.fromValue(state), startedAt, asInstant(reply.get(i + 7)),
					asText(reply.get(i + 8))));
		}
		return runs;
	}

}
