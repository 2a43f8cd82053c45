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

import java.util.List;

/**
 * Lease backend contract and JDBC tests on MariaDB with connections in the server's
 * {@code sql_mode} plus {@code SIMULTANEOUS_ASSIGNMENT}, under which every assignment of
 * an {@code UPDATE} or {@code ON DUPLICATE KEY UPDATE} sees the stored row rather than
 * the columns assigned before it.
 *
 * @author cluster-singleton contributors
 */
class MariaDbSimultaneousAssignmentJdbcLeaseBackendTests extends AbstractMariaDbSqlModeJdbcLeaseBackendTests {

	@Override
	protected String sqlMode() {
		return "CONCAT(@@GLOBAL.sql_mode, ',SIMULTANEOUS_ASSIGNMENT')";
	}

	@Override
	protected List<String> expectedFlags() {
		return List.of("SIMULTANEOUS_ASSIGNMENT");
	}

}
