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

import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Records each run's start and end in a table, on the database's clock, so that runs of
 * different JVMs compare on one clock.
 *
 * @author cluster-singleton contributors
 */
final class RunRecorder {

	private final JdbcTemplate jdbc;

	private final String table;

	private final String now;

	RunRecorder(DataSource dataSource, String table) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.table = table;
		String product = this.jdbc.execute((java.sql.Connection connection) -> connection.getMetaData()
			.getDatabaseProductName()
			.toLowerCase(Locale.ROOT));
		// the time the statement runs, not the transaction's start
		this.now = (product != null && product.contains("postgresql")) ? "clock_timestamp()" : "SYSDATE(6)";
	}

	void started(String id, String node) {
		this.jdbc.update("INSERT INTO " + this.table + " (id, node, started) VALUES (?, ?, " + this.now + ")", id,
				node);
	}

	void ended(String id) {
		this.jdbc.update("UPDATE " + this.table + " SET ended = " + this.now + " WHERE id = ?", id);
	}

}
