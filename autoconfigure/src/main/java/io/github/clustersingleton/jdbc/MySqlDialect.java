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
import java.sql.SQLException;
import java.time.Instant;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

/**
 * MySQL dialect: acquisition is one {@code INSERT ... ON DUPLICATE KEY UPDATE} statement
 * followed by a {@code SELECT} of the row (MySQL has no {@code RETURNING}). Times are
 * {@code DATETIME(6)} holding UTC, compared with {@code UTC_TIMESTAMP(6)} so that the
 * session time zone never matters.
 * <p>
 * MySQL runs the assignments of {@code ON DUPLICATE KEY UPDATE} left to right, each
 * seeing the values assigned before it. So the first assignment decides, on the stored
 * values, whether the lease can be taken and writes our (random) lease token only then;
 * every later assignment keys on {@code lease_token = VALUES(lease_token)}, which holds
 * exactly when the first one did. The stored token afterwards tells whether we won.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
sealed class MySqlDialect extends JdbcDialect permits MariaDbDialect {

	/**
	 * The columns that tell the outcome of an acquisition, in order.
	 */
	protected static final String OUTCOME_COLUMNS = "lease_token, fencing_token, owner, last_slot";

	private static final String WON = "lease_token = VALUES(lease_token)";

	/**
	 * The upsert; parameters: name, owner, lease token, TTL in milliseconds, slot.
	 */
	protected final String upsertSql;

	private final String selectOutcomeSql;

	MySqlDialect(String table) {
		super(table, "UTC_TIMESTAMP(6)", "%s + INTERVAL ? * 1000 MICROSECOND");
		String now = now();
		String canTake = "expires_at <= " + now
				+ " AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))";
		this.upsertSql = "INSERT INTO " + table + " (name, owner, lease_token, acquired_at, expires_at, last_slot, "
				+ "fencing_token) VALUES (?, ?, ?, " + now + ", " + plusMillis(now) + ", ?, 1) ON DUPLICATE KEY UPDATE "
				+ String.join(", ", "lease_token = IF(" + canTake + ", VALUES(lease_token), lease_token)",
						ifWon("owner", "VALUES(owner)"), ifWon("acquired_at", "VALUES(acquired_at)"),
						ifWon("expires_at", "VALUES(expires_at)"),
						ifWon("last_slot", "COALESCE(VALUES(last_slot), last_slot)"),
						ifWon("fencing_token", "fencing_token + 1"));
		this.selectOutcomeSql = "SELECT " + OUTCOME_COLUMNS + " FROM " + table + " WHERE name = ?";
	}

	private static String ifWon(String column, String value) {
		return column + " = IF(" + WON + ", " + value + ", " + column + ")";
	}

	@Override
	AcquireResult tryAcquire(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = prepare(connection, this.upsertSql)) {
			bindUpsert(statement, request);
			statement.executeUpdate();
		}
		try (PreparedStatement statement = prepare(connection, this.selectOutcomeSql)) {
			statement.setString(1, request.jobName());
			try (ResultSet resultSet = statement.executeQuery()) {
				return outcome(request, resultSet);
			}
		}
	}

	/**
	 * Bind the parameters of {@link #upsertSql}.
	 * @param statement the statement
	 * @param request the request
	 * @throws SQLException on a driver error
	 */
	protected final void bindUpsert(PreparedStatement statement, LeaseRequest request) throws SQLException {
		statement.setString(1, request.jobName());
		statement.setString(2, request.owner());
		statement.setString(3, request.leaseToken());
		statement.setLong(4, request.ttl().toMillis());
		setInstant(statement, 5, request.slot());
	}

	/**
	 * Read the outcome of an acquisition from the row after the upsert
	 * ({@link #OUTCOME_COLUMNS}).
	 * @param request the request
	 * @param resultSet the row
	 * @return the result
	 * @throws SQLException on a driver error
	 */
	protected final AcquireResult outcome(LeaseRequest request, ResultSet resultSet) throws SQLException {
		if (!resultSet.next()) {
			return AcquireResult.notAcquired(request, null, null);
		}
		if (request.leaseToken().equals(resultSet.getString("lease_token"))) {
			return AcquireResult.acquired(resultSet.getLong("fencing_token"));
		}
		return AcquireResult.notAcquired(request, resultSet.getString("owner"), getInstant(resultSet, "last_slot"));
	}

	@Override
	final void setInstant(PreparedStatement statement, int index, @Nullable Instant instant) throws SQLException {
		setUtcLocalDateTime(statement, index, instant);
	}

	@Override
	final @Nullable Instant getInstant(ResultSet resultSet, String column) throws SQLException {
		return getUtcLocalDateTime(resultSet, column);
	}

}
