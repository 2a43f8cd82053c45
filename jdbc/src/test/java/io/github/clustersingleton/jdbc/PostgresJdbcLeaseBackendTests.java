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
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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

	/**
	 * A deadlock in the second round trip of claims sent together sends that round trip
	 * again by itself: the first one, committed, keeps its grants. The deadlock is a
	 * trigger that raises PostgreSQL's deadlock error once, for one job.
	 */
	@Test
	void aDeadlockInALaterRoundTripOfClaimsSentTogetherSendsOnlyThatOneAgain() throws SQLException {
		String prefix = jobName("deadlock") + "-";
		String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
		String sequence = "cs_deadlock_once_" + suffix;
		String function = "cs_deadlock_" + suffix;
		String table = JdbcLeaseBackend.DEFAULT_TABLE_NAME;
		try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE SEQUENCE " + sequence);
			statement.execute("CREATE FUNCTION " + function + "() RETURNS trigger AS $$ BEGIN IF NEW.name = '" + prefix
					+ "070' AND nextval('" + sequence + "') = 1 THEN RAISE EXCEPTION "
					+ "'deadlock detected (simulated)' USING ERRCODE = '40P01'; END IF; RETURN NEW; END $$ "
					+ "LANGUAGE plpgsql");
			statement.execute("CREATE TRIGGER " + function + " BEFORE INSERT OR UPDATE ON " + table
					+ " FOR EACH ROW EXECUTE FUNCTION " + function + "()");
		}
		try {
			Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
			List<LeaseRequest> requests = new ArrayList<>();
			for (int i = 0; i < 72; i++) {
				requests.add(request(prefix + String.format("%03d", i), "node-a", LONG_TTL, slot));
			}
			assertThat(backend().acquiresTogether()).isTrue();
			assertThat(backend().tryAcquireAll(requests)).extracting(AcquireResult::outcome)
				.containsOnly(Outcome.ACQUIRED);
		}
		finally {
			try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("DROP TRIGGER " + function + " ON " + table);
				statement.execute("DROP FUNCTION " + function + "()");
				statement.execute("DROP SEQUENCE " + sequence);
			}
		}
	}

}
