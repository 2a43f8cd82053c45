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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The statements of the run table (the run ledger) on one database platform, read from
 * the {@code <platform>/run-*.sql} resources next to this class (see
 * {@link JdbcStatement}) with the table names filled in.
 *
 * @author cluster-singleton contributors
 */
final class RunLedgerStatements {

	/**
	 * The most run records one statement inserts: ten parameters each, well within every
	 * platform's limit.
	 */
	static final int MAX_RUNS_PER_STATEMENT = 200;

	private final TimeBinding time;

	private final JdbcStatement runProbe;

	private final JdbcStatement runRecord;

	private final JdbcStatement runTrim;

	private final JdbcStatement runRecordBatch;

	private final JdbcStatement runTrimBatch;

	private final JdbcStatement runMarkLost;

	private final JdbcStatement runHistory;

	private final JdbcStatement runLastSuccess;

	/**
	 * Reads only each job's newest records, where the platform has it: the jobs it leaves
	 * without a success go through {@link #runLastSuccess}.
	 */
	private final @Nullable JdbcStatement runLastSuccessNewest;

	/**
	 * Create the statements of a platform.
	 * @param platform the directory of the platform's statements
	 * @param table the validated name of the lease table
	 * @param runTable the validated name of the run table
	 * @param time how the platform binds and reads times
	 */
	RunLedgerStatements(String platform, String table, String runTable, TimeBinding time) {
		this.time = time;
		this.runProbe = JdbcStatement.load(platform, "run-probe", table, runTable, false);
		this.runRecord = JdbcStatement.load(platform, "run-record", table, runTable, false);
		this.runTrim = JdbcStatement.load(platform, "run-trim", table, runTable, false);
		this.runRecordBatch = JdbcStatement.load(platform, "run-record-batch", table, runTable, true);
		this.runTrimBatch = JdbcStatement.load(platform, "run-trim-batch", table, runTable, true);
		this.runMarkLost = JdbcStatement.load(platform, "run-mark-lost", table, runTable, false);
		this.runHistory = JdbcStatement.load(platform, "run-history", table, runTable, false);
		this.runLastSuccess = JdbcStatement.load(platform, "run-last-success", table, runTable, true);
		this.runLastSuccessNewest = JdbcStatement.loadIfPresent(platform, "run-last-success-newest", table, runTable,
				true);
	}

	/**
	 * Run a query on the run table that returns nothing, so that a missing table shows.
	 * @param connection a connection
	 * @throws SQLException on a database error
	 */
	void probeRunTable(Connection connection) throws SQLException {
		try (PreparedStatement statement = this.runProbe.prepare(connection, new MapSqlParameterSource())) {
			statement.executeQuery().close();
		}
	}

	/**
	 * Insert or replace a run record, then, when asked, keep the newest {@code maxRuns}
	 * of its job.
	 * @param connection an auto-commit connection
	 * @param run the record
	 * @param maxRuns how many records of the job to keep
	 * @param trim whether to trim the job's records
	 * @throws SQLException on a database error
	 */
	void recordRun(Connection connection, RunRecord run, int maxRuns, boolean trim) throws SQLException {
		MapSqlParameterSource parameters = new MapSqlParameterSource().addValue("name", run.jobName())
			.addValue("fencingToken", run.fencingToken())
			.addValue("slot", this.time.bind(run.slot()))
			.addValue("attempt", run.attempt())
			.addValue("owner", run.owner())
			.addValue("trigger", run.trigger().name())
			.addValue("state", run.state().value())
			.addValue("startedAt", this.time.bind(run.startedAt()))
			.addValue("finishedAt", this.time.bind(run.finishedAt()))
			.addValue("error", new SqlParameterValue(Types.VARCHAR, run.error()));
		try (PreparedStatement statement = this.runRecord.prepare(connection, parameters)) {
			statement.executeUpdate();
		}
		if (!trim) {
			return;
		}
		try (PreparedStatement statement = this.runTrim.prepare(connection,
				new MapSqlParameterSource("name", run.jobName()).addValue("maxRuns", maxRuns))) {
			statement.executeUpdate();
		}
	}

