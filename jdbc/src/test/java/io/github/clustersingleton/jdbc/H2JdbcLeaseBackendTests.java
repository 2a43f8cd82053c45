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
 * Lease backend contract and JDBC tests on H2.
 *
 * @author cluster-singleton contributors
 */
class H2JdbcLeaseBackendTests extends AbstractJdbcLeaseBackendTests {

	@Override
	protected HikariDataSource createPool() {
		return TestStores.h2DataSource();
	}

	@Override
	protected DataSource createUnreachableDataSource() {
		return TestStores.unreachableDataSource("h2");
	}

	@Override
	protected String schemaName() {
		return "PUBLIC";
	}

	@Override
	protected boolean isEmbedded() {
		return true;
	}

	/**
	 * Return false: the renewal is an {@code UPDATE} without {@code RETURNING}.
	 */
	@Override
	protected boolean reportsStoreTimeOnRenewal() {
		return false;
	}

}
