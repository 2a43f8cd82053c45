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

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run ledger's grouped writes on PostgreSQL, from two nodes at once: every node
 * writes the record of a slot skipped while paused under the same key, and two groups of
 * such records, sent in different orders, must not deadlock and lose a whole group.
 *
 * @author cluster-singleton contributors
 */
class PostgresRunLedgerBatchTests {

	private static final int JOBS = 60;

	private static final int ROUNDS = 10;

	@Test
	void concurrentBatchesOfTheSameKeysDoNotFail() throws Exception {
		String suffix = Long.toHexString(System.nanoTime());
		String leaseTable = "cs_review_" + suffix + "_lease";
		String runTable = "cs_review_" + suffix + "_run";
		try (HikariDataSource dataSource = TestStores.postgresDataSource()) {
			assertThat(
					new JdbcLeaseSchemaInitializer(dataSource, leaseTable, runTable, DatabaseInitializationMode.ALWAYS)
						.initialize())
				.isTrue();
			try {
				RunLedger ledger = new JdbcLeaseBackend(dataSource, leaseTable, runTable).runLedger();
				int[] single = run(ledger, false, Instant.parse("2026-01-01T00:00:00Z"));
				int[] batched = run(ledger, true, Instant.parse("2026-06-01T00:00:00Z"));
				assertThat(single[0]).as("failed writes, records sent one by one").isZero();
				assertThat(batched[0]).as("failed batches, records sent with recordAll").isZero();
			}
			finally {
				JdbcTemplate jdbc = new JdbcTemplate(dataSource);
				jdbc.execute("DROP TABLE IF EXISTS " + runTable);
				jdbc.execute("DROP TABLE IF EXISTS " + leaseTable);
				jdbc.execute("DROP TABLE IF EXISTS " + JdbcPlatform.manualRunTableName(leaseTable));
			}
		}
	}

	/**
	 * Two "nodes" write the paused records of the same jobs for the same slot at once, in
	 * opposite orders; every round a new slot (new keys: the insert path), then the same
	 * slot again (existing keys: the update path).
	 * @return {failed writes, of which deadlocks}
	 */
	private int[] run(RunLedger ledger, boolean batched, Instant base) throws Exception {
		AtomicInteger failed = new AtomicInteger();
		AtomicInteger deadlocks = new AtomicInteger();
		ExecutorService nodes = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 2 * ROUNDS; round++) {
				Instant slot = base.plusSeconds(60L * (round / 2));
				CyclicBarrier start = new CyclicBarrier(2);
				List<Future<?>> futures = new ArrayList<>();
				for (String node : List.of("node-a", "node-b")) {
					List<RunRecord> records = paused(slot, node);
					if (node.equals("node-b")) {
						Collections.reverse(records);
					}
					futures.add(nodes.submit(() -> {
						start.await();
						if (batched) {
							write(() -> ledger.recordAll(records, 100), failed, deadlocks);
						}
						else {
							for (RunRecord record : records) {
								write(() -> ledger.record(record, 100), failed, deadlocks);
							}
						}
						return null;
					}));
				}
				for (Future<?> future : futures) {
					future.get();
				}
			}
		}
		finally {
			nodes.shutdownNow();
		}
		return new int[] { failed.get(), deadlocks.get() };
	}

	private static List<RunRecord> paused(Instant slot, String node) {
		return new ArrayList<>(IntStream.range(0, JOBS)
			.mapToObj((i) -> new RunRecord("job-" + i, slot, 0, RunState.pausedFencingToken(slot), node,
					RunTrigger.SCHEDULED, RunState.PAUSED, slot, slot, "paused"))
			.toList());
	}

	private static void write(Runnable write, AtomicInteger failed, AtomicInteger deadlocks) {
		try {
			write.run();
		}
		catch (RuntimeException ex) {
			failed.incrementAndGet();
			for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
				if (cause instanceof SQLException sql && "40P01".equals(sql.getSQLState())) {
					deadlocks.incrementAndGet();
					break;
				}
			}
		}
	}

}
