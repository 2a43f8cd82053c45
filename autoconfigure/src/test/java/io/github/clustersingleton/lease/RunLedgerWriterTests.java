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

package io.github.clustersingleton.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RunLedgerWriter}: the records that queue up while a write is on its
 * way go together in the next one, a run's end replacing its start, in order around a
 * mark of lost runs; a write the store refuses is tried again for the retry period.
 *
 * @author cluster-singleton contributors
 */
class RunLedgerWriterTests {

	private static final Instant START = Instant.parse("2026-11-27T10:00:00Z");

	private final CountDownLatch firstWriteMayEnd = new CountDownLatch(1);

	private final CountDownLatch firstWriteStarted = new CountDownLatch(1);

	private final List<String> writes = new ArrayList<>();

	private final RunLedgerWriter writer = new RunLedgerWriter(new RecordingLedger());

	@AfterEach
	void close() {
		this.firstWriteMayEnd.countDown();
		this.writer.close(5_000);
	}

	@Test
	void recordsThatQueueUpWhileAWriteIsOnItsWayGoTogether() throws InterruptedException {
		this.writer.record(run("a", 1, RunState.RUNNING));
		assertThat(this.firstWriteStarted.await(5, TimeUnit.SECONDS)).isTrue();
		this.writer.record(run("a", 1, RunState.SUCCEEDED));
		this.writer.record(run("b", 7, RunState.RUNNING));
		this.writer.record(run("c", 3, RunState.RUNNING));
		this.writer.record(run("b", 7, RunState.FAILED));
		this.firstWriteMayEnd.countDown();
		awaitWrites(2);
		// a#1's start was written before: its end replaces it; b#7's start was not: its
		// end is the first record of that run
		assertThat(this.writes).containsExactly("record a#1 running",
				"recordAll [a#1 succeeded, b#7 failed*, c#3 running]");
	}

	@Test
	void recordsQueuedWithinTheLingerOfTheFirstGoWithIt() {
		this.writer.record(run("a", 1, RunState.RUNNING));
		this.writer.record(run("b", 1, RunState.RUNNING));
		this.writer.record(run("a", 1, RunState.SUCCEEDED));
		this.firstWriteMayEnd.countDown();
		awaitWrites(1);
		assertThat(this.writes).containsExactly("recordAll [a#1 succeeded*, b#1 running]");
	}

	@Test
	void aMarkOfLostRunsKeepsItsPlaceInTheOrder() throws InterruptedException {
		this.writer.record(run("x", 1, RunState.RUNNING));
		assertThat(this.firstWriteStarted.await(5, TimeUnit.SECONDS)).isTrue();
		this.writer.record(run("a", 1, RunState.RUNNING));
		this.writer.record(run("b", 2, RunState.RUNNING));
		this.writer.markLostBefore("a", 2);
		this.writer.record(run("a", 2, RunState.RUNNING));
		this.firstWriteMayEnd.countDown();
		awaitWrites(4);
		assertThat(this.writes).containsExactly("record x#1 running", "recordAll [a#1 running, b#2 running]",
				"markLostBefore a#2", "record a#2 running");
	}

	@Test
	void aFailedGroupCountsEachOfItsRecords() throws InterruptedException {
		RunLedgerWriter failing = new RunLedgerWriter(new RecordingLedger() {

			@Override
			public void recordAll(List<RunRecord> runs, int maxRuns) {
				super.recordAll(runs, maxRuns);
				throw new IllegalStateException("store down");
			}

		}, Ticker.SYSTEM, retrying(Duration.ZERO));
		try {
			failing.record(run("a", 1, RunState.RUNNING));
			assertThat(this.firstWriteStarted.await(5, TimeUnit.SECONDS)).isTrue();
			failing.record(run("b", 1, RunState.RUNNING));
			failing.record(run("c", 1, RunState.RUNNING));
			this.firstWriteMayEnd.countDown();
			await().atMost(Duration.ofSeconds(5)).until(() -> failing.failures() == 2);
		}
		finally {
			failing.close(5_000);
		}
	}

