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
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.dao.DataAccessException;
import org.springframework.util.Assert;
import org.springframework.util.StreamUtils;

/**
 * Creates the lease table and the run ledger's table of {@link JdbcLeaseBackend} by
 * running the {@code schema-<platform>.sql} script of the detected database, with the
 * configured table names substituted. The script is {@code CREATE TABLE IF NOT EXISTS},
 * so running it against an existing table changes nothing. A lease table created before
 * 0.2.0 gets the run columns ({@code run_slot}, {@code attempt}, {@code run_state},
 * {@code retry_at}), and one created before 0.3.0 the recovery mark ({@code recover_at}),
 * with {@code ALTER TABLE ... ADD COLUMN}; a node adding them at the same moment is
 * tolerated.
 * <p>
 * Safe when several nodes start at once against an empty database: concurrent
 * {@code CREATE TABLE IF NOT EXISTS} statements can still fail (PostgreSQL reports a
 * unique violation on its catalog, {@code pg_type_typname_nsp_index}), so an "already
 * exists" failure counts as success once the table answers a query.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class JdbcLeaseSchemaInitializer {

	private static final Log logger = LogFactory.getLog(JdbcLeaseSchemaInitializer.class);

	private static final Pattern DEFAULT_TABLE_NAME = Pattern
		.compile("\\b" + Pattern.quote(JdbcPlatform.DEFAULT_TABLE_NAME) + "\\b");

	private static final Pattern DEFAULT_RUN_TABLE_NAME = Pattern
		.compile("\\b" + Pattern.quote(JdbcPlatform.DEFAULT_RUN_TABLE_NAME) + "\\b");

	private static final Pattern DEFAULT_MANUAL_RUN_TABLE_NAME = Pattern
		.compile("\\b" + Pattern.quote(JdbcPlatform.DEFAULT_MANUAL_RUN_TABLE_NAME) + "\\b");

	/**
	 * SQL states of a column that exists already: PostgreSQL's duplicate_column, and
	 * "column already exists" of MySQL, MariaDB and H2.
	 */
	private static final Set<String> DUPLICATE_COLUMN_STATES = Set.of("42701", "42S21");

	/**
	 * MySQL/MariaDB's ER_DUP_FIELDNAME, for drivers that report a generic state.
	 */
	private static final int MYSQL_DUPLICATE_COLUMN = 1060;

	/**
	 * SQL states that mean the object was created concurrently: PostgreSQL's
	 * duplicate_table, duplicate_object and unique_violation (on its catalog), and the
	 * standard "base table or view already exists" of MySQL, MariaDB and H2.
	 */
	private static final Set<String> ALREADY_EXISTS_STATES = Set.of("42P07", "42710", "23505", "42S01");

	/**
	 * MySQL/MariaDB's ER_TABLE_EXISTS_ERROR, for drivers that report a generic state.
	 */
	private static final int MYSQL_TABLE_EXISTS = 1050;

	private final DataSource dataSource;

	private final ConnectionRunner connections;

	private final String tableName;

	private final String runTableName;

	private final DatabaseInitializationMode mode;

	/**
	 * Create a new instance.
	 * @param dataSource the data source of the database that holds the lease table
	 * @param tableName the name of the lease table, optionally schema-qualified
	 * @param mode when to create the table: {@code ALWAYS}, {@code EMBEDDED} (only on an
	 * embedded database) or {@code NEVER}
	 * @throws IllegalArgumentException when the table name is not an SQL identifier
	 */
	public JdbcLeaseSchemaInitializer(DataSource dataSource, String tableName, DatabaseInitializationMode mode) {
		this(dataSource, tableName, JdbcPlatform.DEFAULT_RUN_TABLE_NAME, mode);
	}

	/**
	 * Create a new instance.
	 * @param dataSource the data source of the database that holds the lease table
	 * @param tableName the name of the lease table, optionally schema-qualified
	 * @param runTableName the name of the run ledger's table, optionally schema-qualified
	 * @param mode when to create the tables: {@code ALWAYS}, {@code EMBEDDED} (only on an
	 * embedded database) or {@code NEVER}
	 * @throws IllegalArgumentException when a table name is not an SQL identifier
	 * @since 0.1.0
	 */
	public JdbcLeaseSchemaInitializer(DataSource dataSource, String tableName, String runTableName,
			DatabaseInitializationMode mode) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		Assert.notNull(mode, "'mode' must not be null");
		this.dataSource = dataSource;
		this.connections = new ConnectionRunner(dataSource);
		this.tableName = JdbcPlatform.validateTableName(tableName);
		this.runTableName = JdbcPlatform.validateTableName(runTableName, JdbcPlatform.RUN_TABLE_NAME_PROPERTY);
		this.mode = mode;
	}

	/**
	 * Create the lease table unless it exists, if the initialization mode applies to the
	 * database.
	 * @return {@code true} when the schema script ran (whether or not the table existed
	 * before), {@code false} when the mode skipped it
	 * @throws DataAccessException when the script fails
	 * @throws IllegalStateException when the database is not supported
	 */
	public boolean initialize() {
		if (!isEnabled()) {
			return false;
		}
		try {
			this.connections.run((connection) -> {
				JdbcPlatform platform = JdbcPlatform.of(connection);
				PlatformStatements statements = PlatformStatements.of(platform, this.tableName, this.runTableName);
				for (String sql : statements(platform)) {
					execute(connection, sql, statements);
				}
				addRunColumns(connection, statements.schemaUpgrade());
				return null;
			});
		}
		catch (SQLException ex) {
			throw ConnectionRunner
				.translate("Failed to initialize cluster-singleton lease table '" + this.tableName + "'", ex);
		}
		return true;
	}

	private boolean isEnabled() {
		return switch (this.mode) {
			case ALWAYS -> true;
			case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(this.dataSource);
			case NEVER -> false;
		};
	}

	private void execute(Connection connection, String sql, PlatformStatements statements) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			if (!isAlreadyExists(ex)) {
				throw ex;
			}
			// Another node created the table at the same moment: success once it answers
			try {
				if (creates(sql, this.runTableName)) {
					statements.runLedger().probeRunTable(connection);
				}
				else if (creates(sql, JdbcPlatform.manualRunTableName(this.tableName))) {
					statements.manualRuns().probe(connection);
				}
				else {
					statements.lease().probe(connection);
				}
			}
			catch (SQLException probeFailure) {
				ex.addSuppressed(probeFailure);
				throw ex;
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Lease table '" + this.tableName + "' was created concurrently (SQL state "
						+ ex.getSQLState() + "): " + ex.getMessage());
			}
		}
	}

	/**
	 * Add the run and control columns that an earlier version's lease table lacks. A node
	 * that adds them at the same moment makes this fail with "duplicate column", which is
	 * success once the columns are there.
	 */
	private void addRunColumns(Connection connection, SchemaUpgrade upgrade) throws SQLException {
		for (String column : upgrade.missingColumns(connection)) {
			String sql = upgrade.addColumnStatement(column);
			try (Statement statement = connection.createStatement()) {
				statement.execute(sql);
				logger.info("Added column '" + column + "' to cluster-singleton lease table '" + this.tableName + "': "
						+ sql);
			}
			catch (SQLException ex) {
				if (!isDuplicateColumn(ex) && !isAlreadyExists(ex)) {
					throw ex;
				}
				if (upgrade.missingColumns(connection).contains(column)) {
					throw ex;
				}
				if (logger.isDebugEnabled()) {
					logger.debug("Column '" + column + "' of lease table '" + this.tableName
							+ "' was added concurrently (SQL state " + ex.getSQLState() + "): " + ex.getMessage());
				}
			}
		}
	}

	private static boolean creates(String sql, String table) {
		return Pattern
			.compile("\\bTABLE\\s+IF\\s+NOT\\s+EXISTS\\s+" + Pattern.quote(table) + "\\b", Pattern.CASE_INSENSITIVE)
			.matcher(sql)
			.find();
	}

	private static boolean isDuplicateColumn(SQLException ex) {
		return DUPLICATE_COLUMN_STATES.contains(ex.getSQLState()) || ex.getErrorCode() == MYSQL_DUPLICATE_COLUMN;
	}

	private static boolean isAlreadyExists(SQLException ex) {
		return ALREADY_EXISTS_STATES.contains(ex.getSQLState()) || ex.getErrorCode() == MYSQL_TABLE_EXISTS;
	}

	private List<String> statements(JdbcPlatform platform) {
		String script = DEFAULT_TABLE_NAME.matcher(read(platform.schemaLocation()))
			.replaceAll(Matcher.quoteReplacement(this.tableName));
		script = DEFAULT_RUN_TABLE_NAME.matcher(script).replaceAll(Matcher.quoteReplacement(this.runTableName));
		script = DEFAULT_MANUAL_RUN_TABLE_NAME.matcher(script)
			.replaceAll(Matcher.quoteReplacement(JdbcPlatform.manualRunTableName(this.tableName)));
		StringBuilder withoutComments = new StringBuilder();
		for (String line : script.split("\\R")) {
			if (!line.trim().startsWith("--")) {
				withoutComments.append(line).append('\n');
			}
		}
		List<String> statements = new ArrayList<>();
		for (String statement : withoutComments.toString().split(";")) {
			if (!statement.isBlank()) {
				statements.add(statement.trim());
			}
		}
		return statements;
	}

	private static String read(String location) {
		ClassLoader classLoader = JdbcLeaseSchemaInitializer.class.getClassLoader();
		try (InputStream in = classLoader.getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Schema script '" + location + "' not found on the class path");
			}
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Failed to read schema script '" + location + "'", ex);
		}
	}

}
