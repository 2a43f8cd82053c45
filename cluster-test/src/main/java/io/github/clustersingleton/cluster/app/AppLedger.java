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
package io.github.clustersingleton.cluster.app;

import java.sql.Timestamp;
import java.sql.Types;

import io.github.clustersingleton.ClusterSingletonContext;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.stereotype.Component;

/**
 * The application's own record of its runs, in table {@code leader_app_ledger} of its
 * database: a row when a run starts (job, slot if any, node, fencing token, start on the
 * database's clock), its end when it ends.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class AppLedger {

	private final JdbcTemplate jdbc;

	private final String runId;

	private final String node;

	public AppLedger(JdbcTemplate jdbc, @Value("${app.run-id}") String runId, @Value("${app.node}") String node) {
		this.jdbc = jdbc;
		this.runId = runId;
		this.node = node;
	}

	/**
	 * Record the start of a run.
	 * @param run the run's context
	 * @return the row's id
	 */
	public long start(ClusterSingletonContext run) {
		Timestamp slot = run.slot().map(Timestamp::from).orElse(null);
		Long id = this.jdbc.queryForObject(
				"INSERT INTO leader_app_ledger (run_id, job, slot, node, fencing_token, started_at) "
						+ "VALUES (?, ?, ?, ?, ?, clock_timestamp()) RETURNING id",
				Long.class, this.runId, run.jobName(), new SqlParameterValue(Types.TIMESTAMP, slot), this.node,
				run.fencingToken());
		return (id != null) ? id : -1;
	}

	/**
	 * Record the end of a run.
	 * @param id the row's id
	 */
	public void end(long id) {
		this.jdbc.update("UPDATE leader_app_ledger SET ended_at = clock_timestamp() WHERE id = ?", id);
	}

}
