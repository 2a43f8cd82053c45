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

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.test.TestStores;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.DirectoryResourceAccessor;
import org.flywaydb.core.Flyway;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ScriptUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Flyway migrations in {@code docs/ops/flyway/<platform>/} and the Liquibase
 * changelog in {@code docs/ops/liquibase/} create, on real databases, the same lease and
 * run tables as the {@code schema-<platform>.sql} scripts of the jar: same columns in the
 * same order, with the same types, sizes, nullability and primary keys (on MariaDB also
 * the same collations and storage engine). Each side is created in a fresh schema
 * (PostgreSQL), database (MariaDB) or in-memory database (H2) and read back through
 * {@link DatabaseMetaData}.
 *
 * @author cluster-singleton contributors
 */
class JdbcMigrationDocumentationTests {

	private static final Path OPS = Path.of("..", "docs", "ops");

	private static final Path FLYWAY = OPS.resolve("flyway");

	private static final Path LIQUIBASE = OPS.resolve("liquibase");

	private static final String CHANGELOG = "cluster-singleton.changelog.yaml";

	private static final List<String> TABLES = List.of("cluster_singleton_lease", "cluster_singleton_run",
			"cluster_singleton_manual_run");

	@Test
	void flywayOnPostgresqlCreatesTheTablesOfTheSchemaScript() throws Exception {
		onPostgresql((pool, schema) -> flyway(pool, schema, "postgresql"));
	}

	@Test
	void liquibaseOnPostgresqlCreatesTheTablesOfTheSchemaScript() throws Exception {
		onPostgresql((pool, schema) -> liquibase(pool, schema, "SET search_path TO " + schema));
	}

	@Test
	void flywayOnMariadbCreatesTheTablesOfTheSchemaScript() throws Exception {
		onMariadb("mariadb", (pool, database) -> flyway(pool, database, "mariadb"));
	}

	@Test
	void flywayForMysqlOnMariadbCreatesTheTablesOfTheSchemaScript() throws Exception {
		onMariadb("mysql", (pool, database) -> flyway(pool, database, "mysql"));
	}

	@Test
	void liquibaseOnMariadbCreatesTheTablesOfTheSchemaScript() throws Exception {
		onMariadb("mariadb", (pool, database) -> liquibase(pool, database, "USE " + database));
	}

	@Test
	void flywayOnH2CreatesTheTablesOfTheSchemaScript() throws Exception {
		onH2((pool) -> flyway(pool, null, "h2"));
	}

	@Test
	void liquibaseOnH2CreatesTheTablesOfTheSchemaScript() throws Exception {
		onH2((pool) -> liquibase(pool, null, null));
	}

	@Test
	void everyPlatformHasAFlywayMigration() {
		for (String platform : List.of("postgresql", "mysql", "mariadb", "h2")) {
			assertThat(FLYWAY.resolve(platform).resolve("V1__cluster_singleton.sql")).isRegularFile();
			assertThat(new ClassPathResource("io/github/clustersingleton/jdbc/schema-" + platform + ".sql").exists())
				.isTrue();
		}
		assertThat(LIQUIBASE.resolve(CHANGELOG)).isRegularFile();
	}

	private void onPostgresql(Migration migration) throws Exception {
		String expected = freshName();
		String actual = freshName();
		try (HikariDataSource pool = TestStores.postgresDataSource()) {
			try {
				execute(pool, "CREATE SCHEMA " + expected);
				schemaScript(pool, "postgresql", "SET search_path TO " + expected);
				migration.apply(pool, actual);
				assertThat(describe(pool, null, actual)).isEqualTo(describe(pool, null, expected));
			}
			finally {
				execute(pool, "DROP SCHEMA IF EXISTS " + expected + " CASCADE");
				execute(pool, "DROP SCHEMA IF EXISTS " + actual + " CASCADE");
			}
		}
	}

	private void onMariadb(String platform, Migration migration) throws Exception {
		String expected = freshName();
		String actual = freshName();
		try (HikariDataSource pool = TestStores.mariadbDataSource()) {
			try {
				execute(pool, "CREATE DATABASE " + expected);
				schemaScript(pool, platform, "USE " + expected);
				migration.apply(pool, actual);
				assertThat(describe(pool, actual, null)).isEqualTo(describe(pool, expected, null));
			}
			finally {
				execute(pool, "DROP DATABASE IF EXISTS " + expected);
				execute(pool, "DROP DATABASE IF EXISTS " + actual);
			}
		}
	}

	private void onH2(H2Migration migration) throws Exception {
		try (HikariDataSource expected = TestStores.h2DataSource();
				HikariDataSource actual = TestStores.h2DataSource()) {
			schemaScript(expected, "h2", null);
			migration.apply(actual);
			assertThat(describe(actual, null, "PUBLIC")).isEqualTo(describe(expected, null, "PUBLIC"));
		}
	}

