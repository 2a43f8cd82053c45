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
import java.sql.SQLException;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.test.TestStores;

/**
 * {@link AbstractJdbcRecoveryRaceTests} on Postgres.
 *
 * @author cluster-singleton contributors
 */
class PostgresJdbcRecoveryRaceTests extends AbstractJdbcRecoveryRaceTests {

	@Override
	protected HikariDataSource createPool() {
		return TestStores.postgresDataSource();
	}

	@Override
	protected Duration longestWaitBehind(Connection watcher, Connection locker) throws SQLException {
		long lockerPid = queryLong(locker, "SELECT pg_backend_pid()");
		return Duration.ofMillis(queryLong(watcher,
				"SELECT COALESCE(MAX(CAST(EXTRACT(EPOCH FROM clock_timestamp() - query_start) * 1000 AS BIGINT)), 0)"
						+ " FROM pg_stat_activity WHERE CAST(? AS INT) = ANY (pg_blocking_pids(pid))",
				lockerPid));
	}

}
