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

package io.github.clustersingleton.autoconfigure.jdbc;

import io.github.clustersingleton.jdbc.JdbcLeaseBackend;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration properties of the JDBC lease backend.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@ConfigurationProperties("cluster-singleton.jdbc")
public class JdbcLeaseProperties {

	/**
	 * Name of the lease table, optionally schema-qualified.
	 */
	private String tableName = JdbcLeaseBackend.DEFAULT_TABLE_NAME;

	/**
	 * Name of the run ledger's table (one record per run of a job), optionally
	 * schema-qualified.
	 */
	private String runTableName = JdbcLeaseBackend.DEFAULT_RUN_TABLE_NAME;

	/**
	 * When to create the lease table at startup if it does not exist: 'always',
	 * 'embedded' only for in-memory databases, or 'never' (for tables managed by Flyway,
	 * Liquibase or a DBA). Either way, startup fails when the table is missing.
	 */
	private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.ALWAYS;

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	public String getRunTableName() {
		return this.runTableName;
	}

	public void setRunTableName(String runTableName) {
		this.runTableName = runTableName;
	}

	public DatabaseInitializationMode getInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

}
