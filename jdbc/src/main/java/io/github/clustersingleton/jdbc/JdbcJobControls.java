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

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.ManualRun;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The controls of the JDBC store: pauses and cron overrides on the lease table's rows
 * (the pause of every job on a row no job can be named), run-now requests in the table
 * named after the lease table ({@code cluster_singleton_manual_run} by default), which
 * keeps a job's pending and running requests and its
 * {@value ManualRunStatements#KEPT_ENDED} most recent ended ones. Every claim statement
 * refuses a paused job atomically; all times are the database's.
 *
 * @author cluster-singleton contributors
 */
final class JdbcJobControls implements JobControls {

	private final JdbcLeaseBackend backend;

	JdbcJobControls(JdbcLeaseBackend backend) {
		this.backend = backend;
	}

	@Override
	public Map<String, JobControl> read(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		List<String> names = jobNames.stream().distinct().toList();
		if (names.isEmpty()) {
			return Map.of();
		}
		return this.backend.execute("read the controls of " + names.size() + " job(s)", (connection, statements) -> {
			Map<String, JobControl> controls = new LinkedHashMap<>();
			for (int from = 0; from < names.size(); from += JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT) {
				controls.putAll(statements.controls()
					.read(connection, names.subList(from,
							Math.min(from + JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT, names.size()))));
			}
			return controls;
		});
	}

	@Override
	public void pause(@Nullable String jobName, String pausedBy, @Nullable String reason) {
		Assert.hasText(pausedBy, "'pausedBy' must not be empty");
		validate(jobName);
		this.backend.execute("pause " + describe(jobName), (connection, statements) -> {
			statements.controls().pause(connection, jobName, pausedBy, reason);
			return Boolean.TRUE;
		});
	}

	@Override
	public void resume(@Nullable String jobName, boolean catchUp) {
		validate(jobName);
		this.backend.execute("resume " + describe(jobName), (connection, statements) -> {
			statements.controls().resume(connection, jobName, catchUp);
			return Boolean.TRUE;
		});
	}

	@Override
	public void reschedule(String jobName, @Nullable String cron) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		this.backend.validateJobName(jobName);
		Assert.isTrue(cron == null || cron.length() <= 255,
				() -> "Cron expression of job '" + jobName + "' is longer than the 255 characters column "
						+ "'cron_override' of table '" + this.backend.getTableName() + "' stores");
		this.backend.execute("reschedule job '" + jobName + "'", (connection, statements) -> {
			statements.controls().reschedule(connection, jobName, cron);
			return Boolean.TRUE;
		});
	}

	@Override
	public ManualRun requestRun(String jobName, String requestedBy) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestedBy, "'requestedBy' must not be empty");
		this.backend.validateJobName(jobName);
		return this.backend.executeOnManualRunTable("request a run of job '" + jobName + "'",
				(connection, statements) -> statements.manualRuns().request(connection, jobName, requestedBy));
	}

	@Override
	public boolean startManualRun(String jobName, String requestId, String owner, long fencingToken) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		Assert.hasText(owner, "'owner' must not be empty");
		return this.backend
			.executeOnManualRunTable("start run-now request '" + requestId + "' of job '" + jobName + "'", (connection,
					statements) -> statements.manualRuns().start(connection, jobName, requestId, owner, fencingToken));
	}

	@Override
	public void finishManualRun(String jobName, String requestId, ManualRun.State state, @Nullable String error) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		Assert.isTrue(state != null && state.isEnded(), "'state' must be SUCCEEDED or FAILED");
		this.backend.executeOnManualRunTable("end run-now request '" + requestId + "' of job '" + jobName + "'",
				(connection, statements) -> {
					statements.manualRuns().finish(connection, jobName, requestId, state, error);
					return Boolean.TRUE;
				});
	}

	@Override
	public Optional<ManualRun> manualRun(String jobName, String requestId) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		return this.backend.executeOnManualRunTable("read run-now request '" + requestId + "' of job '" + jobName + "'",
				(connection, statements) -> statements.manualRuns().get(connection, jobName, requestId));
	}

	@Override
	public List<ManualRun> manualRuns(String jobName, int limit) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.isTrue(limit >= 0, "'limit' must not be negative");
		if (limit == 0) {
			return List.of();
		}
		return this.backend.executeOnManualRunTable("read the run-now requests of job '" + jobName + "'",
				(connection, statements) -> statements.manualRuns().list(connection, jobName, limit));
	}

	private void validate(@Nullable String jobName) {
		if (jobName != null) {
			Assert.hasText(jobName, "'jobName' must not be empty");
			this.backend.validateJobName(jobName);
		}
	}

	private static String describe(@Nullable String jobName) {
		return (jobName != null) ? "job '" + jobName + "'" : "every job";
	}

}
