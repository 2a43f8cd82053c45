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

import io.github.clustersingleton.RunRecord;

/**
 * A call of {@code run-record.lua}: insert or replace a run in its job's ledger and trim
 * the ledger.
 *
 * @param run the run
 * @param maxRuns how many runs to keep
 * @author cluster-singleton contributors
 */
record RunRecordCall(RunRecord run, int maxRuns) implements RedisScriptCall<Void> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.RUN_RECORD;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.runs(this.run.jobName()));
	}

	@Override
	public List<String> args() {
		return List.of(Long.toString(this.run.fencingToken()), RedisRunLedger.toJson(this.run),
				Integer.toString(this.maxRuns));
	}

	/**
	 * The reply (how many runs were trimmed) is not read.
	 */
	@Override
	public Void decode(List<Object> reply) {
		return null;
	}

}
