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
 * H2 dialect: acquisition is one {@code MERGE INTO ... USING ... WHEN MATCHED AND ...}
 * statement read through {@code FINAL TABLE}, which yields the row only when this
 * statement wrote it. Times are {@code TIMESTAMP WITH TIME ZONE} compared with
 * {@code CURRENT_TIMESTAMP}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class H2Dialect extends JdbcDialect {

	/**
	 * SQL state of a unique constraint violation.
	 */
	private static final String DUPLICATE_KEY = "23505";

	private final String acquireSql;

	H2Dialect(String table) {
		super(table, "CURRENT_TIMESTAMP", "DATEADD(MILLISECOND, CAST(? AS BIGINT), %s)");
		String now = now();
		String expiresAt = "DATEADD(MILLISECOND, r.ttl, " + now + ")";
		this.acquireSql = "SELECT fencing_token FROM FINAL TABLE (MERGE INTO " + table + " l USING (VALUES ("
				+ "CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64)), CAST(? AS BIGINT), "
				+ "CAST(? AS TIMESTAMP WITH TIME ZONE))) AS r(name, owner, lease_token, ttl, slot) "
				+ "ON l.name = r.name WHEN MATCHED AND l.expires_at <= " + now
				+ " AND (r.slot IS NULL OR l.last_slot IS NULL OR l.last_slot < r.slot) THEN UPDATE SET "
				+ "owner = r.owner, lease_token = r.lease_token, acquired_at = " + now + ", expires_at = " + expiresAt
				+ ", last_slot = COALESCE(r.slot, l.last_slot), fencing_token = l.fencing_token + 1 "
				+ "WHEN NOT MATCHED THEN INSERT (name, owner, lease_token, acquired_at, expires_at, last_slot, "
				+ "fencing_token) VALUES (r.name, r.owner, r.lease_token, " + now + ", " + expiresAt + ", r.slot, 1))";
	}

	@Override
	AcquireResult tryAcquire(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = prepare(connection, this.acquireSql)) {
			statement.setString(1, request.jobName());
			statement.setString(2, request.owner());
			statement.setString(3, request.leaseToken());
			statement.setLong(4, request.ttl().toMillis());
			setInstant(statement, 5, request.slot());
			try (ResultSet resultSet = statement.executeQuery()) {
				if (resultSet.next()) {
					return AcquireResult.acquired(resultSet.getLong(1));
				}
			}
		}
		catch (SQLException ex) {
			// A concurrent first acquisition of the job inserted the row first
			if (!DUPLICATE_KEY.equals(ex.getSQLState())) {
				throw ex;
			}
		}
		return classifyFailure(connection, request);
	}

	@Override
	void setInstant(PreparedStatement statement, int index, @Nullable Instant instant) throws SQLException {
		setOffsetDateTime(statement, index, instant);
	}

	@Override
	@Nullable Instant getInstant(ResultSet resultSet, String column) throws SQLException {
		return getOffsetDateTime(resultSet, column);
	}

}
