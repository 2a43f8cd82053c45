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
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * H2 dialect ({@code h2/*.sql}): acquisition is one {@code MERGE INTO ... USING ... WHEN
 * MATCHED AND ...} statement read through {@code FINAL TABLE}, which yields the row only
 * when this statement wrote it. Times are {@code TIMESTAMP WITH TIME ZONE} compared with
 * {@code CURRENT_TIMESTAMP}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class H2LeaseStatements extends LeaseStatements {

	/**
	 * SQL state of a unique constraint violation.
	 */
	private static final String DUPLICATE_KEY = "23505";

	private final JdbcStatement selectLive;

	H2LeaseStatements(String table) {
		super(table, "h2", TimeBinding.OFFSET_DATE_TIME, RenewalTimeout.none());
		this.selectLive = JdbcStatement.load("h2", "select-live", table, true);
	}

	@Override
	AcquireResult tryAcquire(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = acquireStatement(request).prepare(connection,
				this.parameters.acquire(request)); ResultSet resultSet = statement.executeQuery()) {
			if (resultSet.next()) {
				this.rows.observeStoreTime(resultSet);
				return this.rows.acquired(request, resultSet);
			}
		}
		catch (SQLException ex) {
			// a concurrent first acquisition of the job inserted the row first
			if (!DUPLICATE_KEY.equals(ex.getSQLState())) {
				throw ex;
			}
		}
		return readOutcome(connection, request);
	}

	@Override
	Set<String> renew(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException {
		MapSqlParameterSource parameters = LeaseParameters.renew(leases, ttl);
		int updated;
		try (PreparedStatement statement = this.renew.prepare(connection, parameters)) {
			updated = statement.executeUpdate();
		}
		if (updated == leases.size()) {
			return LeaseRows.tokens(leases);
		}
		try (PreparedStatement statement = this.selectLive.prepare(connection, parameters)) {
			return this.rows.readTokens(statement, leases);
		}
	}

}
