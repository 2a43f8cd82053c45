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
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.util.Assert;

/**
 * One SQL statement of the lease table, read from a resource next to this class
 * ({@code <platform>/<name>.sql}) so that the SQL that runs is the SQL a DBA reads. The
 * file names the table {@code ${table}}, replaced once when the statement is loaded, and
 * takes named parameters ({@code :name}), bound by {@link #prepare}; a parameter bound to
 * a collection expands to one placeholder per element, for {@code IN} lists.
 *
 * @author cluster-singleton contributors
 */
final class JdbcStatement {

	private static final String TABLE_PLACEHOLDER = "${table}";

	private static final String RUN_TABLE_PLACEHOLDER = "${runTable}";

	private static final String MANUAL_RUN_TABLE_PLACEHOLDER = "${manualRunTable}";

	private final String resource;

	private final ParsedSql parsedSql;

	private final @Nullable String fixedSql;

	private JdbcStatement(String resource, String sql, boolean expandsLists) {
		this.resource = resource;
		this.parsedSql = NamedParameterUtils.parseSqlStatement(sql);
		// without IN lists the JDBC SQL is the same for every call: build it once
		this.fixedSql = expandsLists ? null : NamedParameterUtils.substituteNamedParameters(this.parsedSql, null);
	}

	/**
	 * Load a statement.
	 * @param platform the platform directory ({@code postgresql}, {@code mysql}, ...)
	 * @param name the statement's file name without {@code .sql}
	 * @param table the validated table name
	 * @param expandsLists whether some parameter is bound to a collection
	 * @return the statement
	 */
	static JdbcStatement load(String platform, String name, String table, boolean expandsLists) {
		String resource = location(platform, name);
		return new JdbcStatement(resource, withoutCommentLines(read(resource)).replace(TABLE_PLACEHOLDER, table),
				expandsLists);
	}

	/**
	 * Load a statement that may also name the run table, as {@code ${runTable}}.
	 * @param platform the platform directory ({@code postgresql}, {@code mysql}, ...)
	 * @param name the statement's file name without {@code .sql}
	 * @param table the validated lease table name
	 * @param runTable the validated run table name
	 * @param expandsLists whether some parameter is bound to a collection
	 * @return the statement
	 */
	static JdbcStatement load(String platform, String name, String table, String runTable, boolean expandsLists) {
		String resource = location(platform, name);
		return new JdbcStatement(resource, withoutCommentLines(read(resource)).replace(RUN_TABLE_PLACEHOLDER, runTable)
			.replace(TABLE_PLACEHOLDER, table), expandsLists);
	}

	/**
	 * Load a statement made of one statement's file followed by a clause of another's,
	 * such as MariaDB's {@code RETURNING} after MySQL's upsert.
	 * @param statement the statement's platform directory and file name
	 * @param clause the clause's platform directory and file name
	 * @param table the validated table name
	 * @return the statement
	 */
	/**
	 * Load a statement of the controls, which may name the lease table, as
	 * {@code ${table}}, and the run-now request table, as {@code ${manualRunTable}}.
	 * @param platform the platform's directory
	 * @param name the statement's name
	 * @param table the validated lease table name
	 * @param manualRunTable the validated run-now request table name
	 * @param expandsLists whether the statement has list parameters
	 * @return the statement
	 */
	static JdbcStatement loadControl(String platform, String name, String table, String manualRunTable,
			boolean expandsLists) {
		String resource = location(platform, name);
		return new JdbcStatement(resource,
				withoutCommentLines(read(resource)).replace(MANUAL_RUN_TABLE_PLACEHOLDER, manualRunTable)
					.replace(TABLE_PLACEHOLDER, table),
				expandsLists);
	}

	static JdbcStatement load(String[] statement, String[] clause, String table) {
		String first = location(statement[0], statement[1]);
		String second = location(clause[0], clause[1]);
		String sql = withoutCommentLines(read(first)) + "\n" + withoutCommentLines(read(second));
		return new JdbcStatement(first + " + " + second, sql.replace(TABLE_PLACEHOLDER, table), false);
	}

	/**
	 * Drop the lines that are only a comment: they are for the reader, not the wire.
	 */
	private static String withoutCommentLines(String sql) {
		return sql.lines().filter((line) -> !line.strip().startsWith("--")).collect(Collectors.joining("\n"));
	}

	/**
	 * Load a statement that only some platforms have, as
	 * {@link #load(String, String, String, String, boolean)} does.
	 * @param platform the platform directory
	 * @param name the statement's file name without {@code .sql}
	 * @param table the lease table
	 * @param runTable the run table
	 * @param expandsLists whether list parameters expand
	 * @return the statement, or {@code null} when the platform has no such file
	 */
	static @Nullable JdbcStatement loadIfPresent(String platform, String name, String table, String runTable,
			boolean expandsLists) {
		if (JdbcStatement.class.getClassLoader().getResource(location(platform, name)) == null) {
			return null;
		}
		return load(platform, name, table, runTable, expandsLists);
	}

	/**
	 * Return the class path location of a statement's file.
	 * @param platform the platform directory
	 * @param name the statement's file name without {@code .sql}
	 * @return the location
	 */
	static String location(String platform, String name) {
		return "io/github/clustersingleton/jdbc/" + platform + "/" + name + ".sql";
	}

