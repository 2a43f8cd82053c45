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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.ManualRun;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The statements of the controls on the lease table: pause and resume, the pause of every
 * job (on the row named {@link LeaseParameters#ALL_JOBS}, which no job can have), cron
 * overrides, and reading them back with the pending run-now requests.
 *
 * @author cluster-singleton contributors
 */
final class ControlStatements {

	private final TimeBinding time;

	private final JdbcStatement pause;

	private final JdbcStatement pauseRows;

	private final JdbcStatement resume;

	private final JdbcStatement reschedule;

	private final JdbcStatement read;

	private final ManualRunStatements manualRuns;

	/**
	 * Create the control statements of a platform.
	 * @param platform the directory of the platform's statements
	 * @param table the validated name of the lease table
	 * @param manualRuns the statements of the run-now request table
	 * @param time how the platform binds times
	 */
	ControlStatements(String platform, String table, ManualRunStatements manualRuns, TimeBinding time) {
		this.time = time;
		this.manualRuns = manualRuns;
		this.pause = JdbcStatement.load(platform, "control-pause", table, false);
		this.pauseRows = JdbcStatement.load(platform, "control-pause-rows", table, false);
		this.resume = JdbcStatement.load(platform, "control-resume", table, false);
		this.reschedule = JdbcStatement.load(platform, "control-reschedule", table, false);
		this.read = JdbcStatement.load(platform, "control-read", table, true);
	}

	/**
	 * Pause a job, or every job: the row named for every job and then every job's row not
	 * paused on its own, in one transaction.
	 * @param connection a connection in auto-commit mode
	 * @param jobName the job, or {@code null} for every job
	 * @param pausedBy who paused it
	 * @param reason why, or {@code null}
	 * @throws SQLException on a database error (nothing changed)
	 */
	void pause(Connection connection, @Nullable String jobName, String pausedBy, @Nullable String reason)
			throws SQLException {
		MapSqlParameterSource parameters = LeaseParameters.job((jobName != null) ? jobName : LeaseParameters.ALL_JOBS)
			.addValue("pausedBy", pausedBy)
			.addValue("reason", reason);
		if (jobName != null) {
			update(connection, this.pause, parameters);
			return;
		}
		inTransaction(connection, () -> {
			update(connection, this.pause, parameters);
			update(connection, this.pauseRows, parameters);
		});
	}

	/**
	 * Resume a job, or every job, in one statement.
	 * @param connection a connection
	 * @param jobName the job, or {@code null} for every job
	 * @param catchUp whether the slots that passed while paused stay for the misfire
	 * policy
	 * @throws SQLException on a database error (nothing changed)
	 */
	void resume(Connection connection, @Nullable String jobName, boolean catchUp) throws SQLException {
		MapSqlParameterSource parameters = new MapSqlParameterSource().addValue("name", jobName)
			.addValue("allJobs", LeaseParameters.ALL_JOBS)
			.addValue("all", (jobName != null) ? 0 : 1)
			.addValue("catchUp", catchUp ? 1 : 0);
		update(connection, this.resume, parameters);
	}

	/**
	 * Store or clear a job's cron override.
	 * @param connection a connection
	 * @param jobName the job
	 * @param cron the override, or {@code null} to clear it
	 * @throws SQLException on a database error
	 */
	void reschedule(Connection connection, String jobName, @Nullable String cron) throws SQLException {
		update(connection, this.reschedule, LeaseParameters.job(jobName).addValue("cron", cron));
	}

	/**
	 * Read the controls of jobs.
	 * @param connection a connection
	 * @param jobNames the jobs, at most {@link JdbcLeaseBackend#MAX_LEASES_PER_STATEMENT}
	 * @return the controls of every job
	 * @throws SQLException on a database error
	 */
	Map<String, JobControl> read(Connection connection, Collection<String> jobNames) throws SQLException {
		Map<String, Stored> stored = new LinkedHashMap<>();
		Stored all = null;
		try (PreparedStatement statement = this.read.prepare(connection,
				new MapSqlParameterSource("names", List.copyOf(jobNames)).addValue("allJobs",
						LeaseParameters.ALL_JOBS));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				Stored row = new Stored(this.time.read(resultSet, "paused_at"), resultSet.getString("paused_by"),
						resultSet.getString("pause_reason"), resultSet.getString("cron_override"));
				String name = resultSet.getString("name");
				if (LeaseParameters.ALL_JOBS.equals(name) || name.isBlank()) {
					all = row;
				}
				else {
					stored.put(name, row);
				}
			}
		}
		Map<String, List<ManualRun>> pending = this.manualRuns.pending(connection, jobNames);
		Map<String, JobControl> controls = new LinkedHashMap<>();
		for (String jobName : jobNames) {
			Stored row = stored.get(jobName);
			Stored pause = (row != null && row.pausedAt() != null) ? row
					: (all != null && all.pausedAt() != null) ? all : null;
			String cron = (row != null) ? row.cronOverride() : null;
			List<ManualRun> runs = pending.getOrDefault(jobName, List.of());
			controls.put(jobName,
					(pause != null) ? new JobControl(jobName, true, pause.pausedBy(), pause.pausedAt(),
							pause.pauseReason(), cron, runs)
							: new JobControl(jobName, false, null, null, null, cron, runs));
		}
		return controls;
	}

	private static void update(Connection connection, JdbcStatement statement, MapSqlParameterSource parameters)
			throws SQLException {
		try (PreparedStatement prepared = statement.prepare(connection, parameters)) {
			prepared.executeUpdate();
		}
	}

	/**
	 * Run statements in one transaction on a connection in auto-commit mode, rolling back
	 * on failure.
	 * @param connection the connection
	 * @param work the statements
	 * @throws SQLException on a database error
	 */
	static void inTransaction(Connection connection, Work work) throws SQLException {
		connection.setAutoCommit(false);
		try {
			work.run();
			connection.commit();
		}
		catch (SQLException | RuntimeException ex) {
			try {
				connection.rollback();
			}
			catch (SQLException rollbackFailure) {
				ex.addSuppressed(rollbackFailure);
			}
			throw ex;
		}
		finally {
			connection.setAutoCommit(true);
		}
	}

	/**
	 * Statements run in one transaction.
	 */
	@FunctionalInterface
	interface Work {

		void run() throws SQLException;

	}

	private record Stored(@Nullable Instant pausedAt, @Nullable String pausedBy, @Nullable String pauseReason,
			@Nullable String cronOverride) {

	}

}
