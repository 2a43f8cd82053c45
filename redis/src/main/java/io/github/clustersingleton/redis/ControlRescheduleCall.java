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

/**
 * A call of {@code control-reschedule.lua}: store or clear a job's cron override.
 *
 * @param jobName the job
 * @param cron the expression, or {@code null} to clear the override
 * @author cluster-singleton contributors
 */
record ControlRescheduleCall(String jobName, @Nullable String cron) implements RedisScriptCall<Void> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.CONTROL_RESCHEDULE;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.meta(this.jobName));
	}

	@Override
	public List<String> args() {
		return List.of((this.cron != null) ? this.cron : "");
	}

	@Override
	public @Nullable Void decode(List<Object> reply) {
		return null;
	}

}
