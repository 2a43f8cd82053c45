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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL dialect: acquisition is one {@code INSERT ... ON CONFLICT DO UPDATE ...
 * WHERE ... RETURNING} statement, renewal one {@code UPDATE ... RETURNING}. Times are
 * {@code TIMESTAMP WITH TIME ZONE} compared with {@code CURRENT_TIMESTAMP}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class PostgreSqlDialect extends JdbcDialect {

	private final String acquireSql;

	PostgreSqlDialect(String table) {
		super(table, "CURRENT_TIMESTAMP", "%s + ? * INTERVAL '1 millisecond'");
		String now = now();
		// The conflict's WHERE sees the stored row (l) and the proposed one (EXCLUDED);
		// when it fails, nothing is written and nothing is returned
		this.acquireSql = "INSERT INTO " + table + " AS l (name, owner, lease_token, acquired_at, expires_at, "
				+ "last_slot, fencing_token) VALUES (?, ?, ?, " + now + ", " + plusMillis(now) + ", ?, 1) "
				+ "ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, lease_token = EXCLUDED.lease_token, "
				+ "acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at, "
				+ "last_slot = COALESCE(EXCLUDED.last_slot, l.last_slot), fencing_token = l.fencing_token + 1 "
				+ "WHERE l.expires_at <= " + now + " AND (EXCLUDED.last_slot IS NULL OR l.last_slot IS NULL "
				+ "OR l.last_slot < EXCLUDED.last_slot) RETURNING fencing_token";
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
		return classifyFailure(connection, request);
	}

	@Override
	Set<String> renew(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException {
		try (PreparedStatement statement = prepareWithTimeout(connection,
				renewSql(leases.size(), " RETURNING lease_token"))) {
			statement.setLong(1, ttl.toMillis());
			bindNamesAndTokens(statement, 2, leases);
			return readTokens(statement, leases);
		}
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
