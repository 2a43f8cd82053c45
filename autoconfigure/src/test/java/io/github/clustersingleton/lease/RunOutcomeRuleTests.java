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
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule that decides how a run ended: by its lease, whichever thread noticed the loss
 * first.
 *
 * @author cluster-singleton contributors
 */
class RunOutcomeRuleTests {

	private static final long TTL = TimeUnit.SECONDS.toNanos(30);

	private static final Instant SLOT = Instant.parse("2026-11-26T10:00:00Z");

	@Test
	void aLeaseLostExceptionIsALostRunEvenBeforeTheWatchdogNoticed() {
		ActiveRun run = expired(SLOT);
		run.finish();
		assertThat(GuardedRun.outcomeOf(run, new LeaseLostException("job", 7, "deadline")))
			.isEqualTo(RunOutcome.LEASE_LOST);
	}

	@Test
	void aLeaseLostExceptionWrappedByAnotherAdvisorIsALostRun() {
		ActiveRun run = valid(SLOT);
		run.finish();
		RuntimeException wrapped = new IllegalStateException("transaction rolled back",
				new LeaseLostException("job", 7, "deadline"));
		assertThat(GuardedRun.outcomeOf(run, wrapped)).isEqualTo(RunOutcome.LEASE_LOST);
	}

	@Test
	void anyExceptionAfterTheLeaseStoppedBeingValidIsALostRunInBothThreadOrders() {
		ActiveRun finishedFirst = expired(SLOT);
		finishedFirst.finish();
		assertThat(finishedFirst.lose("watchdog")).isFalse();
		ActiveRun lostFirst = expired(SLOT);
		assertThat(lostFirst.lose("watchdog")).isTrue();
		lostFirst.finish();
		RuntimeException failure = new IllegalStateException("boom");
		assertThat(GuardedRun.outcomeOf(finishedFirst, failure)).isEqualTo(RunOutcome.LEASE_LOST);
		assertThat(GuardedRun.outcomeOf(lostFirst, failure)).isEqualTo(RunOutcome.LEASE_LOST);
		assertThat(GuardedRun.outcomeOf(finishedFirst, new InterruptedException())).isEqualTo(RunOutcome.LEASE_LOST);
	}

	@Test
	void theLeaseLostExceptionOfANestedRunIsAFailureOfAValidRun() {
		ActiveRun run = valid(SLOT);
		run.finish();
		assertThat(GuardedRun.outcomeOf(run, new LeaseLostException("nested-job", 7, "deadline")))
			.isEqualTo(RunOutcome.FAILURE);
		assertThat(GuardedRun.outcomeOf(run, new LeaseLostException("job", 8, "deadline")))
			.isEqualTo(RunOutcome.FAILURE);
	}

	@Test
	void anExceptionWhileTheLeaseIsValidIsAFailure() {
		ActiveRun run = valid(SLOT);
		run.finish();
		assertThat(GuardedRun.outcomeOf(run, new IllegalStateException("boom"))).isEqualTo(RunOutcome.FAILURE);
	}

	@Test
	void aRunOfASlotThatReturnsNormallyIsASuccessForTheStoreToJudgeInBothThreadOrders() {
		ActiveRun finishedFirst = expired(SLOT);
		finishedFirst.finish();
		ActiveRun lostFirst = expired(SLOT);
		lostFirst.lose("watchdog");
		lostFirst.finish();
		assertThat(GuardedRun.outcomeOf(finishedFirst, null)).isEqualTo(RunOutcome.SUCCESS);
		assertThat(GuardedRun.outcomeOf(lostFirst, null)).isEqualTo(RunOutcome.SUCCESS);
	}

	@Test
	void aRunWithoutASlotThatReturnsAfterItsLeaseEndedLostItInBothThreadOrders() {
		ActiveRun finishedFirst = expired(null);
		finishedFirst.finish();
		ActiveRun lostFirst = expired(null);
		lostFirst.lose("watchdog");
		lostFirst.finish();
		assertThat(GuardedRun.outcomeOf(finishedFirst, null)).isEqualTo(RunOutcome.LEASE_LOST);
		assertThat(GuardedRun.outcomeOf(lostFirst, null)).isEqualTo(RunOutcome.LEASE_LOST);
		assertThat(finishedFirst.lostAtFinish()).isTrue();
		assertThat(lostFirst.lostAtFinish()).isFalse();
	}

	@Test
	void theLockAtMostForCapEndsTheLeaseAtFinishToo() {
		JobDefinition job = JobDefinition.of("job", Duration.ofMillis(1), Duration.ZERO);
		ActiveRun run = new ActiveRun(job, new HeldLease("job", "node", "token", 7, SLOT), Thread.currentThread(),
				System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(10), TTL);
		run.finish();
		assertThat(run.isLost()).isTrue();
		assertThat(run.lostBecause()).contains("lockAtMostFor");
		assertThat(GuardedRun.outcomeOf(run, new IllegalStateException("boom"))).isEqualTo(RunOutcome.LEASE_LOST);
	}

	private static ActiveRun expired(@Nullable Instant slot) {
		return run(slot, System.nanoTime() - 2 * TTL);
	}

	private static ActiveRun valid(@Nullable Instant slot) {
		return run(slot, System.nanoTime());
	}

	private static ActiveRun run(@Nullable Instant slot, long requested) {
		JobDefinition job = JobDefinition.of("job", Duration.ofHours(1), Duration.ZERO);
		return new ActiveRun(job, new HeldLease("job", "node", "token", 7, slot), Thread.currentThread(), requested,
				TTL);
	}

}
