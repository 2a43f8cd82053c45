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
import java.sql.DatabaseMetaData;
import java.time.Duration;

import javax.sql.DataSource;

import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.sql.init.DatabaseInitializationMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Tests of {@link JdbcLeaseBackend} and {@link JdbcLeaseSchemaInitializer} that need no
 * database.
 *
 * @author cluster-singleton contributors
 */
class JdbcLeaseBackendTests {

	private final DataSource dataSource = mock(DataSource.class);

	@ParameterizedTest
	@ValueSource(strings = { "cluster_singleton_lease", "LEASES", "_t1", "app.cluster_singleton_lease", "s_1.t_2" })
	void validTableNames(String tableName) {
		assertThat(new JdbcLeaseBackend(this.dataSource, tableName).getTableName()).isEqualTo(tableName);
		new JdbcLeaseSchemaInitializer(this.dataSource, tableName, DatabaseInitializationMode.NEVER);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "1leases", "lease-table", "leases; DROP TABLE users", "a.b.c", "\"leases\"",
			"lease table", "schema.", ".leases", "léase" })
	void invalidTableNamesAreRejected(String tableName) {
		assertThatIllegalArgumentException().isThrownBy(() -> new JdbcLeaseBackend(this.dataSource, tableName))
			.withMessageContaining("cluster-singleton.jdbc.table-name")
			.withMessageContaining("'" + tableName + "'");
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> new JdbcLeaseSchemaInitializer(this.dataSource, tableName, DatabaseInitializationMode.ALWAYS))
			.withMessageContaining("cluster-singleton.jdbc.table-name");
	}

	@Test
	void unsupportedDatabaseIsNamed() throws Exception {
		Connection connection = mock(Connection.class);
		DatabaseMetaData metaData = mock(DatabaseMetaData.class);
		given(this.dataSource.getConnection()).willReturn(connection);
		given(connection.getMetaData()).willReturn(metaData);
		given(connection.getAutoCommit()).willReturn(true);
		given(metaData.getDatabaseProductName()).willReturn("Oracle");
		JdbcLeaseBackend backend = new JdbcLeaseBackend(this.dataSource, "cluster_singleton_lease");
		assertThatIllegalStateException()
			.isThrownBy(
					() -> backend.tryAcquire(new LeaseRequest("job", "node", "token", Duration.ofSeconds(30), null)))
			.withMessageContaining("'Oracle'")
			.withMessageContaining("PostgreSQL, MySQL/MariaDB and H2");
	}

	@Test
	void mariaDbBehindMySqlDriverIsMariaDb() throws Exception {
		Connection connection = mock(Connection.class);
		DatabaseMetaData metaData = mock(DatabaseMetaData.class);
		given(connection.getMetaData()).willReturn(metaData);
		given(metaData.getDatabaseProductName()).willReturn("MySQL");
		given(metaData.getDatabaseProductVersion()).willReturn("10.11.6-MariaDB-0+deb12u1");
		assertThat(JdbcPlatform.of(connection)).isEqualTo(JdbcPlatform.MARIADB);
		given(metaData.getDatabaseProductVersion()).willReturn("8.4.0");
		assertThat(JdbcPlatform.of(connection)).isEqualTo(JdbcPlatform.MYSQL);
	}

	@Test
	void everyPlatformLoadsItsStatementsWithTheTableNamed() {
		for (JdbcPlatform platform : JdbcPlatform.values()) {
			LeaseStatements dialect = LeaseStatements.of(platform, "myschema.leases");
			assertThat(dialect.acquire.toString()).contains("/acquire");
		}
		assertThat(JdbcStatement.read(JdbcStatement.location("mysql", "acquire"))).contains("INTO ${table} ");
	}

	@Test
	void mySqlAcquisitionUsesTheUtcClockOnly() {
		String sql = JdbcStatement.read(JdbcStatement.location("mysql", "acquire"));
		assertThat(sql).doesNotContain("CURRENT_TIMESTAMP").doesNotContain("NOW()");
		// every assignment after the first accepts both evaluation orders (see the file)
		String updates = sql.substring(sql.indexOf("ON DUPLICATE KEY UPDATE"));
		assertThat(
				updates.split("IF\\(lease_token = VALUES\\(lease_token\\)\\s+OR \\(expires_at <= UTC_TIMESTAMP\\(6\\)"))
			.hasSize(6);
	}

}