	/**
	 * Insert or replace several run records in one statement, then keep the newest
	 * {@code maxRuns} of each of their jobs named in {@code trimmed} in a second one
	 * (none when it names none of them).
	 * @param connection an auto-commit connection
	 * @param runs the records, at most one per job and fencing token, and at most
	 * {@link #MAX_RUNS_PER_STATEMENT}
	 * @param maxRuns how many records of each job to keep
	 * @param trimmed the jobs whose records to trim
	 * @throws SQLException on a database error
	 */
	void recordRuns(Connection connection, List<RunRecord> runs, int maxRuns, Set<String> trimmed) throws SQLException {
		List<Object[]> rows = new ArrayList<>(runs.size());
		Set<String> names = new LinkedHashSet<>();
		for (RunRecord run : runs) {
			rows.add(new Object[] { run.jobName(), run.fencingToken(), this.time.bind(run.slot()), run.attempt(),
					run.owner(), run.trigger().name(), run.state().value(), this.time.bind(run.startedAt()),
					this.time.bind(run.finishedAt()), new SqlParameterValue(Types.VARCHAR, run.error()) });
			if (trimmed.contains(run.jobName())) {
				names.add(run.jobName());
			}
		}
		try (PreparedStatement statement = this.runRecordBatch.prepare(connection,
				new MapSqlParameterSource("runs", rows))) {
			statement.executeUpdate();
		}
		if (names.isEmpty()) {
			return;
		}
		try (PreparedStatement statement = this.runTrimBatch.prepare(connection,
				new MapSqlParameterSource("names", List.copyOf(names)).addValue("maxRuns", maxRuns))) {
			statement.executeUpdate();
		}
	}

	/**
	 * Mark every run of a job with a lower fencing token than the given one that is still
	 * recorded as running as lost.
	 * @param connection an auto-commit connection
	 * @param jobName the job name
	 * @param fencingToken the fencing token of the claim that took the job over
	 * @throws SQLException on a database error
	 */
	void markRunLost(Connection connection, String jobName, long fencingToken) throws SQLException {
		try (PreparedStatement statement = this.runMarkLost.prepare(connection,
				new MapSqlParameterSource("name", jobName).addValue("fencingToken", fencingToken))) {
			statement.executeUpdate();
		}
	}

	/**
	 * Return the newest run records of a job, newest first.
	 * @param connection an auto-commit connection
	 * @param jobName the job name
	 * @param limit the most records to return
	 * @return the records
	 * @throws SQLException on a database error
	 */
	List<RunRecord> runHistory(Connection connection, String jobName, int limit) throws SQLException {
		List<RunRecord> history = new ArrayList<>();
		try (PreparedStatement statement = this.runHistory.prepare(connection,
				new MapSqlParameterSource("name", jobName).addValue("limit", limit));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				Instant startedAt = this.time.read(resultSet, "started_at");
				history.add(new RunRecord(resultSet.getString("name"), this.time.read(resultSet, "slot"),
						resultSet.getInt("attempt"), resultSet.getLong("fencing_token"), resultSet.getString("owner"),
						RunTrigger.valueOf(resultSet.getString("run_trigger")),
						RunState.fromValue(resultSet.getString("state")),
						(startedAt != null) ? startedAt : Instant.EPOCH, this.time.read(resultSet, "finished_at"),
						resultSet.getString("error")));
			}
		}
		return history;
	}

	/**
	 * Return the end of each job's latest successful run: where the platform has a read
	 * of the newest records, from those first, and from the whole ledger only for the
	 * jobs none of whose newest records succeeded.
	 * @param connection an auto-commit connection
	 * @param jobNames the jobs
	 * @return the end times by job
	 * @throws SQLException on a database error
	 */
	Map<String, Instant> lastSuccess(Connection connection, Collection<String> jobNames) throws SQLException {
		Map<String, Instant> lastSuccess = new LinkedHashMap<>();
		List<String> names = List.copyOf(new LinkedHashSet<>(jobNames));
		JdbcStatement newest = this.runLastSuccessNewest;
		if (newest != null) {
			readLastSuccess(connection, newest, names, lastSuccess);
			names = names.stream().filter((name) -> !lastSuccess.containsKey(name)).toList();
		}
		readLastSuccess(connection, this.runLastSuccess, names, lastSuccess);
		return lastSuccess;
	}

	private void readLastSuccess(Connection connection, JdbcStatement query, List<String> names,
			Map<String, Instant> lastSuccess) throws SQLException {
		for (int from = 0; from < names.size(); from += JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT) {
			List<String> chunk = names.subList(from,
					Math.min(from + JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT, names.size()));
			try (PreparedStatement statement = query.prepare(connection, new MapSqlParameterSource("names", chunk));
					ResultSet resultSet = statement.executeQuery()) {
				while (resultSet.next()) {
					Instant finishedAt = this.time.read(resultSet, "finished_at");
					if (finishedAt != null) {
						lastSuccess.put(resultSet.getString("name"), finishedAt);
					}
				}
			}
		}
	}

}