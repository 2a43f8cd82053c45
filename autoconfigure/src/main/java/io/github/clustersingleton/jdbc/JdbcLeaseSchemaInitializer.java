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
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.util.Assert;
import org.springframework.util.StreamUtils;

/**
 * Creates the lease table of {@link JdbcLeaseBackend} by running the
 * {@code schema-<platform>.sql} script of the detected database, with the configured
 * table name substituted. The script is {@code CREATE TABLE IF NOT EXISTS}, so running it
 * against an existing table changes nothing.
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

	private final String tableName;

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
		Assert.notNull(dataSource, "'dataSource' must not be null");
		Assert.notNull(mode, "'mode' must not be null");
		this.dataSource = dataSource;
		this.tableName = JdbcPlatform.validateTableName(tableName);
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
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			if (!autoCommit) {
				connection.setAutoCommit(true);
			}
			try {
				JdbcPlatform platform = JdbcPlatform.of(connection);
				JdbcDialect dialect = JdbcDialect.of(platform, this.tableName);
				for (String sql : statements(platform)) {
					execute(connection, sql, dialect);
				}
			}
			finally {
				if (!autoCommit) {
					connection.setAutoCommit(false);
				}
			}
		}
		catch (SQLException ex) {
			String task = "Failed to initialize cluster-singleton lease table '" + this.tableName + "'";
			DataAccessException translated = new SQLExceptionSubclassTranslator().translate(task, null, ex);
			throw (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
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

	private void execute(Connection connection, String sql, JdbcDialect dialect) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			if (!isAlreadyExists(ex)) {
				throw ex;
			}
			// Another node created the table at the same moment: success once it answers
			try {
				dialect.probe(connection);
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

	private static boolean isAlreadyExists(SQLException ex) {
		return ALREADY_EXISTS_STATES.contains(ex.getSQLState()) || ex.getErrorCode() == MYSQL_TABLE_EXISTS;
	}

	private List<String> statements(JdbcPlatform platform) {
		String script = DEFAULT_TABLE_NAME.matcher(read(platform.schemaLocation()))
			.replaceAll(Matcher.quoteReplacement(this.tableName));
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
