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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.clustersingleton.ClusterSingletonConfigurationException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.util.Assert;

/**
 * The startup check of {@link JdbcLeaseBackend}'s tables: the lease table answers, has
 * the run columns, the run table answers, and other nodes can reach the database.
 *
 * @author cluster-singleton contributors
 */
final class JdbcStoreCheck {

	private static final Log logger = LogFactory.getLog(JdbcLeaseBackend.class);

	private final JdbcLeaseBackend backend;

	JdbcStoreCheck(JdbcLeaseBackend backend) {
		this.backend = backend;
	}

	/**
	 * Initialize the backend's store: see {@link JdbcLeaseBackend#initialize()}.
	 * @param backend the backend
	 * @param initializer its schema initializer, if any
	 */
	static void initialize(JdbcLeaseBackend backend, @Nullable JdbcLeaseSchemaInitializer initializer) {
		String tableName = backend.getTableName();
		RuntimeException initializationFailure = null;
		if (initializer != null) {
			try {
				initializer.initialize();
			}
			catch (DataAccessResourceFailureException | TransientDataAccessException ex) {
				logger.warn("cluster-singleton could not reach the database to create lease table '" + tableName
						+ "'; runs are skipped until it answers: " + ex.getMessage());
				return;
			}
			catch (RuntimeException ex) {
				initializationFailure = ex;
			}
		}
		try {
			new JdbcStoreCheck(backend).run();
			if (initializationFailure != null) {
				logger.info("cluster-singleton could not run its CREATE TABLE for '" + tableName
						+ "' but the table exists, so it is used as it is: " + initializationFailure.getMessage());
			}
		}
		catch (IllegalStateException ex) {
			throw new ClusterSingletonConfigurationException(ex.getMessage(), ex);
		}
		catch (InvalidDataAccessResourceUsageException ex) {
			ClusterSingletonConfigurationException failure = new ClusterSingletonConfigurationException(
					"The cluster-singleton lease table '" + tableName + "' cannot be used: "
							+ JdbcStoreCheck.mostSpecificMessage(ex) + ". Let cluster-singleton create it with "
							+ "cluster-singleton.jdbc.initialize-schema=always, or create it yourself with the DDL in "
							+ "io/github/clustersingleton/jdbc/schema-<platform>.sql (see docs/jdbc.md), or point "
							+ "cluster-singleton.jdbc.table-name at the right table",
					ex);
			if (initializationFailure != null) {
				failure.addSuppressed(initializationFailure);
			}
			throw failure;
		}
		catch (DataAccessException ex) {
			logger.warn("cluster-singleton could not check lease table '" + tableName
					+ "'; runs are skipped until the database answers: " + ex.getMessage());
		}
	}

	/**
	 * Check that the lease table answers and has the run columns and that the run table
	 * answers; warn when no other node can share the database.
	 * @throws IllegalStateException when a table cannot be used
	 * @throws org.springframework.dao.DataAccessException when a query fails
	 */
	void run() {
		this.backend.probe();
		checkRunColumnsAndTable();
		warnIfNoOtherNodeCanShare();
	}

