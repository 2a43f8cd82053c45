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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The upgrade of a lease table created by an earlier version: which run and control
 * columns it lacks ({@code <platform>/columns.sql}) and the {@code ALTER TABLE}
 * statements that add them, for the schema initializer and the store's startup check
 * alike.
 *
 * @author cluster-singleton contributors
 */
final class SchemaUpgrade {

	/**
	 * The columns of the job's current run on the lease table, added in 0.2.0.
	 */
	static final List<String> RUN_COLUMNS = List.of("run_slot", "attempt", "run_state", "retry_at", "recover_at");

	/**
	 * The columns of the job's controls on the lease table: its pause and its cron
	 * override.
	 */
	static final List<String> CONTROL_COLUMNS = List.of("paused_at", "paused_by", "pause_reason", "cron_override");

	/**
	 * The columns an earlier version's lease table may lack, in the order they are added.
	 */
	static final List<String> UPGRADE_COLUMNS = Stream.concat(RUN_COLUMNS.stream(), CONTROL_COLUMNS.stream()).toList();

	private final String table;

	private final TimeBinding time;

	private final JdbcStatement columns;

	/**
	 * Create the upgrade of a platform's lease table.
	 * @param platform the directory of the platform's statements
	 * @param table the validated name of the lease table
	 * @param time how the platform binds times, for the type of the time columns
	 */
	SchemaUpgrade(String platform, String table, TimeBinding time) {
		this.table = table;
		this.time = time;
		this.columns = JdbcStatement.load(platform, "columns", table, false);
	}

	/**
	 * Return the run and control columns the lease table lacks (a table created by an
	 * earlier version).
	 * @param connection a connection
	 * @return the missing columns, in {@link #UPGRADE_COLUMNS} order
	 * @throws SQLException on a database error
	 */
	List<String> missingColumns(Connection connection) throws SQLException {
		Set<String> present = new HashSet<>();
		try (PreparedStatement statement = this.columns.prepare(connection, new MapSqlParameterSource());
				ResultSet resultSet = statement.executeQuery()) {
			ResultSetMetaData metaData = resultSet.getMetaData();
			for (int i = 1; i <= metaData.getColumnCount(); i++) {
				present.add(metaData.getColumnLabel(i).toLowerCase(Locale.ROOT));
			}
		}
		return UPGRADE_COLUMNS.stream().filter((column) -> !present.contains(column)).toList();
	}

	/**
	 * Return the statement that adds a run or control column to the lease table.
	 * @param column one of {@link #UPGRADE_COLUMNS}
	 * @return the {@code ALTER TABLE} statement
	 */
	String addColumnStatement(String column) {
		String type = switch (column) {
			case "run_slot", "retry_at", "recover_at", "paused_at" -> this.time.columnType();
			case "attempt" -> "INT";
			case "run_state" -> "VARCHAR(16)";
			case "paused_by", "cron_override" -> "VARCHAR(255)";
			case "pause_reason" -> "VARCHAR(500)";
			default -> throw new IllegalArgumentException("Unknown run column '" + column + "'");
		};
		return "ALTER TABLE " + this.table + " ADD COLUMN " + column + " " + type;
	}

}