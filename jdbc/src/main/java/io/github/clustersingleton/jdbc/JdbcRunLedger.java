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

package io.github.clustersingleton.jdbc;

import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;

import org.springframework.util.Assert;

/**
 * The {@link RunLedger} of {@link JdbcLeaseBackend}, in the run table
 * ({@code cluster_singleton_run} by default).
 *
 * @author cluster-singleton contributors
 */
final class JdbcRunLedger implements RunLedger {

	private final JdbcLeaseBackend backend;

	/** How many records of each job this node wrote, for {@link #asksForTrim}. */
	private final Map<String, AtomicInteger> writesSinceTrim = new ConcurrentHashMap<>();

	JdbcRunLedger(JdbcLeaseBackend backend) {
		this.backend = backend;
	}

	@Override
	public void record(RunRecord run, int maxRuns) {
		Assert.notNull(run, "'run' must not be null");
		Assert.isTrue(maxRuns >= 1, "'maxRuns' must be at least 1");
		this.backend.executeOnRunTable("record run " + run.fencingToken() + " of job '" + run.jobName() + "'",
				(connection, statements) -> {
					statements.runLedger().recordRun(connection, run, maxRuns, asksForTrim(run, maxRuns));
					return Boolean.TRUE;
				});
	}

	@Override
	public void recordAll(List<RunRecord> runs, int maxRuns) {
		Assert.notNull(runs, "'runs' must not be null");
		Assert.isTrue(maxRuns >= 1, "'maxRuns' must be at least 1");
		// a later record of the same run replaces an earlier one; one statement sends
		// each once
		Map<String, RunRecord> latest = new LinkedHashMap<>();
		for (RunRecord run : runs) {
			latest.put(run.fencingToken() + ":" + run.jobName(), run);
		}
		// in the order of the table's key, as every node sends them: two nodes writing
		// records of the same runs (a paused slot's, which every node writes) lock the
		// rows
		// in the same order and cannot deadlock
		List<RunRecord> records = latest.values()
			.stream()
			.sorted(Comparator.comparing(RunRecord::jobName).thenComparingLong(RunRecord::fencingToken))
			.toList();
		Set<String> trimmed = new HashSet<>();
		for (RunRecord record : records) {
			if (asksForTrim(record, maxRuns)) {
				trimmed.add(record.jobName());
			}
		}
		for (int from = 0; from < records.size(); from += RunLedgerStatements.MAX_RUNS_PER_STATEMENT) {
			List<RunRecord> chunk = records.subList(from,
					Math.min(from + RunLedgerStatements.MAX_RUNS_PER_STATEMENT, records.size()));
			this.backend.executeOnRunTable("record " + chunk.size() + " runs", (connection, statements) -> {
				statements.runLedger().recordRuns(connection, chunk, maxRuns, trimmed);
				return Boolean.TRUE;
			});
		}
	}

	/**
	 * Whether this write trims its job's records to the newest {@code maxRuns}: at this
	 * node's first write of the job, then at every tenth of {@code maxRuns} writes, and
	 * at fencing tokens that are multiples of that tenth. So a job's records grow by at
	 * most a tenth of {@code maxRuns} per node that writes them between two trims, and a
	 * trim, which reads every record of its job, runs about once per tenth of
	 * {@code maxRuns} runs instead of at every write (as the Redis ledger does).
	 */
	private boolean asksForTrim(RunRecord run, int maxRuns) {
		int every = Math.max(1, maxRuns / 10);
		int written = this.writesSinceTrim.computeIfAbsent(run.jobName(), (name) -> new AtomicInteger())
			.getAndIncrement();
		return written % every == 0 || Math.floorMod(run.fencingToken(), every) == 0;
	}

	@Override
	public void markLostBefore(String jobName, long fencingToken) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		this.backend.executeOnRunTable("mark the runs before " + fencingToken + " of job '" + jobName + "' lost",
				(connection, statements) -> {
					statements.runLedger().markRunLost(connection, jobName, fencingToken);
					return Boolean.TRUE;
				});
	}

	@Override
	public List<RunRecord> history(String jobName, int limit) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		if (limit <= 0) {
			return List.of();
		}
		return this.backend.executeOnRunTable("read the run history of job '" + jobName + "'",
				(connection, statements) -> statements.runLedger().runHistory(connection, jobName, limit));
	}

	@Override
	public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		if (jobNames.isEmpty()) {
			return Map.of();
		}
		return this.backend.executeOnRunTable("read the last successful runs",
				(connection, statements) -> statements.runLedger().lastSuccess(connection, jobNames));
	}

}
