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
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * Lease backend contract and JDBC tests on MariaDB.
 *
 * @author cluster-singleton contributors
 */
class MariaDbJdbcLeaseBackendTests extends AbstractJdbcLeaseBackendTests {

	@Override
	protected HikariDataSource createPool() {
		return TestStores.mariadbDataSource();
	}

	@Override
	protected DataSource createUnreachableDataSource() {
		return TestStores.unreachableDataSource("mariadb");
	}

	@Override
	protected String schemaName() {
		return "test";
	}

	/**
	 * Return 1: {@code RETURNING} yields the row whether the upsert won or not.
	 */
	@Override
	protected int expectedFailedAcquireRoundTrips() {
		return 1;
	}

	/**
	 * Return false: the renewal is an {@code UPDATE} without {@code RETURNING}.
	 */
	@Override
	protected boolean reportsStoreTimeOnRenewal() {
		return false;
	}

	/**
	 * A claim that fails among claims sent together rolls back the claims before it: the
	 * call holds nothing, so no slot is taken by a node that was told its claims failed.
	 * The failure is a trigger that refuses one job's insert.
	 */
	@Test
	void aClaimThatFailsAmongClaimsSentTogetherLeavesNoneOfThemTaken() throws SQLException {
		String prefix = jobName("rollback") + "-";
		String trigger = "cs_refuse_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
		String table = JdbcLeaseBackend.DEFAULT_TABLE_NAME;
		try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + table
					+ " FOR EACH ROW BEGIN IF NEW.name = '" + prefix + "007' THEN SIGNAL SQLSTATE '45000' "
					+ "SET MESSAGE_TEXT = 'refused (simulated)'; END IF; END");
		}
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		List<LeaseRequest> requests = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			requests.add(request(prefix + String.format("%03d", i), "node-a", LONG_TTL, slot));
		}
		try {
			assertThat(backend().acquiresTogether()).isTrue();
			assertThatRuntimeException().isThrownBy(() -> backend().tryAcquireAll(requests));
			for (LeaseRequest request : requests) {
				assertThat(backend().describe(request.jobName())).as(request.jobName()).isEmpty();
			}
		}
		finally {
			try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("DROP TRIGGER " + trigger);
			}
		}
		List<LeaseRequest> again = requests.stream()
			.map((request) -> request(request.jobName(), "node-b", LONG_TTL, slot))
			.toList();
		assertThat(backend().tryAcquireAll(again)).extracting(AcquireResult::outcome).containsOnly(Outcome.ACQUIRED);
	}

	/**
	 * A server that refuses the batch of claims in its bulk protocol (error 1295, which
	 * MariaDB 11.5 and later may answer to a batch of upserts) gets the claims one at a
	 * time in the same call, all of them answered, and from then on no batch: the backend
	 * stops saying that it sends claims together. The refusal is a trigger that raises
	 * error 1295 inside a transaction only.
	 */
	@Test
	void aServerThatRefusesTheBatchGetsTheClaimsOneByOneFromThenOn() throws SQLException {
		JdbcLeaseBackend backend = freshBackend();
		assertThat(backend.acquiresTogether()).isTrue();
		assertEveryClaimAcquiredAfterTheTransactionFails(backend, 1295, jobName("bulk"));
		assertThat(backend.acquiresTogether()).isFalse();
	}

	/**
	 * A row changed since the transaction of claims read it (error 1020 under
	 * {@code innodb_snapshot_isolation}) gets the call's claims one at a time, all of
	 * them answered; the next call sends its claims together again.
	 */
	@Test
	void aRowChangedUnderTheTransactionGetsThatCallsClaimsOneByOne() throws SQLException {
		JdbcLeaseBackend backend = freshBackend();
		assertEveryClaimAcquiredAfterTheTransactionFails(backend, 1020, jobName("changed"));
		assertThat(backend.acquiresTogether()).isTrue();
	}

	/**
	 * A claim that fails when the call's claims are made one at a time leaves the claims
	 * answered before and after it their grants: the call answers them, and the failed
	 * one's trigger asks by itself, so no slot is taken by a lease its node does not
	 * know.
	 */
	@Test
	void aClaimThatFailsWhenTheClaimsGoOneByOneLeavesTheOthersTheirGrants() throws SQLException {
		JdbcLeaseBackend backend = freshBackend();
		List<LeaseRequest> requests = requestsFor(jobName("one-fails"));
		String failing = requests.get(5).jobName();
		refusedInATransaction(requests, 1020, failing, () -> {
			List<AcquireResult> results = backend.tryAcquireAll(requests);
			for (int i = 0; i < requests.size(); i++) {
				assertThat(results.get(i).isAcquired()).as(requests.get(i).jobName()).isEqualTo(i != 5);
			}
		});
		assertThat(backend.describe(failing)).isEmpty();
		assertThat(backend.describe(requests.get(4).jobName())).get()
			.satisfies((info) -> assertThat(info.holder()).isEqualTo("node-a"));
	}

	/**
	 * A backend of its own, whose switch to claims one at a time no other test sees.
	 */
	private JdbcLeaseBackend freshBackend() {
		JdbcLeaseBackend backend = new JdbcLeaseBackend(pool(), JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		backend.probe();
		return backend;
	}

	private void assertEveryClaimAcquiredAfterTheTransactionFails(JdbcLeaseBackend backend, int errorCode, String name)
			throws SQLException {
		List<LeaseRequest> requests = requestsFor(name);
		refusedInATransaction(requests, errorCode, null,
				() -> assertThat(backend.tryAcquireAll(requests)).extracting(AcquireResult::outcome)
					.containsOnly(Outcome.ACQUIRED));
	}

	/**
	 * Run the claims while a trigger raises the error for the requests' jobs inside a
	 * transaction only, so that a claim in a transaction of its own is not refused, and
	 * refuses the insert of {@code alwaysRefused} in any case.
	 */
	private void refusedInATransaction(List<LeaseRequest> requests, int errorCode, @Nullable String alwaysRefused,
			Runnable claims) throws SQLException {
		String trigger = "cs_refuse_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
		String names = String.join("', '", requests.stream().map(LeaseRequest::jobName).toList());
		try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + JdbcLeaseBackend.DEFAULT_TABLE_NAME
					+ " FOR EACH ROW BEGIN IF NEW.name IN ('" + names + "') AND @@autocommit = 0 THEN "
					+ "SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = " + errorCode
					+ ", MESSAGE_TEXT = 'refused in a transaction (simulated)'; END IF; IF NEW.name = '" + alwaysRefused
					+ "' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused (simulated)'; END IF; END");
		}
		try {
			claims.run();
		}
		finally {
			try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("DROP TRIGGER " + trigger);
			}
		}
	}

	private static List<LeaseRequest> requestsFor(String name) {
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		List<LeaseRequest> requests = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			requests.add(request(name + "-" + String.format("%03d", i), "node-a", LONG_TTL, slot));
		}
		return requests;
	}

}
