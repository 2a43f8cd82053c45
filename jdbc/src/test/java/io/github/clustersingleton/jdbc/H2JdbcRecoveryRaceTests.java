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

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * {@link AbstractJdbcRecoveryRaceTests} on H2, whose sessions wait up to 10 s for a row
 * lock (H2's default of 1 s only narrows the window).
 *
 * @author cluster-singleton contributors
 */
class H2JdbcRecoveryRaceTests extends AbstractJdbcRecoveryRaceTests {

	@Override
	protected HikariDataSource createPool() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:cluster-singleton-race-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		config.setConnectionInitSql("SET LOCK_TIMEOUT 10000");
		config.setMaximumPoolSize(20);
		config.setPoolName("test-h2-race");
		return new HikariDataSource(config);
	}

	/**
	 * Return false: H2's {@code CURRENT_TIMESTAMP} is the statement's start time and H2
	 * has no other clock (return true to see the race happen).
	 */
	/**
	 * Return false: for the same reason, a recovery mark that waited for the row lock
	 * counts its grace from the time the statement began.
	 */
	@Override
	protected boolean countsTheRecoveryGraceFromTheMarksWrite() {
		return false;
	}

	@Override
	protected boolean refusesAStartRunGrantedAfterTheExpiry() {
		return false;
	}

	/**
	 * Return false: H2 has no clock other than the statement's start.
	 */
	@Override
	protected boolean stampsTheResumeWithTheTimeItTakesEffect() {
		return false;
	}

}
