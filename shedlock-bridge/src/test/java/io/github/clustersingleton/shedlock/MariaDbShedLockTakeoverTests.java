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

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.test.TestStores;

/**
 * {@link AbstractShedLockTakeoverTests} on MariaDB, with ShedLock's MySQL DDL.
 *
 * @author cluster-singleton contributors
 */
class MariaDbShedLockTakeoverTests extends AbstractShedLockTakeoverTests {

	@Override
	protected HikariDataSource createPool() {
		return TestStores.mariadbDataSource();
	}

	@Override
	protected String createTableSql(String table, int lockedByLength) {
		return "CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL, "
				+ "locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(" + lockedByLength
				+ ") NOT NULL, PRIMARY KEY (name))";
	}

	@Override
	protected String plusMillis(String column, long millis) {
		return "TIMESTAMPADD(MICROSECOND, " + (millis * 1000) + ", " + column + ")";
	}

	@Override
	protected String utcNow() {
		return "UTC_TIMESTAMP(3)";
	}

	@Override
	protected String millisLeftSql(String table) {
		return "SELECT TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(3), lock_until) DIV 1000 FROM " + table
				+ " WHERE name = ?";
	}

}
