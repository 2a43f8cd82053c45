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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.RunRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The statements of the run-now request table: store a request, start it once under the
 * job's live lease, end it, read it back, and keep the {@value #KEPT_ENDED} most recent
 * ended requests of each job.
 *
 * @author cluster-singleton contributors
 */
final class ManualRunStatements {

	/**
	 * How many ended run-now requests of a job the table keeps.
	 */
	static final int KEPT_ENDED = 20;

	private final TimeBinding time;

	private final JdbcStatement request;

	private final JdbcStatement start;

	private final JdbcStatement finish;

	private final JdbcStatement endedBeyond;

	private final JdbcStatement delete;

	private final JdbcStatement get;

	private final JdbcStatement list;

	private final JdbcStatement pending;

	/**
	 * Create the run-now request statements of a platform.
	 * @param platform the directory of the platform's statements
	 * @param table the validated name of the lease table
	 * @param manualRunTable the validated name of the run-now request table
	 * @param time how the platform binds times
	 */
	ManualRunStatements(String platform, String table, String manualRunTable, TimeBinding time) {
		this.time = time;
		this.request = JdbcStatement.loadControl(platform, "manual-request", table, manualRunTable, false);
		this.start = JdbcStatement.loadControl(platform, "manual-start", table, manualRunTable, false);
		this.finish = JdbcStatement.loadControl(platform, "manual-finish", table, manualRunTable, false);
		this.endedBeyond = JdbcStatement.loadControl(platform, "manual-ended-beyond", table, manualRunTable, false);
		this.delete = JdbcStatement.loadControl(platform, "manual-delete", table, manualRunTable, true);
		this.get = JdbcStatement.loadControl(platform, "manual-get", table, manualRunTable, false);
		this.list = JdbcStatement.loadControl(platform, "manual-list", table, manualRunTable, false);
		this.pending = JdbcStatement.loadControl(platform, "manual-pending", table, manualRunTable, true);
	}

	void probe(Connection connection) throws SQLException {
		try (PreparedStatement statement = this.list.prepare(connection,
				new MapSqlParameterSource("name", LeaseParameters.ALL_JOBS).addValue("limit", 1))) {
			statement.executeQuery().close();
		}
	}

	ManualRun request(Connection connection, String jobName, String requestedBy) throws SQLException {
		String id = UUID.randomUUID().toString();
		update(connection, this.request, requestParameters(jobName, id).addValue("requestedBy", requestedBy));
		return get(connection, jobName, id).orElseThrow(() -> new SQLException(
				"Run-now request '" + id + "' of job '" + jobName + "' was not found after it was stored"));
	}

	boolean start(Connection connection, String jobName, String requestId, String owner, long fencingToken)
			throws SQLException {
		return update(connection, this.start, requestParameters(jobName, requestId).addValue("owner", owner)
			.addValue("fencingToken", fencingToken)) > 0;
	}

	void finish(Connection connection, String jobName, String requestId, ManualRun.State state, @Nullable String error)
			throws SQLException {
		String summary = (error != null && error.length() > RunRecord.MAX_ERROR_LENGTH)
				? error.substring(0, RunRecord.MAX_ERROR_LENGTH) : error;
		int ended = update(connection, this.finish,
				requestParameters(jobName, requestId).addValue("state", state.name().toLowerCase(Locale.ROOT))
					.addValue("error", summary));
		if (ended > 0) {
			trim(connection, jobName);
		}
	}

	private void trim(Connection connection, String jobName) throws SQLException {
		List<String> beyond = new ArrayList<>();
		try (PreparedStatement statement = this.endedBeyond.prepare(connection,
				new MapSqlParameterSource("name", jobName).addValue("keep", KEPT_ENDED));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				beyond.add(resultSet.getString("request_id"));
			}
		}
		if (!beyond.isEmpty()) {
			update(connection, this.delete, new MapSqlParameterSource("name", jobName).addValue("requestIds", beyond));
		}
	}

	Optional<ManualRun> get(Connection connection, String jobName, String requestId) throws SQLException {
		try (PreparedStatement statement = this.get.prepare(connection, requestParameters(jobName, requestId));
				ResultSet resultSet = statement.executeQuery()) {
			return resultSet.next() ? Optional.of(read(resultSet)) : Optional.empty();
		}
	}

	List<ManualRun> list(Connection connection, String jobName, int limit) throws SQLException {
		List<ManualRun> runs = new ArrayList<>();
		try (PreparedStatement statement = this.list.prepare(connection,
				new MapSqlParameterSource("name", jobName).addValue("limit", limit));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				runs.add(read(resultSet));
			}
		}
		return runs;
	}

	Map<String, List<ManualRun>> pending(Connection connection, Collection<String> jobNames) throws SQLException {
		Map<String, List<ManualRun>> pending = new HashMap<>();
		try (PreparedStatement statement = this.pending.prepare(connection,
				new MapSqlParameterSource("names", List.copyOf(jobNames)));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				ManualRun run = read(resultSet);
				pending.computeIfAbsent(run.jobName(), (name) -> new ArrayList<>()).add(run);
			}
		}
		return pending;
	}

	private static MapSqlParameterSource requestParameters(String jobName, String requestId) {
		return new MapSqlParameterSource("name", jobName).addValue("requestId", requestId);
	}

	private ManualRun read(ResultSet resultSet) throws SQLException {
		Instant requestedAt = this.time.read(resultSet, "requested_at");
		return new ManualRun(resultSet.getString("request_id"), resultSet.getString("name"),
				resultSet.getString("requested_by"), (requestedAt != null) ? requestedAt : Instant.EPOCH,
				ManualRun.State.valueOf(resultSet.getString("state").toUpperCase(Locale.ROOT)),
				resultSet.getString("owner"), resultSet.getLong("fencing_token"),
				this.time.read(resultSet, "finished_at"), resultSet.getString("error"));
	}

	private static int update(Connection connection, JdbcStatement statement, MapSqlParameterSource parameters)
			throws SQLException {
		try (PreparedStatement prepared = statement.prepare(connection, parameters)) {
			return prepared.executeUpdate();
		}
	}

}
