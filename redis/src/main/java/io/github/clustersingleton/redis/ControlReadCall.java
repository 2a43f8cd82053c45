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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.ManualRun;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asInstant;
import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.asText;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code control-read.lua}: the controls of several jobs of one hash slot (or
 * of any slots outside a Redis Cluster), and optionally the pause of every job.
 *
 * @param jobNames the jobs, possibly none
 * @param withPauseAll whether the pause-all key is read too
 * @author cluster-singleton contributors
 */
record ControlReadCall(List<String> jobNames, boolean withPauseAll) implements RedisScriptCall<ControlReadCall.Reply> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.CONTROL_READ;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		List<String> list = new ArrayList<>(this.jobNames.size() * 2 + 1);
		this.jobNames.forEach((jobName) -> list.add(keys.meta(jobName)));
		this.jobNames.forEach((jobName) -> list.add(keys.manual(jobName)));
		if (this.withPauseAll) {
			list.add(keys.controls());
		}
		return list;
	}

	@Override
	public List<String> args() {
		return List.of(Integer.toString(this.jobNames.size()));
	}

	/**
	 * Decode {@code {paused_at, paused_by, pause_reason}} of every job, then per job
	 * {@code paused_at, paused_by, pause_reason, all_paused_at, cron, count} and count
	 * pending requests.
	 */
	@Override
	public Reply decode(List<Object> reply) {
		Pause all = pause(reply, 0);
		Map<String, Job> jobs = new LinkedHashMap<>();
		int index = 3;
		for (String jobName : this.jobNames) {
			Pause own = pause(reply, index);
			Instant allPausedAt = asInstant(element(reply, index + 3));
			String cron = asText(element(reply, index + 4));
			int count = (int) asLong(element(reply, index + 5));
			index += 6;
			List<ManualRun> pending = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				pending.add(ManualReadCall.manualRun(jobName, reply, index));
				index += ManualReadCall.FIELDS;
			}
			jobs.put(jobName, new Job(own, allPausedAt, cron, pending));
		}
		return new Reply(all, jobs);
	}

	private static @Nullable Pause pause(List<Object> reply, int from) {
		Instant at = asInstant(element(reply, from));
		return (at != null) ? new Pause(at, asText(element(reply, from + 1)), asText(element(reply, from + 2))) : null;
	}

	/**
	 * A stored pause.
	 *
	 * @param at when (the server's clock)
	 * @param by who paused
	 * @param reason why
	 */
	record Pause(Instant at, @Nullable String by, @Nullable String reason) {

	}

	/**
	 * The stored controls of one job.
	 *
	 * @param own the job's own pause
	 * @param allPausedAt when a pause of every job marked it
	 * @param cron the cron override
	 * @param pending the pending run-now requests, oldest first
	 */
	record Job(@Nullable Pause own, @Nullable Instant allPausedAt, @Nullable String cron, List<ManualRun> pending) {

		/**
		 * Return the controls of the job, given the pause of every job.
		 * @param jobName the job
		 * @param all the pause of every job, or {@code null}
		 * @return the controls
		 */
		JobControl toControl(String jobName, @Nullable Pause all) {
			Pause pause = (this.own != null) ? this.own : all;
			if (pause == null && this.allPausedAt != null) {
				pause = new Pause(this.allPausedAt, null, null);
			}
			if (pause == null) {
				return new JobControl(jobName, false, null, null, null, this.cron, this.pending);
			}
			return new JobControl(jobName, true, pause.by(), pause.at(), pause.reason(), this.cron, this.pending);
		}

	}

	/**
	 * The reply of {@code control-read.lua}.
	 *
	 * @param all the pause of every job, or {@code null}
	 * @param jobs the stored controls of each job
	 */
	record Reply(@Nullable Pause all, Map<String, Job> jobs) {

	}

}
