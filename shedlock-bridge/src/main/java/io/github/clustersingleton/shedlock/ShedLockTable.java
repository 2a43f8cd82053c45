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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.jdbc.ConnectionRunner;
import io.github.clustersingleton.jdbc.JdbcPlatform;
import io.github.clustersingleton.jdbc.SqlTableNames;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * ShedLock's lock table ({@code name}, {@code lock_until}, {@code locked_at},
 * {@code locked_by}), written with the rules of ShedLock's JDBC providers in DB-time
 * mode: every time is the database's UTC clock
 * ({@code timezone('utc', CURRENT_TIMESTAMP)} on PostgreSQL, {@code UTC_TIMESTAMP(3)} on
 * MySQL and MariaDB, {@code CURRENT_TIMESTAMP(3)} on H2), a lock is taken by inserting
 * its row or by updating a row whose {@code lock_until} has passed (or, for the bridge's
 * takeover, a row whose {@code locked_by} is still the one read), and a release keeps the
 * lock until {@code locked_at} plus lockAtLeastFor when that is later than now.
 * <p>
 * Every statement runs on a connection of its own in auto-commit mode, never in the
 * caller's transaction.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ShedLockTable {

	/**
	 * The property that names the table, for error messages.
	 */
	public static final String TABLE_NAME_PROPERTY = "cluster-singleton.shedlock.table-name";

	private static final Log logger = LogFactory.getLog(ShedLockTable.class);

	private final DataSource dataSource;

	private final String tableName;

	private final ConnectionRunner connections;

	private volatile @Nullable ShedLockSql dialect;

	private volatile @Nullable Integer nameLength;

	private volatile @Nullable Integer lockedByLength;

	/**
	 * Create the table access.
	 * @param dataSource the data source that holds ShedLock's table
	 * @param tableName the table name, optionally schema-qualified
	 * @throws ClusterSingletonConfigurationException when the name is not an SQL
	 * identifier
	 */
	public ShedLockTable(DataSource dataSource, String tableName) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		this.dataSource = dataSource;
		this.connections = new ConnectionRunner(dataSource);
		this.tableName = validateTableName(tableName);
	}

	/**
	 * Check that a table name is an SQL identifier, optionally schema-qualified, as
	 * {@code cluster-singleton.jdbc.table-name} must be.
	 * @param tableName the name
	 * @return the name
	 * @throws ClusterSingletonConfigurationException when it is not
	 */
	public static String validateTableName(@Nullable String tableName) {
		if (!SqlTableNames.isValid(tableName)) {
			throw new ClusterSingletonConfigurationException("Invalid table name '" + tableName + "' in property "
					+ TABLE_NAME_PROPERTY + ": expected an SQL identifier, optionally schema-qualified "
					+ "(letters, digits and underscores, not starting with a digit, such as 'shedlock' or "
					+ "'myschema.shedlock')");
		}
		return tableName;
	}

	/**
	 * Return the table name.
	 * @return the table name
	 */
	public String getTableName() {
		return this.tableName;
	}

	/**
	 * Check that the table exists with ShedLock's columns. A database that cannot be
	 * reached is logged, not thrown: the runs are skipped until it answers.
	 * @throws ClusterSingletonConfigurationException when the database answers and the
	 * table cannot be used
	 */
	public void check() {
		Connection connection;
		try {
			connection = this.dataSource.getConnection();
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("cluster-singleton could not reach the database to check the ShedLock table '" + this.tableName
					+ "' (" + TABLE_NAME_PROPERTY + "); guarded runs are skipped until it answers: " + ex);
			return;
		}
		try (connection;
				PreparedStatement statement = connection.prepareStatement(
						"SELECT name, lock_until, locked_at, locked_by FROM " + this.tableName + " WHERE 1 = 0")) {
			statement.executeQuery().close();
		}
		catch (SQLException ex) {
			String state = ex.getSQLState();
			if (state != null && state.startsWith("42")) {
				throw new ClusterSingletonConfigurationException("The ShedLock table '" + this.tableName + "' named by "
						+ TABLE_NAME_PROPERTY + " cannot be used: " + ex.getMessage()
						+ ". Point the property at the table the ShedLock nodes use (columns name, lock_until, "
						+ "locked_at, locked_by), or unset it to turn the ShedLock bridge off", ex);
			}
			logger.warn("cluster-singleton could not check the ShedLock table '" + this.tableName + "' ("
					+ TABLE_NAME_PROPERTY + "); guarded runs are skipped until it answers: " + ex);
		}
	}

	/**
	 * Return how many characters the table's {@code name} column holds, as the database
	 * reports it.
	 * @return the length, or {@code null} when the database cannot be reached or does not
	 * tell
	 */
	public @Nullable Integer nameLength() {
		Integer length = this.nameLength;
		if (length == null) {
			length = precision("name");
			this.nameLength = length;
		}
		return length;
	}

	private @Nullable Integer precision(String column) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection
					.prepareStatement("SELECT " + column + " FROM " + this.tableName + " WHERE 1 = 0");
				ResultSet rows = statement.executeQuery()) {
			int precision = rows.getMetaData().getPrecision(1);
			return (precision > 0) ? precision : null;
		}
		catch (SQLException | RuntimeException ex) {
			// the check at startup reports an unusable table
			return null;
		}
	}

	/**
	 * Return how many characters the table's {@code locked_by} column holds, as the
	 * database reports it.
	 * @return the length, or {@code null} when the database cannot be reached or does not
	 * tell
	 */
	public @Nullable Integer lockedByLength() {
		Integer length = this.lockedByLength;
		if (length == null) {
			length = precision("locked_by");
			this.lockedByLength = length;
		}
		return length;
	}

	/**
	 * Take the lock of a name if nobody holds it: insert its row, or update it where
	 * {@code lock_until} has passed; {@code lock_until} becomes now plus
	 * {@code lockAtMostFor} and {@code locked_at} now, by the database's clock.
	 * @param name the lock name
	 * @param lockAtMostFor how long the lock lives unless released
	 * @param lockedBy the value of {@code locked_by}, unique to this acquisition
	 * @return whether the lock was taken
	 */
	public boolean lock(String name, Duration lockAtMostFor, String lockedBy) {
		return execute("take the ShedLock lock '" + name + "'",
				(connection, dialect) -> dialect.lock(connection, name, micros(lockAtMostFor), lockedBy));
	}

	/**
	 * Take a lock over from the acquisition that holds it, if its {@code locked_by} is
	 * still the given one (compare and set), whatever its {@code lock_until}:
	 * {@code lock_until} becomes now plus {@code lockAtMostFor}, {@code locked_at} now.
	 * @param name the lock name
	 * @param lockAtMostFor how long the lock lives unless released
	 * @param previousLockedBy the {@code locked_by} of the acquisition taken over
	 * @param lockedBy the value of {@code locked_by}, unique to this acquisition
	 * @return whether the lock was taken over
	 */
	public boolean takeOver(String name, Duration lockAtMostFor, String previousLockedBy, String lockedBy) {
		return execute("take over the ShedLock lock '" + name + "'", (connection, dialect) -> {
			try (PreparedStatement statement = connection
				.prepareStatement("UPDATE " + this.tableName + " SET lock_until = " + dialect.plus(dialect.now())
						+ ", locked_at = " + dialect.now() + ", locked_by = ? WHERE name = ? AND locked_by = ?")) {
				statement.setLong(1, micros(lockAtMostFor));
				statement.setString(2, lockedBy);
				statement.setString(3, name);
				statement.setString(4, previousLockedBy);
				return statement.executeUpdate() == 1;
			}
		});
	}

	/**
	 * Move the {@code lock_until} of a lock this acquisition still holds to now plus
	 * {@code lockAtMostFor}, as ShedLock's extension does.
	 * @param name the lock name
	 * @param lockAtMostFor how long the lock lives from now unless released
	 * @param lockedBy the {@code locked_by} of the acquisition
	 * @return whether the lock was still held and was extended
	 */
	public boolean extend(String name, Duration lockAtMostFor, String lockedBy) {
		return execute("extend the ShedLock lock '" + name + "'",
				(connection,
						dialect) -> update(connection,
								"UPDATE " + this.tableName + " SET lock_until = " + dialect.plus(dialect.now())
										+ " WHERE name = ? AND locked_by = ? AND lock_until > " + dialect.now(),
								micros(lockAtMostFor), name, lockedBy) == 1);
	}

	/**
	 * Release a lock as ShedLock's unlock does: {@code lock_until} becomes the later of
	 * now and {@code locked_at} plus {@code lockAtLeastFor}; the row stays.
	 * @param name the lock name
	 * @param lockedBy the {@code locked_by} of the acquisition; a lock that another
	 * acquisition took is left alone
	 * @param lockAtLeastFor how long after its acquisition the lock must be kept
	 */
	public void unlock(String name, String lockedBy, Duration lockAtLeastFor) {
		execute("release the ShedLock lock '" + name + "'",
				(connection, dialect) -> update(connection,
						"UPDATE " + this.tableName + " SET lock_until = GREATEST(" + dialect.plus("locked_at") + ", "
								+ dialect.now() + ") WHERE name = ? AND locked_by = ?",
						micros(lockAtLeastFor), name, lockedBy));
	}

	/**
	 * Return who holds the lock of a name, as its row says.
	 * @param name the lock name
	 * @return the row's {@code locked_by}, or {@code null} when there is no row
	 */
	public @Nullable String lockedBy(String name) {
		return execute("read the ShedLock lock '" + name + "'", (connection, dialect) -> {
			try (PreparedStatement statement = connection
				.prepareStatement("SELECT locked_by FROM " + this.tableName + " WHERE name = ?")) {
				statement.setString(1, name);
				try (ResultSet rows = statement.executeQuery()) {
					return rows.next() ? rows.getString(1) : null;
				}
			}
		});
	}

	private static long micros(Duration duration) {
		return duration.toNanos() / 1000;
	}

	private static int update(Connection connection, String sql, long micros, String name, String lockedBy)
			throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setLong(1, micros);
			statement.setString(2, name);
			statement.setString(3, lockedBy);
			return statement.executeUpdate();
		}
	}

	private <T> T execute(String task, Action<T> action) {
		try {
			return this.connections.run((connection) -> action.execute(connection, dialect(connection)));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not " + task + " in ShedLock table '" + this.tableName + "' ("
					+ TABLE_NAME_PROPERTY + "): " + ex.getMessage(), ex);
		}
	}

	private ShedLockSql dialect(Connection connection) throws SQLException {
		ShedLockSql dialect = this.dialect;
		if (dialect == null) {
			dialect = ShedLockSql.of(
					JdbcPlatform.of(connection,
							(product) -> new ClusterSingletonConfigurationException(
									"The ShedLock bridge (" + TABLE_NAME_PROPERTY + ") does not support database '"
											+ product + "'; supported are PostgreSQL, MySQL/MariaDB and H2")),
					this.tableName);
			this.dialect = dialect;
		}
		return dialect;
	}

	@FunctionalInterface
	private interface Action<T> {

		T execute(Connection connection, ShedLockSql dialect) throws SQLException;

	}

}