	/**
	 * Read a statement's file as it is.
	 * @param resource the class path location
	 * @return the file's text
	 * @throws IllegalStateException when it is missing
	 */
	static String read(String resource) {
		try (InputStream in = JdbcStatement.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("cluster-singleton SQL resource '" + resource + "' is missing");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to read cluster-singleton SQL resource '" + resource + "'", ex);
		}
	}

	/**
	 * Prepare the statement with its parameters bound. A parameter given as an
	 * {@link SqlParameterValue} whose value is {@code null} is bound as SQL {@code NULL}
	 * of that type.
	 * @param connection the connection
	 * @param parameters the parameters by name
	 * @return the prepared statement, for the caller to execute and close
	 * @throws SQLException on a driver error
	 */
	PreparedStatement prepare(Connection connection, MapSqlParameterSource parameters) throws SQLException {
		return prepare(connection, parameters, false);
	}

	/**
	 * Prepare the statement with its parameters bound, optionally asking the driver for
	 * the keys the statement generates.
	 * @param connection the connection
	 * @param parameters the parameters by name
	 * @param returnGeneratedKeys whether {@link PreparedStatement#getGeneratedKeys()} is
	 * to be read
	 * @return the prepared statement, for the caller to execute and close
	 * @throws SQLException on a driver error
	 */
	PreparedStatement prepare(Connection connection, MapSqlParameterSource parameters, boolean returnGeneratedKeys)
			throws SQLException {
		String sql = (this.fixedSql != null) ? this.fixedSql
				: NamedParameterUtils.substituteNamedParameters(this.parsedSql, parameters);
		Object[] values = NamedParameterUtils.buildValueArray(this.parsedSql, parameters, null);
		PreparedStatement statement = returnGeneratedKeys
				? connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS) : connection.prepareStatement(sql);
		try {
			int index = 1;
			for (Object value : values) {
				if (value instanceof Collection<?> items) {
					for (Object item : items) {
						if (item instanceof Object[] row) {
							for (Object column : row) {
								bind(statement, index++, column);
							}
						}
						else {
							bind(statement, index++, item);
						}
					}
				}
				else {
					bind(statement, index++, value);
				}
			}
			return statement;
		}
		catch (SQLException | RuntimeException ex) {
			statement.close();
			throw ex;
		}
	}

	/**
	 * Prepare several statements as one, separated by semicolons, with their parameters
	 * bound in order: a driver that sends such a statement in one round trip
	 * (PostgreSQL's) runs them in one transaction and returns one result per statement.
	 * @param connection the connection
	 * @param statements the statements, none expanding lists
	 * @param parameters the parameters of each statement, by name
	 * @return the prepared statement, for the caller to execute and close
	 * @throws SQLException on a driver error
	 */
	static PreparedStatement prepareAll(Connection connection, List<JdbcStatement> statements,
			List<MapSqlParameterSource> parameters) throws SQLException {
		StringBuilder sql = new StringBuilder();
		List<Object> values = new ArrayList<>();
		for (int i = 0; i < statements.size(); i++) {
			JdbcStatement statement = statements.get(i);
			Assert.state(statement.fixedSql != null, () -> statement + " expands lists");
			String one = statement.fixedSql.strip();
			sql.append((i > 0) ? ";\n" : "").append(one.endsWith(";") ? one.substring(0, one.length() - 1) : one);
			values.addAll(
					Arrays.asList(NamedParameterUtils.buildValueArray(statement.parsedSql, parameters.get(i), null)));
		}
		PreparedStatement prepared = connection.prepareStatement(sql.toString());
		try {
			int index = 1;
			for (Object value : values) {
				bind(prepared, index++, value);
			}
			return prepared;
		}
		catch (SQLException | RuntimeException ex) {
			prepared.close();
			throw ex;
		}
	}

	/**
	 * Prepare this statement once and add one execution per parameter set to its batch,
	 * for {@link PreparedStatement#executeBatch()}.
	 * @param connection the connection
	 * @param parameters the parameters of each execution
	 * @return the prepared statement; the caller closes it
	 * @throws SQLException on a database error
	 */
	PreparedStatement prepareBatch(Connection connection, List<MapSqlParameterSource> parameters) throws SQLException {
		Assert.state(this.fixedSql != null, () -> this + " expands lists");
		PreparedStatement prepared = connection.prepareStatement(this.fixedSql);
		try {
			for (MapSqlParameterSource execution : parameters) {
				int index = 1;
				for (Object value : NamedParameterUtils.buildValueArray(this.parsedSql, execution, null)) {
					bind(prepared, index++, value);
				}
				prepared.addBatch();
			}
			return prepared;
		}
		catch (SQLException | RuntimeException ex) {
			prepared.close();
			throw ex;
		}
	}

	/**
	 * Bind one parameter; an {@link SqlParameterValue} whose value is {@code null} as SQL
	 * {@code NULL} of its type.
	 */
	private static void bind(PreparedStatement statement, int index, @Nullable Object value) throws SQLException {
		if (value instanceof SqlParameterValue typed) {
			if (typed.getValue() == null) {
				statement.setNull(index, typed.getSqlType());
			}
			else {
				statement.setObject(index, typed.getValue());
			}
		}
		else {
			statement.setObject(index, value);
		}
	}

	@Override
	public String toString() {
		return this.resource;
	}

}
