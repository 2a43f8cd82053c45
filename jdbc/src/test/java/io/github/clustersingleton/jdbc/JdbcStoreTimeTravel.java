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
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BiFunction;

import javax.sql.DataSource;

import io.github.clustersingleton.contract.StoreTimeTravel;

/**
 * {@link StoreTimeTravel} for the JDBC backend: one {@code UPDATE} of the job's row in
 * the lease table moves its acquisition, expiry, recovery mark and retry time back,
 * leaving owner, tokens, slots, run columns and fencing token as they are. The backend's
 * statements then judge the row by the database's clock, as in production.
 *
 * @author cluster-singleton contributors
 */
final class JdbcStoreTimeTravel implements StoreTimeTravel {

	private static final String[] TIME_COLUMNS = { "acquired_at", "expires_at", "recover_at", "retry_at" };

	private final DataSource dataSource;

	private final String table;

	/**
	 * Create a new instance.
	 * @param dataSource the database the backend under test uses
	 * @param table the lease table
	 */
	JdbcStoreTimeTravel(DataSource dataSource, String table) {
		this.dataSource = dataSource;
		this.table = table;
	}

	@Override
	public void elapse(String jobName, Duration duration) {
		try (Connection connection = this.dataSource.getConnection()) {
			try (PreparedStatement statement = connection.prepareStatement(update(connection, duration))) {
				statement.setString(1, jobName);
				statement.executeUpdate();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Failed to move the stored times of job '" + jobName + "' back", ex);
		}
	}

	private String update(Connection connection, Duration duration) throws SQLException {
		BiFunction<String, Long, String> minus = minus(connection.getMetaData().getDatabaseProductName());
		long micros = duration.toNanos() / 1000;
		StringBuilder sql = new StringBuilder("UPDATE ").append(this.table).append(" SET ");
		for (int i = 0; i < TIME_COLUMNS.length; i++) {
			String column = TIME_COLUMNS[i];
			sql.append((i > 0) ? ", " : "").append(column).append(" = ").append(minus.apply(column, micros));
		}
		return sql.append(" WHERE name = ?").toString();
	}

	/**
	 * Return a column minus some microseconds in the database's dialect, as the
	 * statements of the backend write such sums (a NULL column stays NULL).
	 */
	private static BiFunction<String, Long, String> minus(String product) {
		String name = product.toLowerCase(Locale.ROOT);
		if (name.contains("h2")) {
			return (column, micros) -> "DATEADD(MICROSECOND, -" + micros + ", " + column + ")";
		}
		if (name.contains("postgres")) {
			return (column, micros) -> column + " - " + micros + " * INTERVAL '1 microsecond'";
		}
		if (name.contains("mariadb") || name.contains("mysql")) {
			return (column, micros) -> column + " - INTERVAL " + micros + " MICROSECOND";
		}
		throw new IllegalStateException("No time travel for database " + product);
	}

}
