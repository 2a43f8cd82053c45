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

package io.github.clustersingleton.cluster.node;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

import io.github.clustersingleton.ClusterSingletonContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Records every run in the {@code cluster_ledger} table through plain JDBC connections,
 * independent of the lease store: a row when the run starts, completed when it ends.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class Ledger {

	private static final Log logger = LogFactory.getLog(Ledger.class);

	private final String url;

	private final String runId;

	private final String nodeId;

	private final Clock clock;

	private final int minSleepMillis;

	private final int maxSleepMillis;

	public Ledger(@Value("${node.ledger-url}") String url, @Value("${node.run-id}") String runId,
			@Value("${node.id}") String nodeId, @Value("${node.min-sleep-ms:50}") int minSleepMillis,
			@Value("${node.max-sleep-ms:300}") int maxSleepMillis, Clock clock) {
		this.url = url;
		this.runId = runId;
		this.nodeId = nodeId;
		this.clock = clock;
		this.minSleepMillis = minSleepMillis;
		this.maxSleepMillis = maxSleepMillis;
	}

	/**
	 * Run one guarded job: record the start, sleep a while, record the end with whether
	 * the lease was still valid.
	 */
	void run() {
		ClusterSingletonContext run = ClusterSingletonContext.current();
		Instant startedAt = this.clock.instant();
		long id = start(run, startedAt);
		try {
			Thread.sleep(ThreadLocalRandom.current().nextInt(this.minSleepMillis, this.maxSleepMillis + 1));
		}
		catch (InterruptedException ex) {
			// the watchdog declared the lease lost and interrupted the run
			Thread.currentThread().interrupt();
		}
		Instant endedAt = this.clock.instant();
		boolean valid = run.isLeaseValid();
		// the row is completed later: a node paused right here reports its lease as it
		// was before the pause
		end(id, endedAt, valid);
	}

	private long start(ClusterSingletonContext run, Instant startedAt) {
		try (Connection connection = connect();
				PreparedStatement statement = connection
					.prepareStatement("INSERT INTO cluster_ledger (run_id, job, slot, node, fencing_token, started_at) "
							+ "VALUES (?, ?, ?, ?, ?, ?) RETURNING id")) {
			statement.setString(1, this.runId);
			statement.setString(2, run.jobName());
			statement.setTimestamp(3, run.slot().map(Timestamp::from).orElse(null));
			statement.setString(4, this.nodeId);
			statement.setLong(5, run.fencingToken());
			statement.setTimestamp(6, Timestamp.from(startedAt));
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getLong(1);
			}
		}
		catch (SQLException ex) {
			logger.error("Could not record the start of " + run.jobName(), ex);
			return -1;
		}
	}

	private void end(long id, Instant endedAt, boolean valid) {
		if (id < 0) {
			return;
		}
		try (Connection connection = connect();
				PreparedStatement statement = connection.prepareStatement("UPDATE cluster_ledger SET ended_at = ?, "
						+ "lease_valid_at_end = ?, db_ended = clock_timestamp() WHERE id = ?")) {
			statement.setTimestamp(1, Timestamp.from(endedAt));
			statement.setBoolean(2, valid);
			statement.setLong(3, id);
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			logger.error("Could not record the end of run " + id, ex);
		}
	}

	private Connection connect() throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		properties.setProperty("ApplicationName", "ledger");
		// an interrupt must not break the ledger write of a run that lost its lease
		boolean interrupted = Thread.interrupted();
		try {
			return DriverManager.getConnection(this.url, properties);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
