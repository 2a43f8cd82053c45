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

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link JdbcLeaseBackend#initialize()} on PostgreSQL: the startup check of the
 * lease table.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(Lifecycle.PER_CLASS)
class JdbcLeaseBackendInitializeTests {

	private HikariDataSource dataSource;

	private final String table = "cs_init_" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeAll
	void createPool() {
		this.dataSource = TestStores.postgresDataSource();
	}

	@AfterAll
	void dropTable() {
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("DROP TABLE IF EXISTS " + JdbcPlatform.manualRunTableName(this.table));
		jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		this.dataSource.close();
	}

	@Test
	void missingTableWithoutInitializationFailsStartupNamingTheProperty() {
		JdbcLeaseBackend backend = new JdbcLeaseBackend(this.dataSource,
				"cs_missing_" + UUID.randomUUID().toString().substring(0, 8));
		backend.setSchemaInitializer(new JdbcLeaseSchemaInitializer(this.dataSource, backend.getTableName(),
				DatabaseInitializationMode.NEVER));
		assertThatExceptionOfType(ClusterSingletonConfigurationException.class).isThrownBy(backend::initialize)
			.withMessageContaining(backend.getTableName())
			.withMessageContaining("cluster-singleton.jdbc.initialize-schema=always");
	}

	@Test
	void initializeCreatesTheTableThenChecksIt() {
		JdbcLeaseBackend backend = new JdbcLeaseBackend(this.dataSource, this.table);
		backend.setSchemaInitializer(
				new JdbcLeaseSchemaInitializer(this.dataSource, this.table, DatabaseInitializationMode.ALWAYS));
		backend.initialize();
		assertThatNoException().isThrownBy(backend::probe);
		assertThat(backend.describe("nothing")).isEmpty();
	}

	@Test
	void missingRunTableWithoutInitializationFailsStartupNamingTheProperty() {
		new JdbcLeaseSchemaInitializer(this.dataSource, this.table, DatabaseInitializationMode.ALWAYS).initialize();
		String runTable = "cs_missing_runs_" + UUID.randomUUID().toString().substring(0, 8);
		JdbcLeaseBackend backend = new JdbcLeaseBackend(this.dataSource, this.table, runTable);
		backend.setSchemaInitializer(new JdbcLeaseSchemaInitializer(this.dataSource, this.table, runTable,
				DatabaseInitializationMode.NEVER));
		assertThatExceptionOfType(ClusterSingletonConfigurationException.class).isThrownBy(backend::initialize)
			.withMessageContaining("run table '" + runTable + "'")
			.withMessageContaining("cluster-singleton.jdbc.run-table-name")
			.withMessageContaining("cluster-singleton.jdbc.initialize-schema=always");
	}

	@Test
	void unreachableDatabaseDoesNotFailStartup() {
		JdbcLeaseBackend backend = new JdbcLeaseBackend(TestStores.unreachableDataSource("postgresql"), this.table);
		backend.setSchemaInitializer(new JdbcLeaseSchemaInitializer(TestStores.unreachableDataSource("postgresql"),
				this.table, DatabaseInitializationMode.ALWAYS));
		assertThatNoException().isThrownBy(backend::initialize);
	}

}
