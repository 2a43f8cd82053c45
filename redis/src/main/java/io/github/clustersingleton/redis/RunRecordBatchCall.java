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

import java.util.ArrayList;
import java.util.List;

import io.github.clustersingleton.RunRecord;

/**
 * A call of {@code run-record-batch.lua}: insert or replace several runs in their jobs'
 * ledgers and trim them.
 *
 * @param runs the runs, in their order; in a Redis Cluster all of jobs of one hash slot
 * @param maxRuns how many runs of each job to keep
 * @param first for each run, whether it is the first record of its run anyone writes
 * (added without removing an earlier one)
 * @param trim for each run, whether its job's ledger is to be trimmed
 * @author cluster-singleton contributors
 */
record RunRecordBatchCall(List<RunRecord> runs, int maxRuns, List<Boolean> first,
		List<Boolean> trim) implements RedisScriptCall<Void> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.RUN_RECORD_BATCH;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return this.runs.stream().map((run) -> keys.runs(run.jobName())).toList();
	}

	@Override
	public List<String> args() {
		List<String> args = new ArrayList<>(1 + 2 * this.runs.size());
		args.add(Integer.toString(this.maxRuns));
		for (int i = 0; i < this.runs.size(); i++) {
			RunRecord run = this.runs.get(i);
			args.add((this.first.get(i) ? "+" : "") + (this.trim.get(i) ? "#" : "") + run.fencingToken());
			args.add(RedisRunLedger.toJson(run));
		}
		return args;
	}

	/**
	 * The reply (how many runs were trimmed) is not read.
	 */
	@Override
	public Void decode(List<Object> reply) {
		return null;
	}

}
