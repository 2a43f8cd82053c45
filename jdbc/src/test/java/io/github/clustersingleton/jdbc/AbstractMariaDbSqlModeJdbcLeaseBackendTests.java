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
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lease backend contract and JDBC tests on MariaDB with connections in a session
 * {@code sql_mode} a user may set: the acquisition must depend neither on the order in
 * which the server evaluates its assignments nor on how it parses quotes and operators.
 *
 * @author cluster-singleton contributors
 */
abstract class AbstractMariaDbSqlModeJdbcLeaseBackendTests extends MariaDbJdbcLeaseBackendTests {

	/**
	 * Return the SQL expression of the session's mode.
	 * @return the expression
	 */
	protected abstract String sqlMode();

	/**
	 * Return the flags the session's mode must show.
	 * @return the flags
	 */
	protected abstract List<String> expectedFlags();

	@Override
	protected HikariDataSource createPool() {
		return TestStores.mariadbDataSource(sqlMode());
	}

	@Test
	void connectionsRunInTheModeUnderTest() throws Exception {
		try (Connection connection = pool().getConnection();
				Statement statement = connection.createStatement();
				ResultSet resultSet = statement.executeQuery("SELECT @@SESSION.sql_mode")) {
			assertThat(resultSet.next()).isTrue();
			assertThat(resultSet.getString(1)).contains(expectedFlags());
		}
	}

}
