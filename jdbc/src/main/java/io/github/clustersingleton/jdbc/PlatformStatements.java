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

/**
 * The statements of the JDBC store on one database platform, for the configured table
 * names: those of the lease table, of the run table, and of the lease table's upgrade.
 *
 * @param platform the platform
 * @param lease the lease table's statements
 * @param runLedger the run table's statements
 * @param schemaUpgrade the lease table's upgrade
 * @param controls the statements of the controls on the lease table
 * @param manualRuns the run-now request table's statements
 * @param presence the statements of the presence rows and the sweep's read
 * @author cluster-singleton contributors
 */
record PlatformStatements(JdbcPlatform platform, LeaseStatements lease, RunLedgerStatements runLedger,
		SchemaUpgrade schemaUpgrade, ControlStatements controls, ManualRunStatements manualRuns,
		PresenceStatements presence) {

	/**
	 * Return the statements of a platform.
	 * @param platform the platform
	 * @param table the validated name of the lease table
	 * @param runTable the validated name of the run table
	 * @return the statements
	 */
	static PlatformStatements of(JdbcPlatform platform, String table, String runTable) {
		// MariaDB shares MySQL's statements but for its acquisition
		String directory = (platform == JdbcPlatform.MARIADB) ? JdbcPlatform.MYSQL.id() : platform.id();
		TimeBinding time = TimeBinding.of(platform);
		ManualRunStatements manualRuns = new ManualRunStatements(directory, table,
				JdbcPlatform.manualRunTableName(table), time);
		return new PlatformStatements(platform, LeaseStatements.of(platform, table),
				new RunLedgerStatements(directory, table, runTable, time), new SchemaUpgrade(directory, table, time),
				new ControlStatements(directory, table, manualRuns, time), manualRuns,
				new PresenceStatements(directory, table, time));
	}

}
