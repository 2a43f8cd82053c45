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

package io.github.clustersingleton.shedlock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import io.github.clustersingleton.jdbc.JdbcPlatform;

/**
 * The SQL of ShedLock's table on one database: its UTC clock, adding microseconds to a
 * time, and taking a lock.
 *
 * @author cluster-singleton contributors
 */
abstract class ShedLockSql {

	final String tableName;

	ShedLockSql(String tableName) {
		this.tableName = tableName;
	}

	static ShedLockSql of(JdbcPlatform platform, String tableName) {
		return switch (platform) {
			case POSTGRESQL -> new PostgreSql(tableName);
			case MARIADB, MYSQL -> new MySql(tableName);
			case H2 -> new H2(tableName);
		};
	}

	/**
	 * The database's current UTC time, as ShedLock's DB-time mode writes it.
	 */
	abstract String now();

	/**
	 * The given time plus a number of microseconds bound as a parameter.
	 */
	abstract String plus(String time);

	/**
	 * Parameters: lock_until micros, name, locked_by.
	 */
	String update() {
		return "UPDATE " + this.tableName + " SET lock_until = " + plus(now()) + ", locked_at = " + now()
				+ ", locked_by = ? WHERE name = ? AND lock_until <= " + now();
	}

	boolean lock(Connection connection, String name, long micros, String lockedBy) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(update())) {
			statement.setLong(1, micros);
			statement.setString(2, lockedBy);
			statement.setString(3, name);
			if (statement.executeUpdate() == 1) {
				return true;
			}
		}
		return insert(connection, name, micros, lockedBy);
	}

	/**
	 * Insert the row of a lock that has none; {@code false} when a row exists.
	 */
	abstract boolean insert(Connection connection, String name, long micros, String lockedBy) throws SQLException;

	String insertValues() {
		return "(name, lock_until, locked_at, locked_by) VALUES (?, " + plus(now()) + ", " + now() + ", ?)";
	}

	static int insert(Connection connection, String sql, String name, long micros, String lockedBy)
			throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, name);
			statement.setLong(2, micros);
			statement.setString(3, lockedBy);
			return statement.executeUpdate();
		}
	}

	private static final class PostgreSql extends ShedLockSql {

		PostgreSql(String tableName) {
			super(tableName);
		}

		@Override
		String now() {
			return "timezone('utc', CURRENT_TIMESTAMP)";
		}

		@Override
		String plus(String time) {
			return "(" + time + " + ? * INTERVAL '1 microsecond')";
		}

		@Override
		boolean lock(Connection connection, String name, long micros, String lockedBy) throws SQLException {
			// one statement: insert the row, or take it over where lock_until has passed
			String sql = "INSERT INTO " + this.tableName + " AS l " + insertValues()
					+ " ON CONFLICT (name) DO UPDATE SET lock_until = EXCLUDED.lock_until, "
					+ "locked_at = EXCLUDED.locked_at, locked_by = EXCLUDED.locked_by WHERE l.lock_until <= " + now();
			return insert(connection, sql, name, micros, lockedBy) == 1;
		}

		@Override
		boolean insert(Connection connection, String name, long micros, String lockedBy) {
			throw new UnsupportedOperationException();
		}

	}

	private static final class MySql extends ShedLockSql {

		MySql(String tableName) {
			super(tableName);
		}

		@Override
		String now() {
			return "UTC_TIMESTAMP(3)";
		}

		@Override
		String plus(String time) {
			return "TIMESTAMPADD(MICROSECOND, ?, " + time + ")";
		}

		@Override
		boolean insert(Connection connection, String name, long micros, String lockedBy) throws SQLException {
			return insert(connection, "INSERT IGNORE INTO " + this.tableName + " " + insertValues(), name, micros,
					lockedBy) == 1;
		}

	}

	private static final class H2 extends ShedLockSql {

		H2(String tableName) {
			super(tableName);
		}

		@Override
		String now() {
			return "CURRENT_TIMESTAMP(3)";
		}

		@Override
		String plus(String time) {
			return "TIMESTAMPADD(MICROSECOND, ?, " + time + ")";
		}

		@Override
		boolean insert(Connection connection, String name, long micros, String lockedBy) throws SQLException {
			try {
				return insert(connection, "INSERT INTO " + this.tableName + " " + insertValues(), name, micros,
						lockedBy) == 1;
			}
			catch (SQLException ex) {
				if ("23505".equals(ex.getSQLState())) {
					// the row exists: another acquisition holds the lock
					return false;
				}
				throw ex;
			}
		}

	}

}
