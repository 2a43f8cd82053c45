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

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.LeaseRequest;

/**
 * MariaDB dialect: MySQL's statements, but acquisition is {@code mariadb/acquire.sql},
 * the MySQL upsert with a {@code RETURNING} clause (MariaDB 10.5+) that returns the row
 * as the upsert left it, won or not, so acquisition is one round trip on both paths.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class MariaDbLeaseStatements extends MySqlLeaseStatements {

	MariaDbLeaseStatements(String table) {
		super(table,
				JdbcStatement.load(new String[] { "mysql", "acquire" }, new String[] { "mariadb", "acquire-returning" },
						table),
				JdbcStatement.load(new String[] { "mysql", "acquire-run" },
						new String[] { "mariadb", "acquire-returning" }, table));
	}

	@Override
	AcquireResult tryAcquire(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = acquireStatement(request).prepare(connection,
				this.parameters.acquire(request)); ResultSet resultSet = statement.executeQuery()) {
			if (resultSet.next()) {
				return this.rows.outcome(request, resultSet);
			}
		}
		// no row: the slot was refused before the upsert; the row and the clock tell why
		return readOutcome(connection, request);
	}

}
