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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import io.github.clustersingleton.test.InMemoryLeaseBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for how {@link ClusterSingletonExecutor} tells an overdue job: from the run
 * ledger as of its last read, so that a job that runs every period on some node does not
 * look overdue between two reads of the ledger.
 *
 * @author cluster-singleton contributors
 */
class OverdueJudgementTests {

	private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

	private static final Duration TTL = Duration.ofSeconds(10);

	private final SettableClock clock = new SettableClock();

	private final InMemoryLeaseBackend store = new InMemoryLeaseBackend(this.clock);

	// a job that runs every 5 s somewhere, with the default alert-after of two periods
	private final JobDefinition job = JobDefinition.of("report", Duration.ofMinutes(1), Duration.ZERO)
		.withPolicies(JobPolicies.DEFAULT.withAlertAfter(Duration.ofSeconds(10)));

	private final ClusterSingletonExecutor watching = node("node-a");

	private final ClusterSingletonExecutor running = node("node-b");

	@AfterEach
	void close() {
		this.watching.close();
		this.running.close();
	}

	@Test
	void aJobThatRunsElsewhereEveryPeriodIsNotOverdueBetweenTwoReadsOfTheLedger() throws Throwable {
		this.watching.registerJob(this.job, () -> null);
		runAt(this.running, 4);
		readLedgerAt(9);
		runAt(this.running, 12);
		this.clock.at(15.5);
		assertThat(this.watching.isOverdue(this.job))
			.as("11.5 s after the success the last read saw, but 3.5 s after one it has not read yet")
			.isFalse();
		readLedgerAt(19);
		assertThat(this.watching.isOverdue(this.job)).isFalse();
		readLedgerAt(23);
		assertThat(this.watching.isOverdue(this.job)).as("no success since 12 s, read at 23 s").isTrue();
	}

	@Test
	void aSuccessOnThisNodeEndsOverdueBeforeTheNextRead() throws Throwable {
		this.watching.registerJob(this.job, () -> null);
		readLedgerAt(11);
		assertThat(this.watching.isOverdue(this.job)).isTrue();
		runAt(this.watching, 12);
		assertThat(this.watching.isOverdue(this.job)).isFalse();
	}

	@Test
	void aReadOlderThanTwoRefreshPeriodsNoLongerHoldsTheAnswerBack() throws Throwable {
		this.watching.registerJob(this.job, () -> null);
		runAt(this.running, 4);
		readLedgerAt(5);
		this.clock.at(24);
		assertThat(this.watching.isOverdue(this.job)).as("last read 19 s ago, within two refresh periods").isFalse();
		this.clock.at(26);
		assertThat(this.watching.isOverdue(this.job)).as("last read 21 s ago: judged against now").isTrue();
	}

	private ClusterSingletonExecutor node(String owner) {
		return new ClusterSingletonExecutor(this.store,
				new ClusterSingletonExecutor.Settings(owner, TTL, Duration.ofSeconds(1), true), this.clock,
				new ClusterSingletonListener() {
				});
	}

	private void runAt(ClusterSingletonExecutor node, double seconds) throws Throwable {
		this.clock.at(seconds);
		assertThat(node.execute(this.job, (Instant) null, () -> null)).isTrue();
		Instant ended = this.clock.instant();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.store.runLedger().lastSuccess(List.of("report")).get("report"),
					(last) -> last != null && !last.isBefore(ended));
	}

	private void readLedgerAt(double seconds) {
		this.clock.at(seconds);
		this.watching.refreshLastSuccesses();
	}

	static final class SettableClock extends Clock {

		private volatile Instant now = START;

		void at(double seconds) {
			this.now = START.plusMillis(Math.round(seconds * 1000));
		}

		@Override
		public Instant instant() {
			return this.now;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

	}

}