	/**
	 * Fail when the lease table lacks the run columns (a table created before 0.2.0 that
	 * the schema initializer did not upgrade) or the run table is missing, naming what is
	 * missing and the statements that fix it.
	 */
	private void checkRunColumnsAndTable() {
		List<String> missing = this.backend.execute("read the columns", (connection, statements) -> {
			List<String> columns = statements.schemaUpgrade().missingColumns(connection);
			if (!columns.isEmpty()) {
				throw new IllegalStateException("The cluster-singleton lease table '" + this.backend.getTableName()
						+ "' lacks the column(s) " + String.join(", ", columns)
						+ " that recovery, catch-up, the run ledger and the controls need (the table was created by an "
						+ "earlier " + "version). Add them with: "
						+ columns.stream()
							.map(statements.schemaUpgrade()::addColumnStatement)
							.collect(Collectors.joining("; "))
						+ "; or let cluster-singleton add them with cluster-singleton.jdbc.initialize-schema=always");
			}
			return columns;
		});
		Assert.state(missing.isEmpty(), "Unexpected missing columns");
		this.backend.executeOnRunTable("probe the run table", (connection, statements) -> {
			try {
				statements.runLedger().probeRunTable(connection);
			}
			catch (SQLException ex) {
				if (ex.getSQLState() != null && ex.getSQLState().startsWith("08")) {
					throw ex;
				}
				throw new IllegalStateException("The cluster-singleton run table '" + this.backend.getRunTableName()
						+ "' cannot be used: " + ex.getMessage() + ". Let cluster-singleton create it with "
						+ "cluster-singleton.jdbc.initialize-schema=always, or create it yourself with the DDL in "
						+ "io/github/clustersingleton/jdbc/schema-<platform>.sql (see docs/jdbc.md), or point "
						+ JdbcPlatform.RUN_TABLE_NAME_PROPERTY + " at the right table", ex);
			}
			return Boolean.TRUE;
		});
		this.backend.executeOnManualRunTable("probe the run-now request table", (connection, statements) -> {
			try {
				statements.manualRuns().probe(connection);
			}
			catch (SQLException ex) {
				if (ex.getSQLState() != null && ex.getSQLState().startsWith("08")) {
					throw ex;
				}
				throw new IllegalStateException("The cluster-singleton run-now request table '"
						+ this.backend.getManualRunTableName() + "' cannot be used: " + ex.getMessage()
						+ ". Let cluster-singleton create it with cluster-singleton.jdbc.initialize-schema=always, "
						+ "or create it yourself with the DDL in io/github/clustersingleton/jdbc/schema-<platform>.sql "
						+ "(see docs/jdbc.md); its name follows " + JdbcPlatform.TABLE_NAME_PROPERTY, ex);
			}
			return Boolean.TRUE;
		});
	}

	/**
	 * Warn when the lease table lives in an H2 database that only this JVM can open (in
	 * memory, or a file without {@code AUTO_SERVER}): every node then has a table of its
	 * own and nothing is excluded across nodes.
	 */
	private void warnIfNoOtherNodeCanShare() {
		String url = this.backend.execute("read the database URL",
				(connection, statements) -> (statements.platform() == JdbcPlatform.H2)
						? String.valueOf(connection.getMetaData().getURL()) : null);
		if (url != null && isPrivateH2(url)) {
			logger.warn("cluster-singleton keeps its leases in H2 database '" + url + "', which only this JVM can "
					+ "open: other nodes have lease tables of their own, so nothing keeps them from running the same "
					+ "jobs. Use a database every node reaches (PostgreSQL, MySQL, MariaDB, an H2 server, or an H2 "
					+ "file with AUTO_SERVER=TRUE on one machine)");
		}
	}

	/**
	 * Return whether an H2 database URL, as the connection reports it, names a database
	 * no other JVM can open: an in-memory one, or a file that no H2 server serves. A file
	 * opened with {@code AUTO_SERVER=TRUE} has a lock file next to it that names the
	 * server other JVMs connect to (the connection's URL no longer shows the setting).
	 * @param url the database URL
	 * @return whether only this JVM can open the database
	 */
	/**
	 * Return the message of the innermost cause of a failure: the driver's own words.
	 * @param ex the failure
	 * @return the message
	 */
	static String mostSpecificMessage(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return String.valueOf(cause.getMessage());
	}

	static boolean isPrivateH2(String url) {
		if (!url.regionMatches(true, 0, "jdbc:h2:", 0, 8)) {
			return false;
		}
		String location = url.substring(8);
		String lower = location.toLowerCase(Locale.ROOT);
		if (lower.startsWith("tcp:") || lower.startsWith("ssl:")) {
			return false;
		}
		if (lower.startsWith("mem:")) {
			return true;
		}
		String path = lower.startsWith("file:") ? location.substring(5) : location;
		int settings = path.indexOf(';');
		path = (settings >= 0) ? path.substring(0, settings) : path;
		if (path.startsWith("~")) {
			path = System.getProperty("user.home") + path.substring(1);
		}
		try {
			return !Files.readString(Path.of(path + ".lock.db"), StandardCharsets.ISO_8859_1).contains("server=");
		}
		catch (IOException | RuntimeException ex) {
			return true;
		}
	}

}
