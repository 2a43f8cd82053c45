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
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The databases the JDBC lease backend supports, with the name of each one's schema
 * script: the one place that tells a database from its connection's metadata, for the
 * lease store and the ShedLock bridge alike.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public enum JdbcPlatform {

	/**
	 * PostgreSQL.
	 */
	POSTGRESQL("postgresql"),

	/**
	 * MariaDB.
	 */
	MARIADB("mariadb"),

	/**
	 * MySQL.
	 */
	MYSQL("mysql"),

	/**
	 * H2.
	 */
	H2("h2");

	/**
	 * The name of the property that configures the table name, for error messages.
	 */
	static final String TABLE_NAME_PROPERTY = "cluster-singleton.jdbc.table-name";

	/**
	 * The default table name, also the one the schema scripts use.
	 */
	static final String DEFAULT_TABLE_NAME = "cluster_singleton_lease";

	/**
	 * The name of the property that configures the run table name, for error messages.
	 */
	static final String RUN_TABLE_NAME_PROPERTY = "cluster-singleton.jdbc.run-table-name";

	/**
	 * The default name of the run ledger's table, also the one the schema scripts use.
	 */
	static final String DEFAULT_RUN_TABLE_NAME = "cluster_singleton_run";

	/**
	 * The suffix of the lease table's name that the name of the run-now request table
	 * replaces, when the lease table's name ends with it.
	 */
	private static final String LEASE_SUFFIX = "_lease";

	static final String DEFAULT_MANUAL_RUN_TABLE_NAME = "cluster_singleton_manual_run";

	private final String id;

	JdbcPlatform(String id) {
		this.id = id;
	}

	/**
	 * Return the platform identifier, as used in {@code schema-<id>.sql}.
	 * @return the identifier
	 */
	String id() {
		return this.id;
	}

	/**
	 * Return the class path location of this platform's schema script.
	 * @return the location
	 */
	String schemaLocation() {
		return "io/github/clustersingleton/jdbc/schema-" + this.id + ".sql";
	}

	/**
	 * Detect the platform of a connection from its metadata.
	 * @param connection the connection
	 * @return the platform
	 * @throws SQLException when the metadata cannot be read
	 * @throws IllegalStateException when the database is not supported
	 */
	static JdbcPlatform of(Connection connection) throws SQLException {
		return of(connection, (product) -> new IllegalStateException("The cluster-singleton JDBC lease backend does "
				+ "not support database '" + product + "'; supported are PostgreSQL, MySQL/MariaDB and H2"));
	}

	/**
	 * Detect the platform of a connection from its metadata.
	 * @param connection the connection
	 * @param unsupported the error for a database that is not supported, given its
	 * product name
	 * @return the platform
	 * @throws SQLException when the metadata cannot be read
	 * @since 0.1.0
	 */
	public static JdbcPlatform of(Connection connection,
			Function<@Nullable String, ? extends RuntimeException> unsupported) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		String product = metaData.getDatabaseProductName();
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		if (name.contains("postgresql")) {
			return POSTGRESQL;
		}
		if (name.contains("mariadb")) {
			return MARIADB;
		}
		if (name.contains("mysql")) {
			// MySQL's driver reports a MariaDB server as "MySQL"; its version tells
			String version = metaData.getDatabaseProductVersion();
			return (version != null && version.toLowerCase(Locale.ROOT).contains("mariadb")) ? MARIADB : MYSQL;
		}
		if (name.equals("h2")) {
			return H2;
		}
		throw unsupported.apply(product);
	}

	/**
	 * Check that a table name is an SQL identifier, optionally schema-qualified.
	 * @param tableName the table name
	 * @return the table name
	 * @throws IllegalArgumentException when it is not
	 */
	static String validateTableName(String tableName) {
		return validateTableName(tableName, TABLE_NAME_PROPERTY);
	}

	/**
	 * Check that a table name is an SQL identifier, optionally schema-qualified.
	 * @param tableName the table name
	 * @param property the property that configures it, for the message
	 * @return the table name
	 * @throws IllegalArgumentException when it is not
	 */
	static String validateTableName(String tableName, String property) {
		if (!SqlTableNames.isValid(tableName)) {
			throw new IllegalArgumentException("Invalid table name '" + tableName + "' in property " + property
					+ ": expected an SQL identifier, optionally schema-qualified "
					+ "(letters, digits and underscores, not starting with a digit, such as "
					+ "'cluster_singleton_lease' or 'myschema.cluster_singleton_lease')");
		}
		return tableName;
	}

	/**
	 * Return the name of the table of run-now requests that goes with a lease table: the
	 * lease table's name with {@code _lease} replaced by {@code _manual_run}, else with
	 * {@code _manual_run} appended (in the lease table's schema, if it names one).
	 * @param tableName the validated name of the lease table
	 * @return the name of the run-now request table
	 */
	static String manualRunTableName(String tableName) {
		String base = tableName.regionMatches(true, tableName.length() - LEASE_SUFFIX.length(), LEASE_SUFFIX, 0,
				LEASE_SUFFIX.length()) ? tableName.substring(0, tableName.length() - LEASE_SUFFIX.length()) : tableName;
		return base + "_manual_run";
	}

}