	@Test
	void aWriteTheStoreRefusesIsTriedAgainBeforeTheWritesQueuedBehindIt() {
		AtomicInteger refusals = new AtomicInteger(2);
		RunLedgerWriter retrying = new RunLedgerWriter(new RecordingLedger() {

			@Override
			public void record(RunRecord run, int maxRuns) {
				super.record(run, maxRuns);
				if (run.jobName().equals("a") && refusals.getAndDecrement() > 0) {
					throw new IllegalStateException("connection reset");
				}
			}

		}, Ticker.SYSTEM, retrying(Duration.ofSeconds(10)));
		try {
			this.firstWriteMayEnd.countDown();
			retrying.record(run("a", 1, RunState.SUCCEEDED));
			awaitWrites(3);
			retrying.record(run("b", 1, RunState.SUCCEEDED));
			awaitWrites(4);
			assertThat(this.writes).containsExactly("record a#1 succeeded", "record a#1 succeeded",
					"record a#1 succeeded", "record b#1 succeeded");
			assertThat(retrying.failures()).isZero();
		}
		finally {
			retrying.close(5_000);
		}
	}

	@Test
	void aWriteStillRefusedAtTheEndOfTheRetryPeriodCountsAsFailed() {
		RunLedgerWriter retrying = new RunLedgerWriter(new RecordingLedger() {

			@Override
			public void record(RunRecord run, int maxRuns) {
				super.record(run, maxRuns);
				throw new IllegalStateException("store down");
			}

		}, Ticker.SYSTEM, retrying(Duration.ofMillis(250)));
		try {
			this.firstWriteMayEnd.countDown();
			retrying.record(run("a", 1, RunState.SUCCEEDED));
			await().atMost(Duration.ofSeconds(5)).until(() -> retrying.failures() == 1);
			// 100 ms, then 150 ms (what is left of the period), then no more
			assertThat(this.writes).hasSize(3);
		}
		finally {
			retrying.close(5_000);
		}
	}

	/**
	 * The standard executors, retrying a failed ledger write for the given period.
	 */
	private static EngineExecutors retrying(Duration period) {
		EngineExecutors standard = EngineExecutors.standard();
		return new EngineExecutors() {

			@Override
			public ScheduledExecutorService watchdogTimer() {
				return standard.watchdogTimer();
			}

			@Override
			public ExecutorService renewer() {
				return standard.renewer();
			}

			@Override
			public ScheduledExecutorService monitor() {
				return standard.monitor();
			}

			@Override
			public ExecutorService recoveryWorkers() {
				return standard.recoveryWorkers();
			}

			@Override
			public ScheduledExecutorService completionRetries() {
				return standard.completionRetries();
			}

			@Override
			public ExecutorService ledgerWriter(int queueCapacity, Runnable whenFull) {
				return standard.ledgerWriter(queueCapacity, whenFull);
			}

			@Override
			public Duration ledgerLinger() {
				return standard.ledgerLinger();
			}

			@Override
			public Duration ledgerRetryPeriod() {
				return period;
			}

		};
	}

	private void awaitWrites(int count) {
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			synchronized (this.writes) {
				return this.writes.size() >= count;
			}
		});
	}

	private static RunRecord run(String job, long fence, RunState state) {
		return new RunRecord(job, START, 1, fence, "node-a", RunTrigger.SCHEDULED, state, START,
				(state == RunState.RUNNING) ? null : START.plusSeconds(1), null);
	}

	private static String describe(RunRecord run) {
		return run.jobName() + "#" + run.fencingToken() + " " + run.state().value();
	}

	private class RecordingLedger implements RunLedger {

		@Override
		public void record(RunRecord run, int maxRuns) {
			write("record " + describe(run));
		}

		/** Tells the records a group's write says are their run's first (marked *). */
		private Predicate<RunRecord> firstRecord = (run) -> false;

		@Override
		public void recordAll(List<RunRecord> runs, int maxRuns) {
			write("recordAll "
					+ runs.stream().map((run) -> describe(run) + (this.firstRecord.test(run) ? "*" : "")).toList());
		}

		@Override
		public void recordAll(List<RunRecord> runs, int maxRuns, Predicate<RunRecord> firstRecord) {
			this.firstRecord = firstRecord;
			recordAll(runs, maxRuns);
		}

		@Override
		public void markLostBefore(String jobName, long fencingToken) {
			write("markLostBefore " + jobName + "#" + fencingToken);
		}

		private void write(String write) {
			boolean first;
			synchronized (RunLedgerWriterTests.this.writes) {
				RunLedgerWriterTests.this.writes.add(write);
				first = RunLedgerWriterTests.this.writes.size() == 1;
			}
			if (first) {
				RunLedgerWriterTests.this.firstWriteStarted.countDown();
				try {
					RunLedgerWriterTests.this.firstWriteMayEnd.await(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		@Override
		public List<RunRecord> history(String jobName, int limit) {
			return List.of();
		}

		@Override
		public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
			return Map.of();
		}

	}

}
