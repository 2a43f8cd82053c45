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

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Upgrade of a lease table created before the run columns existed (the seven columns of
 * 0.1), on PostgreSQL and MariaDB: the schema initializer adds the columns, also when
 * several nodes do it at once; without initialization, startup fails naming them.
 *
 * @author cluster-singleton contributors
 */
class JdbcLeaseSchemaUpgradeTests {

	private static final Instant SLOT = Instant.parse("2026-01-01T10:00:00Z");

	static Stream<Arguments> databases() {
		return Stream.of(
				Arguments.of("postgresql", (Supplier<HikariDataSource>) TestStores::postgresDataSource,
						"TIMESTAMP WITH TIME ZONE", ""),
				Arguments.of("mariadb", (Supplier<HikariDataSource>) TestStores::mariadbDataSource, "DATETIME(6)",
						" ENGINE = InnoDB"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void withoutInitializationStartupFailsNamingTheMissingColumnsAndTheirAlterStatements(String platform,
			Supplier<HikariDataSource> pool, String timestamp, String options) {
		try (HikariDataSource dataSource = pool.get()) {
			String table = createOldTable(dataSource, timestamp, options);
			try {
				JdbcLeaseBackend backend = new JdbcLeaseBackend(dataSource, table);
				backend.setSchemaInitializer(
						new JdbcLeaseSchemaInitializer(dataSource, table, DatabaseInitializationMode.NEVER));
				assertThatExceptionOfType(ClusterSingletonConfigurationException.class).isThrownBy(backend::initialize)
					.withMessageContaining("'" + table + "'")
					.withMessageContaining("run_slot, attempt, run_state, retry_at")
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN run_slot " + timestamp)
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN attempt INT")
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN run_state VARCHAR(16)")
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN retry_at " + timestamp)
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN paused_at " + timestamp)
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN paused_by VARCHAR(255)")
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN pause_reason VARCHAR(500)")
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN cron_override VARCHAR(255)")
					.withMessageContaining("cluster-singleton.jdbc.initialize-schema=always");
			}
			finally {
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + table);
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + JdbcPlatform.manualRunTableName(table));
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void initializationAddsTheRunColumnsAndKeepsTheRows(String platform, Supplier<HikariDataSource> pool,
			String timestamp, String options) {
		try (HikariDataSource dataSource = pool.get()) {
			String table = createOldTable(dataSource, timestamp, options);
			try {
				String existing = "existing-" + UUID.randomUUID();
				new JdbcTemplate(dataSource).update(
						"INSERT INTO " + table
								+ " (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token) "
								+ "VALUES (?, 'node-a', 'released:x', ?, ?, ?, 7)",
						existing, oldTimestamp(platform, SLOT), oldTimestamp(platform, SLOT),
						oldTimestamp(platform, SLOT));
				JdbcLeaseBackend backend = new JdbcLeaseBackend(dataSource, table);
				backend.setSchemaInitializer(
						new JdbcLeaseSchemaInitializer(dataSource, table, DatabaseInitializationMode.ALWAYS));
				backend.initialize();
				assertThat(backend.describe(existing)).get()
					.satisfies((info) -> assertThat(info.fencingToken()).isEqualTo(7))
					.extracting(LeaseInfo::lastSlot)
					.isEqualTo(SLOT);
				ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
				LeaseRequest request = new LeaseRequest(existing, "node-b", UUID.randomUUID().toString(),
						Duration.ofSeconds(30), SLOT.plusSeconds(60))
					.withPolicy(policy, SLOT);
				AcquireResult result = backend.tryAcquire(request);
				assertThat(result.fencingToken()).isEqualTo(8);
				assertThat(result.run()).isEqualTo(new SlotRun(SLOT.plusSeconds(60), 1, RunState.RUNNING));
				assertThat(backend.findPending(Map.of(existing, policy))).isEmpty();
				// the controls work on the upgraded table
				JobControls controls = backend.controls().orElseThrow();
				controls.pause(existing, "ops", "upgraded");
				assertThat(backend
					.tryAcquire(new LeaseRequest(existing, "node-c", UUID.randomUUID().toString(),
							Duration.ofSeconds(30), SLOT.plusSeconds(120)))
					.outcome()).isEqualTo(AcquireResult.Outcome.PAUSED);
				assertThat(controls.read(List.of(existing)).get(existing).pauseReason()).isEqualTo("upgraded");
				assertThat(controls.requestRun(existing, "ops").state()).isEqualTo(ManualRun.State.PENDING);
			}
			finally {
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + table);
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + JdbcPlatform.manualRunTableName(table));
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void nodesUpgradingTheTableAtOnceAllSucceed(String platform, Supplier<HikariDataSource> pool, String timestamp,
			String options) throws Exception {
		int nodes = 6;
		ExecutorService executor = Executors.newFixedThreadPool(nodes);
		try (HikariDataSource dataSource = pool.get()) {
			String table = createOldTable(dataSource, timestamp, options);
			try {
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Boolean>> results = new ArrayList<>();
				for (int i = 0; i < nodes; i++) {
					results.add(executor.submit(() -> {
						start.await();
						return new JdbcLeaseSchemaInitializer(dataSource, table, DatabaseInitializationMode.ALWAYS)
							.initialize();
					}));
				}
				start.countDown();
				for (Future<Boolean> result : results) {
					assertThat(result.get(60, TimeUnit.SECONDS)).isTrue();
				}
				JdbcLeaseBackend backend = new JdbcLeaseBackend(dataSource, table);
				backend.setSchemaInitializer(
						new JdbcLeaseSchemaInitializer(dataSource, table, DatabaseInitializationMode.NEVER));
				backend.initialize();
			}
			finally {
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + table);
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + JdbcPlatform.manualRunTableName(table));
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static Object oldTimestamp(String platform, Instant instant) {
		return platform.equals("postgresql") ? OffsetDateTime.ofInstant(instant, ZoneOffset.UTC)
				: LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
	}

	/**
	 * Create a lease table as 0.1 did, without the run columns.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void aTableOf02GetsTheRecoveryMarkAndKeepsItsRunningRun(String platform, Supplier<HikariDataSource> pool,
			String timestamp, String options) {
		try (HikariDataSource dataSource = pool.get()) {
			String table = createOldTable(dataSource, timestamp, options);
			try {
				JdbcTemplate jdbc = new JdbcTemplate(dataSource);
				for (String column : List.of("run_slot " + timestamp, "attempt INT", "run_state VARCHAR(16)",
						"retry_at " + timestamp)) {
					jdbc.execute("ALTER TABLE " + table + " ADD COLUMN " + column + " NULL");
				}
				// a run that a 0.2 node left running on an expired lease
				String existing = "existing-" + UUID.randomUUID();
				jdbc.update("INSERT INTO " + table
						+ " (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token, run_slot, "
						+ "attempt, run_state) VALUES (?, 'node-a', 'token-a', ?, ?, ?, 7, ?, 1, 'running')", existing,
						oldTimestamp(platform, SLOT), oldTimestamp(platform, SLOT), oldTimestamp(platform, SLOT),
						oldTimestamp(platform, SLOT));
				JdbcLeaseBackend never = new JdbcLeaseBackend(dataSource, table);
				never.setSchemaInitializer(
						new JdbcLeaseSchemaInitializer(dataSource, table, DatabaseInitializationMode.NEVER));
				assertThatExceptionOfType(ClusterSingletonConfigurationException.class).isThrownBy(never::initialize)
					.withMessageContaining(
							"lacks the column(s) recover_at, paused_at, paused_by, pause_reason, cron_override ")
					.withMessageContaining("ALTER TABLE " + table + " ADD COLUMN recover_at " + timestamp);
				JdbcLeaseBackend backend = new JdbcLeaseBackend(dataSource, table);
				backend.setSchemaInitializer(
						new JdbcLeaseSchemaInitializer(dataSource, table, DatabaseInitializationMode.ALWAYS));
				backend.initialize();
				ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
				assertThat(backend.findPending(Map.of(existing, policy))).containsExactly(existing);
				// the first recovery claim marks the run (a grace of 1 ms), a later one
				// takes it
				assertThat(backend
					.tryAcquire(LeaseRequest.recovery(existing, "node-b", "token-b", Duration.ofMillis(4), policy))
					.isAcquired()).isFalse();
				AcquireResult result = org.awaitility.Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> backend.tryAcquire(LeaseRequest.recovery(existing, "node-c",
							UUID.randomUUID().toString(), Duration.ofSeconds(30), policy)), AcquireResult::isAcquired);
				assertThat(result.fencingToken()).isEqualTo(8);
				assertThat(result.run()).isEqualTo(new SlotRun(SLOT, 1, RunState.RUNNING));
			}
			finally {
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + table);
				new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + JdbcPlatform.manualRunTableName(table));
			}
		}
	}

	private static String createOldTable(HikariDataSource dataSource, String timestamp, String options) {
		String table = "cs_upgrade_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		new JdbcTemplate(dataSource).execute("CREATE TABLE " + table + " (name VARCHAR(200) NOT NULL PRIMARY KEY, "
				+ "owner VARCHAR(255) NOT NULL, lease_token VARCHAR(64) NOT NULL, acquired_at " + timestamp
				+ " NOT NULL, expires_at " + timestamp + " NOT NULL, last_slot " + timestamp + " NULL, "
				+ "fencing_token BIGINT NOT NULL)" + options);
		return table;
	}

}
