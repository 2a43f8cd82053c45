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

/**
 * A call of {@code run-mark-lost.lua}: mark every running run of a job's ledger with a
 * lower fencing token than the given one as lost.
 *
 * @param jobName the job
 * @param fencingToken the fencing token
 * @author cluster-singleton contributors
 */
record RunMarkLostCall(String jobName, long fencingToken) implements RedisScriptCall<Void> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.RUN_MARK_LOST;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.runs(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of(Long.toString(this.fencingToken));
	}

	/**
	 * The reply (how many runs were marked) is not read.
	 */
	@Override
	public Void decode(List<Object> reply) {
		return null;
	}

}
