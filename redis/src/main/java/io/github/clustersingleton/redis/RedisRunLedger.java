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
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link RunLedger} of the {@link RedisLeaseBackend}: one sorted set per job,
 * {@code {<prefix>:<name>}:runs}, on the hash slot of the job's lease. The score of a run
 * is its fencing token, the member a JSON object with the fields in this order:
 * <pre class="code">
 * {"fencing_token":42,"state":"succeeded","slot":1767261600000,"attempt":1,
 *  "owner":"node-a","trigger":"SCHEDULED","started_at":1767261600123,
 *  "finished_at":1767261601456,"error":null}
 * </pre> Times are epoch milliseconds ({@code null} for none), {@code state} is
 * {@link RunState#value()} and {@code trigger} {@link RunTrigger#name()}. Every operation
 * is one script call, reading the JSON with Redis's {@code cjson}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class RedisRunLedger implements RunLedger {

	private final RedisScriptExecutor executor;

	private final RedisKeys keys;

	private final ClusterSlotGrouping grouping;

	/**
	 * Per job, how many of its records this node wrote with the batch script.
	 */
	private final Map<String, AtomicInteger> writesSinceTrim = new ConcurrentHashMap<>();

	RedisRunLedger(RedisScriptExecutor executor, RedisKeys keys, ClusterSlotGrouping grouping) {
		this.executor = executor;
		this.keys = keys;
		this.grouping = grouping;
	}

	@Override
	public void record(RunRecord run, int maxRuns) {
		Assert.notNull(run, "'run' must not be null");
		Assert.isTrue(maxRuns >= 0, "'maxRuns' must not be negative");
		new RunRecordCall(run, maxRuns).send(this.executor, this.keys);
	}

	/**
	 * Record the runs with one call of the batch script, and trim their jobs' ledgers; in
	 * a Redis Cluster, one call per hash slot of the jobs.
	 */
	@Override
	public void recordAll(List<RunRecord> runs, int maxRuns) {
		recordAll(runs, maxRuns, (run) -> false);
	}

	/**
	 * Record the runs with one call of the batch script, as
	 * {@link #recordAll(List, int)}; a run's first record is added without first removing
	 * an earlier one.
	 */
	@Override
	public void recordAll(List<RunRecord> runs, int maxRuns, Predicate<RunRecord> firstRecord) {
		Assert.notNull(runs, "'runs' must not be null");
		Assert.isTrue(maxRuns >= 0, "'maxRuns' must not be negative");
		Map<String, List<RunRecord>> byJob = new LinkedHashMap<>();
		for (RunRecord run : runs) {
			byJob.computeIfAbsent(run.jobName(), (name) -> new ArrayList<>()).add(run);
		}
		this.grouping.forEachGroup(List.copyOf(byJob.keySet()), (group) -> {
			List<RunRecord> records = new ArrayList<>();
			group.forEach((name) -> records.addAll(byJob.get(name)));
			new RunRecordBatchCall(records, maxRuns, records.stream().map(firstRecord::test).toList(),
					records.stream().map((run) -> asksForTrim(run, maxRuns)).toList())
				.send(this.executor, this.keys);
		}, false);
	}

	/**
	 * Whether this write asks for its job's ledger to be trimmed: at this node's first
	 * write of the job, then at every tenth of {@code maxRuns} writes (the script also
	 * trims at fencing tokens that are multiples of it). So a ledger grows by at most a
	 * tenth of {@code maxRuns} per node that writes it between two trims, whichever
	 * fencing tokens its runs get.
	 */
	private boolean asksForTrim(RunRecord run, int maxRuns) {
		int every = Math.max(1, maxRuns / 10);
		int written = this.writesSinceTrim.computeIfAbsent(run.jobName(), (name) -> new AtomicInteger())
			.getAndIncrement();
		return written % every == 0;
	}

	@Override
	public void markLostBefore(String jobName, long fencingToken) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		new RunMarkLostCall(jobName, fencingToken).send(this.executor, this.keys);
	}

	@Override
	public List<RunRecord> history(String jobName, int limit) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		if (limit < 1) {
			return List.of();
		}
		return new RunHistoryCall(jobName, limit).execute(this.executor, this.keys);
	}

	/**
	 * Read the latest successful end of each job with one call of the last-success
	 * script; in a Redis Cluster, one call per hash slot of the jobs.
	 */
	@Override
	public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		Map<String, Instant> lastSuccess = new HashMap<>();
		this.grouping.forEachGroup(jobNames.stream().distinct().toList(),
				(group) -> lastSuccess.putAll(new RunLastSuccessCall(group).execute(this.executor, this.keys)), false);
		return lastSuccess;
	}

	/**
	 * Return the JSON member of a run, its fields in a fixed order, {@code state} right
	 * after {@code fencing_token} (the mark-lost script relies on it).
	 * @param run the run
	 * @return the JSON
	 */
	static String toJson(RunRecord run) {
		StringBuilder json = new StringBuilder(128);
		json.append("{\"fencing_token\":").append(run.fencingToken());
		json.append(",\"state\":");
		appendString(json, run.state().value());
		json.append(",\"slot\":");
		appendMillis(json, run.slot());
		json.append(",\"attempt\":").append(run.attempt());
		json.append(",\"owner\":");
		appendString(json, run.owner());
		json.append(",\"trigger\":");
		appendString(json, run.trigger().name());
		json.append(",\"started_at\":");
		appendMillis(json, run.startedAt());
		json.append(",\"finished_at\":");
		appendMillis(json, run.finishedAt());
		json.append(",\"error\":");
		appendString(json, run.error());
		return json.append('}').toString();
	}

	private static void appendMillis(StringBuilder json, @Nullable Instant instant) {
		if (instant == null) {
			json.append("null");
		}
		else {
			json.append(instant.toEpochMilli());
		}
	}

	private static void appendString(StringBuilder json, @Nullable String value) {
		if (value == null) {
			json.append("null");
			return;
		}
		json.append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '"' -> json.append("\\\"");
				case '\\' -> json.append("\\\\");
				case '\n' -> json.append("\\n");
				case '\r' -> json.append("\\r");
				case '\t' -> json.append("\\t");
				default -> {
					if (c < 0x20 || c == 0x7f) {
						json.append(String.format("\\u%04x", (int) c));
					}
					else {
						json.append(c);
					}
				}
			}
		}
		json.append('"');
	}

	@Override
	public String toString() {
		return "RedisRunLedger [keyPrefix=" + this.keys.prefix() + "]";
	}

}