	private void flyway(DataSource dataSource, @Nullable String schema, String platform) {
		var configuration = Flyway.configure()
			.dataSource(dataSource)
			.locations("filesystem:" + FLYWAY.resolve(platform).toAbsolutePath());
		if (schema != null) {
			// creates the schema (PostgreSQL) or database (MariaDB) and migrates in it
			configuration.schemas(schema);
		}
		assertThat(configuration.load().migrate().migrationsExecuted).isOne();
	}

	@SuppressWarnings("deprecation")
	private void liquibase(DataSource dataSource, @Nullable String schema, @Nullable String switchSql)
			throws Exception {
		if (schema != null) {
			execute(dataSource, (switchSql.startsWith("USE") ? "CREATE DATABASE " : "CREATE SCHEMA ") + schema);
		}
		try (Connection connection = dataSource.getConnection()) {
			if (switchSql != null) {
				try (Statement statement = connection.createStatement()) {
					statement.execute(switchSql);
				}
			}
			Database database = DatabaseFactory.getInstance()
				.findCorrectDatabaseImplementation(new JdbcConnection(connection));
			if (schema != null) {
				database.setDefaultSchemaName(schema);
			}
			Liquibase liquibase = new Liquibase(CHANGELOG, new DirectoryResourceAccessor(LIQUIBASE), database);
			liquibase.update("");
		}
	}

	private static void schemaScript(DataSource dataSource, String platform, @Nullable String switchSql)
			throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			if (switchSql != null) {
				try (Statement statement = connection.createStatement()) {
					statement.execute(switchSql);
				}
			}
			ScriptUtils.executeSqlScript(connection,
					new ClassPathResource("io/github/clustersingleton/jdbc/schema-" + platform + ".sql"));
		}
	}

	/**
	 * Describe the lease and run tables of one schema, one line per column and one per
	 * primary key, and check that the schema holds no other table than the tools' own.
	 */
	private static String describe(DataSource dataSource, @Nullable String catalog, @Nullable String schema)
			throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			List<String> lines = new ArrayList<>();
			List<String> tables = new ArrayList<>();
			try (ResultSet rows = metaData.getTables(catalog, schema, null, new String[] { "TABLE" })) {
				while (rows.next()) {
					String table = rows.getString("TABLE_NAME").toLowerCase(Locale.ROOT);
					if (!table.startsWith("flyway_") && !table.startsWith("databasechangelog")) {
						tables.add(table);
					}
				}
			}
			assertThat(tables).as("tables in %s", (catalog != null) ? catalog : schema)
				.containsExactlyInAnyOrderElementsOf(TABLES);
			for (String table : TABLES) {
				String name = metaData.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
				try (ResultSet rows = metaData.getColumns(catalog, schema, name, null)) {
					while (rows.next()) {
						lines.add(String.format(Locale.ROOT, "%s.%s #%d %s(%d,%d) nullable=%s", table,
								rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT), rows.getInt("ORDINAL_POSITION"),
								rows.getString("TYPE_NAME"), rows.getInt("COLUMN_SIZE"), rows.getInt("DECIMAL_DIGITS"),
								rows.getString("IS_NULLABLE")));
					}
				}
				TreeMap<Integer, String> key = new TreeMap<>();
				try (ResultSet rows = metaData.getPrimaryKeys(catalog, schema, name)) {
					while (rows.next()) {
						key.put(rows.getInt("KEY_SEQ"), rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
					}
				}
				lines.add(table + " primary key " + key.values());
			}
			if (catalog != null) {
				lines.addAll(mariadbDetails(connection, catalog));
			}
			return String.join("\n", lines);
		}
	}

	/**
	 * The collations and engines, which {@link DatabaseMetaData} does not report.
	 */
	private static List<String> mariadbDetails(Connection connection, String database) throws SQLException {
		List<String> lines = new ArrayList<>();
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT table_name, column_name, collation_name "
						+ "FROM information_schema.columns WHERE table_schema = '" + database
						+ "' AND table_name LIKE 'cluster_singleton_%' ORDER BY table_name, ordinal_position")) {
			while (rows.next()) {
				lines.add(rows.getString(1) + "." + rows.getString(2) + " collation " + rows.getString(3));
			}
		}
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement
					.executeQuery("SELECT table_name, engine FROM information_schema.tables " + "WHERE table_schema = '"
							+ database + "' AND table_name LIKE 'cluster_singleton_%' " + "ORDER BY table_name")) {
			while (rows.next()) {
				lines.add(rows.getString(1) + " engine " + rows.getString(2));
			}
		}
		// both tables found (the lines themselves are compared with the schema script's)
		assertThat(lines).as("collations and engines in %s", database)
			.anyMatch((line) -> line.startsWith("cluster_singleton_lease engine "))
			.anyMatch((line) -> line.startsWith("cluster_singleton_run engine "));
		return lines;
	}

	private static void execute(DataSource dataSource, String sql) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	private static String freshName() {
		return "cs_ops_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
	}

	@FunctionalInterface
	private interface Migration {

		void apply(DataSource dataSource, String schema) throws Exception;

	}

	@FunctionalInterface
	private interface H2Migration {

		void apply(DataSource dataSource) throws Exception;

	}

}
