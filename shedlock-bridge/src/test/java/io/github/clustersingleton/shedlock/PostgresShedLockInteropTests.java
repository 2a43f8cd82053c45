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
 * The rolling-upgrade proof on PostgreSQL, the ShedLock node on {@code usingDbTime()}.
 *
 * @author cluster-singleton contributors
 */
class PostgresShedLockInteropTests extends AbstractShedLockInteropTests {

	@Override
	String url() {
		return TestStores.postgresUrl();
	}

	@Override
	HikariDataSource dataSource() {
		return TestStores.postgresDataSource();
	}

	@Override
	String shedLockTableDdl(String table) {
		return "CREATE TABLE " + table + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
				+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";
	}

	@Override
	String runsTableDdl(String table) {
		return "CREATE TABLE " + table + " (id VARCHAR(36) PRIMARY KEY, node VARCHAR(32) NOT NULL, "
				+ "started TIMESTAMP(6) NOT NULL, ended TIMESTAMP(6))";
	}

	@Override
	boolean shedLockUsesDbTime() {
		return true;
	}

}
