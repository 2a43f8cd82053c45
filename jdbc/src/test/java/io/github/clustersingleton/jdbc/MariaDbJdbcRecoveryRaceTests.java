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
 * {@link AbstractJdbcRecoveryRaceTests} on MariaDb.
 *
 * @author cluster-singleton contributors
 */
class MariaDbJdbcRecoveryRaceTests extends AbstractJdbcRecoveryRaceTests {

	@Override
	protected HikariDataSource createPool() {
		return TestStores.mariadbDataSource();
	}

	@Override
	protected Duration longestWaitBehind(Connection watcher, Connection locker) throws SQLException {
		long lockerId = queryLong(locker, "SELECT CONNECTION_ID()");
		return Duration.ofMillis(queryLong(watcher,
				"SELECT COALESCE(MAX(CAST(p.TIME_MS AS SIGNED)), 0) FROM information_schema.INNODB_LOCK_WAITS w"
						+ " JOIN information_schema.INNODB_TRX waiting ON waiting.trx_id = w.requesting_trx_id"
						+ " JOIN information_schema.INNODB_TRX blocking ON blocking.trx_id = w.blocking_trx_id"
						+ " JOIN information_schema.PROCESSLIST p ON p.ID = waiting.trx_mysql_thread_id"
						+ " WHERE blocking.trx_mysql_thread_id = ?",
				lockerId));
	}

}
