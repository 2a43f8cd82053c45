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

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.clustersingleton.test.TestStores;

/**
 * Lease backend contract and JDBC tests on MariaDB through connections with
 * {@code useAffectedRows=true}: an {@code UPDATE} then counts the rows it changed, not
 * the rows it matched, so a statement that matches a row and leaves it as it is (a
 * repeated completion) counts none.
 *
 * @author cluster-singleton contributors
 */
class MariaDbAffectedRowsJdbcLeaseBackendTests extends MariaDbJdbcLeaseBackendTests {

	@Override
	protected HikariDataSource createPool() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(TestStores.mariadbUrl() + "&useAffectedRows=true");
		config.setPoolName("test-mariadb-affected-rows");
		config.setMaximumPoolSize(10);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(5000);
		return new HikariDataSource(config);
	}

}
