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

package io.github.clustersingleton.test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.RunTrigger;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link TestClusterSingletonContext}, including the unit test of a job that
 * reads its context, as an application writes it.
 *
 * @author cluster-singleton contributors
 */
class TestClusterSingletonContextTests {

	private static final Instant SLOT = Instant.parse("2026-01-01T10:00:00Z");

	@Test
	void aJobThatReadsItsContextRunsInAPlainUnitTest() {
		Ledger ledger = new Ledger();
		BillingJob job = new BillingJob(ledger);
		TestClusterSingletonContext.forJob("billing").fencingToken(42).slot(SLOT).run(job::bill);
		assertThat(ledger.entries).containsExactly("billing@2026-01-01T10:00:00Z fenced by 42");
	}

	@Test
	void aJobStopsWhenTheLeaseIsLostMidRun() {
		Ledger ledger = new Ledger();
		TestClusterSingletonContext context = TestClusterSingletonContext.forJob("billing").fencingToken(7);
		// the ledger loses the lease after the first write, as the watchdog would
		ledger.afterWrite = () -> context.lose("no renewal succeeded within the lease TTL");
		BillingJob job = new BillingJob(ledger);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> context.run(job::billAll))
			.withMessageContaining("'billing'")
			.withMessageContaining("fencing token 7")
			.withMessageEndingWith("no renewal succeeded within the lease TTL")
			.satisfies((ex) -> {
				assertThat(ex.getJobName()).isEqualTo("billing");
				assertThat(ex.getFencingToken()).isEqualTo(7);
			});
		assertThat(ledger.entries).hasSize(1);
		assertThat(context.isLeaseValid()).isFalse();
	}

	@Test
	void aRecoveryRunSeesItsAttemptTriggerAndMissedSlots() throws Exception {
		ClusterSingletonContext seen = TestClusterSingletonContext.forJob("billing")
			.slot(SLOT)
			.attempt(2)
			.trigger(RunTrigger.RECOVERY)
			.missedSlots(List.of(SLOT.minusSeconds(60)))
			.call(ClusterSingletonContext::current);
		assertThat(seen.attempt()).isEqualTo(2);
		assertThat(seen.trigger()).isEqualTo(RunTrigger.RECOVERY);
		assertThat(seen.missedSlots()).containsExactly(SLOT.minusSeconds(60));
		ClusterSingletonContext plain = TestClusterSingletonContext.forJob("billing")
			.slot(SLOT)
			.call(ClusterSingletonContext::current);
		assertThat(plain.attempt()).isEqualTo(1);
		assertThat(plain.trigger()).isEqualTo(RunTrigger.SCHEDULED);
		assertThat(plain.missedSlots()).isEmpty();
	}

	@Test
	void defaultsAreAValidLeaseWithTokenOneAndNoSlot() throws Exception {
		ClusterSingletonContext seen = TestClusterSingletonContext.forJob("report")
			.call(ClusterSingletonContext::current);
		assertThat(seen.jobName()).isEqualTo("report");
		assertThat(seen.fencingToken()).isEqualTo(1);
		assertThat(seen.slot()).isEmpty();
		assertThat(seen.isLeaseValid()).isTrue();
		seen.checkLease();
	}

	@Test
	void runAndCallBindTheContextOnlyWhileTheCodeRuns() throws Exception {
		TestClusterSingletonContext context = TestClusterSingletonContext.forJob("billing");
		assertThat(ClusterSingletonContext.find()).isEmpty();
		context.run(() -> assertThat(ClusterSingletonContext.current()).isSameAs(context));
		assertThat(ClusterSingletonContext.find()).isEmpty();
		assertThat(context.call(() -> ClusterSingletonContext.current().jobName())).isEqualTo("billing");
		assertThat(ClusterSingletonContext.find()).isEmpty();
		assertThatIllegalStateException().isThrownBy(ClusterSingletonContext::current);
	}

	@Test
	void theContextBeforeIsRestoredAfterANestedRunAndAfterAnException() {
		TestClusterSingletonContext outer = TestClusterSingletonContext.forJob("outer");
		TestClusterSingletonContext inner = TestClusterSingletonContext.forJob("inner");
		List<String> seen = new ArrayList<>();
		outer.run(() -> {
			inner.run(() -> seen.add(ClusterSingletonContext.current().jobName()));
			seen.add(ClusterSingletonContext.current().jobName());
			assertThatIllegalStateException().isThrownBy(() -> inner.run(() -> {
				throw new IllegalStateException("job failed");
			})).withMessage("job failed");
			seen.add(ClusterSingletonContext.current().jobName());
		});
		assertThat(seen).containsExactly("inner", "outer", "outer");
		assertThat(ClusterSingletonContext.find()).isEmpty();
	}

	@Test
	void callPropagatesCheckedExceptions() {
		TestClusterSingletonContext context = TestClusterSingletonContext.forJob("billing");
		assertThatExceptionOfType(java.io.IOException.class).isThrownBy(() -> context.call(() -> {
			throw new java.io.IOException("disk full");
		}));
		assertThat(ClusterSingletonContext.find()).isEmpty();
	}

	@Test
	void leaseValidFalseMakesCheckLeaseThrowAndTrueHoldsItAgain() {
		TestClusterSingletonContext context = TestClusterSingletonContext.forJob("billing").leaseValid(false);
		assertThat(context.isLeaseValid()).isFalse();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(context::checkLease)
			.withMessageContaining("'billing'");
		context.leaseValid(true);
		assertThat(context.isLeaseValid()).isTrue();
		context.checkLease();
	}

	@Test
	void aLeaseLostFromAnotherThreadIsSeenByTheRunningCode() throws Exception {
		TestClusterSingletonContext context = TestClusterSingletonContext.forJob("billing");
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch lost = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Boolean> run = executor.submit(() -> context.call(() -> {
				boolean validAtStart = ClusterSingletonContext.current().isLeaseValid();
				running.countDown();
				assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
				return validAtStart && !ClusterSingletonContext.current().isLeaseValid();
			}));
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
			context.lose("another node took the lease over");
			lost.countDown();
			assertThat(run.get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void settingsAreChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> TestClusterSingletonContext.forJob(""));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> TestClusterSingletonContext.forJob("billing").fencingToken(0));
		assertThatIllegalArgumentException().isThrownBy(() -> TestClusterSingletonContext.forJob("billing").lose(""));
	}

	@Test
	void aSlotCanBeSetAndCleared() {
		TestClusterSingletonContext context = TestClusterSingletonContext.forJob("billing").slot(SLOT);
		assertThat(context.slot()).contains(SLOT);
		assertThat(context.slot(null).slot()).isEmpty();
	}

	/**
	 * An application's job, as it would be written: it reads its context.
	 */
	static class BillingJob {

		private final Ledger ledger;

		BillingJob(Ledger ledger) {
			this.ledger = ledger;
		}

		@ClusterSingleton(name = "billing")
		public void bill() {
			ClusterSingletonContext run = ClusterSingletonContext.current();
			this.ledger.write(run.jobName() + "@" + run.slot().map(Instant::toString).orElse("-") + " fenced by "
					+ run.fencingToken());
		}

		@ClusterSingleton(name = "billing")
		public void billAll() {
			ClusterSingletonContext run = ClusterSingletonContext.current();
			for (int invoice = 1; invoice <= 3; invoice++) {
				run.checkLease();
				this.ledger.write("invoice " + invoice + " fenced by " + run.fencingToken());
			}
		}

	}

	static class Ledger {

		final List<String> entries = new ArrayList<>();

		Runnable afterWrite = () -> {
		};

		void write(String entry) {
			this.entries.add(entry);
			this.afterWrite.run();
		}

	}

}
