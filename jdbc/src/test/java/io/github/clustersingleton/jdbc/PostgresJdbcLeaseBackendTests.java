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

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.test.TestStores;

/**
 * Lease backend contract and JDBC tests on PostgreSQL.
 *
 * @author cluster-singleton contributors
 */
class PostgresJdbcLeaseBackendTests extends AbstractJdbcLeaseBackendTests {

	@Override
	protected HikariDataSource createPool() {
		return TestStores.postgresDataSource();
	}

	@Override
	protected DataSource createUnreachableDataSource() {
		return TestStores.unreachableDataSource("postgresql");
	}

	@Override
	protected String schemaName() {
		return "public";
	}

	/**
	 * Return 1: a refused claim reads the row it was refused by in the same statement.
	 */
	@Override
	protected int expectedFailedAcquireRoundTrips() {
		return 1;
	}

	/**
	 * Return 1: the statement inserts or updates nothing, and reads the row and the
	 * database's clock.
	 */
	@Override
	protected int expectedClockSkewRoundTrips() {
		return 1;
	}

}
