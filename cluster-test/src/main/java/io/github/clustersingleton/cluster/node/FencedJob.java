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
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job whose every run ends with a write to a <em>fenced resource</em>: the row of
 * {@code fenced_account} accepts a write only with a fencing token greater than the last
 * one it accepted ({@code UPDATE ... WHERE fence < :token}), as in
 * {@code docs/semantics.md}. Each attempt is recorded in {@code fenced_write}, accepted
 * or not. The run deliberately ignores an interrupt (a lease lost mid-run): it still
 * makes its write, retried until the database answers, so that a run cut off from the
 * store writes late and the fence has to reject it. Disabled unless the harness gives it
 * a cron expression ({@code node.cron.fenced}).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class FencedJob {

	/** The job's name suffix. */
	public static final String FENCED = "fenced";

	private static final Log logger = LogFactory.getLog(FencedJob.class);

	private static final Duration GIVE_UP = Duration.ofSeconds(60);

	private final Ledger ledger;

	private final String url;

	private final String nodeId;

	private final long runMillis;

	public FencedJob(Ledger ledger, @Value("${node.fenced-url:}") String url, @Value("${node.id}") String nodeId,
			@Value("${node.fenced-run-ms:3000}") long runMillis) {
		this.ledger = ledger;
		this.url = url;
		this.nodeId = nodeId;
		this.runMillis = runMillis;
	}

	@Scheduled(cron = "${node.cron.fenced:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + FENCED)
	public void fenced() throws InterruptedException {
		long token = ClusterSingletonContext.current().fencingToken();
		this.ledger.run(this.runMillis, false);
		// a job that does not stop when interrupted: only the fence stops its write
		boolean interrupted = Thread.interrupted();
		long deadline = System.nanoTime() + GIVE_UP.toNanos();
		while (true) {
			try {
				boolean accepted = write(token, interrupted);
				logger.info("[fenced] write with fencing token " + token + (accepted ? " accepted" : " rejected")
						+ (interrupted ? " (the run was interrupted)" : ""));
				return;
			}
			catch (SQLException ex) {
				if (System.nanoTime() > deadline) {
					logger.error("[fenced] write with fencing token " + token + " not made: " + ex);
					return;
				}
				Thread.sleep(200);
			}
		}
	}

	private boolean write(long token, boolean interrupted) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		properties.setProperty("connectTimeout", "2");
		properties.setProperty("socketTimeout", "5");
		try (Connection connection = DriverManager.getConnection(this.url, properties)) {
			connection.setAutoCommit(false);
			int updated;
			try (PreparedStatement update = connection.prepareStatement(
					"UPDATE fenced_account SET writes = writes + 1, fence = ?, node = ? WHERE id = 1 AND fence < ?")) {
				update.setLong(1, token);
				update.setString(2, this.nodeId);
				update.setLong(3, token);
				updated = update.executeUpdate();
			}
			try (PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO fenced_write (node, token, accepted, interrupted) VALUES (?, ?, ?, ?)")) {
				insert.setString(1, this.nodeId);
				insert.setLong(2, token);
				insert.setBoolean(3, updated == 1);
				insert.setBoolean(4, interrupted);
				insert.executeUpdate();
			}
			connection.commit();
			return updated == 1;
		}
	}

}
