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

package io.github.clustersingleton.contract;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract every {@link LeaseBackend} meets, run against a real store by one subclass
 * per backend. Every test uses job names of its own, so tests never see each other's
 * leases and the store needs no cleaning.
 * <p>
 * This class holds the run-ledger cases: {@code findPending} looks at every job in one
 * round trip, and the ledger keeps the newest runs of each job. The other groups are in
 * its abstract superclasses, one group each: presence entries, run-now requests, cron
 * overrides and reads of the controls, pause and resume, run completions and marks, claim
 * policies and recovery, other operations and their round trips, slots, renewal and
 * release, and exclusivity and fencing, over the fixtures they share and the engine half.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(Lifecycle.PER_CLASS)
public abstract class AbstractLeaseBackendContractTests extends StorePresenceContract {

	@Test
	void findPendingLooksAtEveryJobInOneRoundTrip() {
		assumeTrue(supportsRecovery());
		Map<String, ClaimPolicy> jobs = new LinkedHashMap<>();
		for (int i = 0; i < 5; i++) {
			String job = jobName("pending-" + i);
			LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
			held(first, backend().tryAcquire(first));
			jobs.put(job, RECOVER_LOST);
		}
		jobs.put(jobName("never-claimed"), RECOVER_LOST);
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			jobs.keySet().forEach((job) -> timeTravel.elapse(job, storedTtl(SHORT_TTL).plus(BEYOND)));
		}
		else {
			await().atMost(PATIENCE).until(() -> backend().findPending(jobs).size() == 5);
		}
		resetRoundTrips();
		assertThat(backend().findPending(jobs)).hasSize(5).doesNotContain(jobs.keySet().stream().toList().get(5));
		assertThat(roundTrips()).isEqualTo(expectedFindPendingRoundTrips());
	}

	@Test
	void theRunLedgerKeepsTheNewestRunsOfEachJob() {
		assumeTrue(supportsRecovery());
		String job = jobName("ledger");
		RunLedger ledger = backend().runLedger();
		Instant start = Instant.parse("2026-01-01T10:00:00.123Z");
		for (int fence = 1; fence <= 6; fence++) {
			RunRecord running = new RunRecord(job, S1.plusSeconds(60L * fence), 1, fence, "node-a",
					RunTrigger.SCHEDULED, RunState.RUNNING, start.plusSeconds(fence), null, null);
			ledger.record(running, 4);
			if (fence != 5) {
				ledger.record(running.finish((fence == 3) ? RunState.FAILED : RunState.SUCCEEDED,
						start.plusSeconds(fence + 1), (fence == 3) ? "java.lang.IllegalStateException: boom" : null),
						4);
			}
		}
		ledger.markLostBefore(job, 7);
		List<RunRecord> history = ledger.history(job, 10);
		assertThat(history).extracting(RunRecord::fencingToken).containsExactly(6L, 5L, 4L, 3L);
		assertThat(history.get(0).state()).as("an ended run is not marked lost").isEqualTo(RunState.SUCCEEDED);
		assertThat(history.get(1).state()).isEqualTo(RunState.LOST);
		assertThat(history.get(2).slot()).isEqualTo(S1.plusSeconds(240));
		assertThat(history.get(2).startedAt()).isEqualTo(start.plusSeconds(4));
		assertThat(history.get(2).trigger()).isEqualTo(RunTrigger.SCHEDULED);
		assertThat(history.get(2).owner()).isEqualTo("node-a");
		assertThat(history.get(3).state()).isEqualTo(RunState.FAILED);
		assertThat(history.get(3).error()).contains("boom");
		assertThat(ledger.history(job, 2)).hasSize(2);
		String other = jobName("ledger-other");
		assertThat(ledger.lastSuccess(List.of(job, other))).containsOnlyKeys(job)
			.containsEntry(job, start.plusSeconds(7));
	}

	@Test
	void theLastSuccessIsFoundBehindManyFailedRuns() {
		assumeTrue(supportsRecovery());
		String failing = jobName("ledger-failing");
		String recent = jobName("ledger-recent");
		String never = jobName("ledger-never");
		RunLedger ledger = backend().runLedger();
		Instant start = Instant.parse("2026-01-01T10:00:00.123Z");
		List<RunRecord> runs = new java.util.ArrayList<>();
		for (int fence = 1; fence <= 12; fence++) {
			Instant started = start.plusSeconds(10L * fence);
			// one success, then eleven failures: more than the newest records a store
			// may look at first
			runs.add(new RunRecord(failing, S1.plusSeconds(60L * fence), 1, fence, "node-a", RunTrigger.SCHEDULED,
					(fence == 1) ? RunState.SUCCEEDED : RunState.FAILED, started, started.plusSeconds(1),
					(fence == 1) ? null : "java.lang.IllegalStateException: boom"));
			// successes, the newest one still running
			runs.add(new RunRecord(recent, S1.plusSeconds(60L * fence), 1, fence, "node-b", RunTrigger.SCHEDULED,
					(fence == 12) ? RunState.RUNNING : RunState.SUCCEEDED, started,
					(fence == 12) ? null : started.plusSeconds(2), null));
			runs.add(new RunRecord(never, S1.plusSeconds(60L * fence), 1, fence, "node-c", RunTrigger.SCHEDULED,
					RunState.FAILED, started, started.plusSeconds(1), "java.lang.IllegalStateException: never"));
		}
		ledger.recordAll(runs, 100);
		assertThat(ledger.lastSuccess(List.of(failing, recent, never))).hasSize(2)
			.containsEntry(failing, start.plusSeconds(11))
			.containsEntry(recent, start.plusSeconds(112));
	}

	@Test
	void theRunLedgerRecordsRunsOfSeveralJobsTogether() {
		assumeTrue(supportsRecovery());
		String first = jobName("ledger-batch-a");
		String second = jobName("ledger-batch-b");
		RunLedger ledger = backend().runLedger();
		Instant start = Instant.parse("2026-01-01T10:00:00.123Z");
		List<RunRecord> runs = new java.util.ArrayList<>();
		for (int fence = 1; fence <= 5; fence++) {
			for (String job : List.of(first, second)) {
				RunRecord running = new RunRecord(job, S1.plusSeconds(60L * fence), 1, fence, "node-a",
						RunTrigger.SCHEDULED, RunState.RUNNING, start.plusSeconds(fence), null, null);
				runs.add(running);
				if (fence != 4 || job.equals(second)) {
					// the end of a run replaces its start, in the same write
					runs.add(running.finish((fence == 2) ? RunState.FAILED : RunState.SUCCEEDED,
							start.plusSeconds(fence + 1),
							(fence == 2) ? "java.lang.IllegalStateException: boom" : null));
				}
			}
		}
		ledger.recordAll(runs, 3);
		List<RunRecord> history = ledger.history(first, 10);
		assertThat(history).extracting(RunRecord::fencingToken).containsExactly(5L, 4L, 3L);
		assertThat(history).extracting(RunRecord::state)
			.containsExactly(RunState.SUCCEEDED, RunState.RUNNING, RunState.SUCCEEDED);
		assertThat(history.get(1).slot()).isEqualTo(S1.plusSeconds(240));
		assertThat(history.get(1).startedAt()).isEqualTo(start.plusSeconds(4));
		assertThat(history.get(1).finishedAt()).isNull();
		assertThat(history.get(0).finishedAt()).isEqualTo(start.plusSeconds(6));
		assertThat(ledger.history(second, 10)).extracting(RunRecord::fencingToken).containsExactly(5L, 4L, 3L);
		ledger.recordAll(List.of(new RunRecord(first, S1.plusSeconds(360), 1, 6, "node-b", RunTrigger.SCHEDULED,
				RunState.FAILED, start.plusSeconds(6), start.plusSeconds(7), "java.lang.IllegalStateException: again")),
				3);
		List<RunRecord> later = ledger.history(first, 10);
		assertThat(later).extracting(RunRecord::fencingToken).containsExactly(6L, 5L, 4L);
		assertThat(later.get(0).error()).contains("again");
		assertThat(later.get(0).owner()).isEqualTo("node-b");
		assertThat(ledger.lastSuccess(List.of(first, second))).containsEntry(first, start.plusSeconds(6))
			.containsEntry(second, start.plusSeconds(6));
	}

}
