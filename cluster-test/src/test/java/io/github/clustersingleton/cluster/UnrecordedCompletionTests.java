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

package io.github.clustersingleton.cluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import io.github.clustersingleton.cluster.ClusterProofTests.Duplicates;
import io.github.clustersingleton.cluster.ClusterProofTests.Run;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the cluster proof's duplicate check: a second successful run of a recovery
 * job's slot is a duplicate unless the node of the first one logged that the store could
 * not record its success.
 *
 * @author cluster-singleton contributors
 */
@Tag("cluster")
class UnrecordedCompletionTests {

	private static final String JOB = "p1-lost";

	private static final Map<String, String> RECOVERY = Map.of(JOB, "lost", "p1-failed", "failed");

	private static final Instant SLOT = Instant.parse("2026-11-24T07:00:00Z");

	private static final Instant ENDED = SLOT.plusSeconds(4);

	private final Run first = run(1, JOB, 1, "node1", 7, SLOT, ENDED);

	private final Run again = run(2, JOB, 2, "node2", 8, ENDED.plusMillis(2100), ENDED.plusMillis(6100));

	@Test
	void secondSuccessWithTheWarningIsTheWindowNotADuplicate() {
		Duplicates duplicates = check(Map.of("node1", List.of(warn(JOB, 7, "lost"))), this.first, this.again);
		assertThat(duplicates.count()).isZero();
		assertThat(duplicates.failures()).isEmpty();
		assertThat(duplicates.unrecorded()).hasSize(1);
		assertThat(duplicates.unrecorded().get(0)).contains("fencingToken=7").contains("attempt 2 on node2");
		assertThat(duplicates.window()).containsExactly(2L);
	}

	@Test
	void secondSuccessWithoutTheWarningIsADuplicate() {
		assertDuplicate(check(Map.of(), this.first, this.again));
	}

	@Test
	void warningOfAnotherTokenJobSlotOrPolicyOrNodeDoesNotExplainIt() {
		assertDuplicate(check(Map.of("node1", List.of(warn(JOB, 6, "lost"))), this.first, this.again));
		assertDuplicate(check(Map.of("node1", List.of(warn("p1-other", 7, "lost"))), this.first, this.again));
		assertDuplicate(check(Map.of("node1", List.of(warn(JOB, 7, "failed"))), this.first, this.again));
		assertDuplicate(
				check(Map.of("node1", List.of(warn(JOB, 7, SLOT.plusSeconds(10), "lost"))), this.first, this.again));
		// logged by the node that ran it again, not by the node of the success
		assertDuplicate(check(Map.of("node2", List.of(warn(JOB, 7, "lost"))), this.first, this.again));
	}

	@Test
	void releaseFailureWithoutTheUnrecordedCompletionDoesNotExplainIt() {
		String plain = "2026-11-24T07:00:05.100Z  WARN 1 --- [cluster-proof-node] [node-job-1] "
				+ "i.g.c.lease.ClusterSingletonExecutor     : cluster-singleton could not release the lease of job '"
				+ JOB + "' (fencingToken=7); it expires by itself within PT2S: java.lang.RuntimeException: down";
		assertDuplicate(check(Map.of("node1", List.of(plain)), this.first, this.again));
		// the same text, but not a WARN
		assertDuplicate(check(Map.of("node1", List.of(warn(JOB, 7, "lost").replace(" WARN ", " INFO "))), this.first,
				this.again));
	}

	@Test
	void warningThatTheEngineTriesAgainDoesNotExplainItButGivingUpDoes() {
		String prefix = "2026-11-24T07:00:05.100Z  WARN 1 --- [cluster-proof-node] [node-job-1] "
				+ "i.g.c.lease.ClusterSingletonExecutor     : ";
		String retrying = prefix + "cluster-singleton could not record the end of job '" + JOB + "' for slot " + SLOT
				+ " (fencingToken=7, succeeded) in the redis lease store; trying again every 250 ms, and this node "
				+ "does not claim the job meanwhile: java.lang.RuntimeException: down";
		assertDuplicate(check(Map.of("node1", List.of(retrying)), this.first, this.again));
		String gaveUp = prefix + "cluster-singleton gave up recording the end of job '" + JOB + "' for slot " + SLOT
				+ " (fencingToken=7, succeeded) after 480 attempts: the store did not answer for PT2M; another node "
				+ "may run the slot again (recovery=lost)";
		assertThat(check(Map.of("node1", List.of(gaveUp)), this.first, this.again).count()).isZero();
	}

	@Test
	void runAgainBeforeTheSuccessEndedIsADuplicate() {
		Run overlapping = run(2, JOB, 2, "node2", 8, ENDED.minusMillis(500), ENDED.plusMillis(3500));
		assertDuplicate(check(Map.of("node1", List.of(warn(JOB, 7, "lost"))), this.first, overlapping));
	}

	@Test
	void twoRunsOfOneAttemptAreADuplicateEvenWithTheWarning() {
		Run sameAttempt = run(2, JOB, 1, "node2", 8, ENDED.plusMillis(2100), ENDED.plusMillis(6100));
		assertDuplicate(check(Map.of("node1", List.of(warn(JOB, 7, "lost"))), this.first, sameAttempt));
	}

	@Test
	void jobWithoutRecoveryPolicyIsNeverExcused() {
		String job = "p1-job03";
		Run one = run(1, job, 1, "node1", 7, SLOT, ENDED);
		Run two = run(2, job, 2, "node2", 8, ENDED.plusMillis(2100), ENDED.plusMillis(6100));
		assertDuplicate(check(Map.of("node1", List.of(warn(job, 7, "lost"))), one, two));
	}

	@Test
	void eachFurtherSuccessNeedsTheWarningOfTheOneBeforeIt() {
		Run third = run(3, JOB, 3, "node3", 9, ENDED.plusMillis(9000), ENDED.plusMillis(13000));
		// the third run follows the second, whose node logged nothing
		assertDuplicate(check(Map.of("node1", List.of(warn(JOB, 7, "lost"))), this.first, this.again, third));
		Duplicates both = check(Map.of("node1", List.of(warn(JOB, 7, "lost")), "node2", List.of(warn(JOB, 8, "lost"))),
				this.first, this.again, third);
		assertThat(both.count()).isZero();
		assertThat(both.unrecorded()).hasSize(2);
		assertThat(both.window()).containsExactlyInAnyOrder(2L, 3L);
	}

	@Test
	void successTakenLateWhoseCompletionWasRefusedIsTheWindowWhenItsNodeSaidSo() {
		// returned normally after its lease had stopped being valid (a store outage):
		// the run ledger records it as succeeded, but by the time the store answered
		// again another node's recovery claim had taken the job over
		Run late = new Run(1, JOB, SLOT, "node1", 7, false, SLOT, ENDED, SLOT, ENDED, false, false, SLOT, 1,
				"SCHEDULED", List.of(), false);
		Predicate<Run> success = (run) -> run.succeeded() || run == late;
		Duplicates explained = check(Map.of("node1", List.of(warn(JOB, 7, "lost"))), success, late, this.again);
		assertThat(explained.count()).isZero();
		assertThat(explained.unrecorded()).hasSize(1);
		assertThat(explained.window()).containsExactly(2L);
		assertDuplicate(check(Map.of(), success, late, this.again));
	}

	@Test
	void singleRunsAreNoDuplicates() {
		Duplicates duplicates = check(Map.of(), this.first);
		assertThat(duplicates.count()).isZero();
		assertThat(duplicates.failures()).isEmpty();
		assertThat(duplicates.unrecorded()).isEmpty();
	}

	private static void assertDuplicate(Duplicates duplicates) {
		assertThat(duplicates.count()).isEqualTo(1);
		assertThat(duplicates.failures()).hasSize(1);
		assertThat(duplicates.unrecorded()).isEmpty();
		assertThat(duplicates.window()).isEmpty();
	}

	private static Duplicates check(Map<String, List<String>> warnings, Run... runs) {
		return check(warnings, Run::succeeded, runs);
	}

	private static Duplicates check(Map<String, List<String>> warnings, Predicate<Run> success, Run... runs) {
		Map<String, TreeMap<Instant, List<Run>>> byJob = new TreeMap<>();
		for (Run run : runs) {
			byJob.computeIfAbsent(run.job(), (job) -> new TreeMap<>())
				.computeIfAbsent(run.slot(), (slot) -> new ArrayList<>())
				.add(run);
		}
		return ClusterProofTests.duplicates(byJob, RECOVERY, warnings, (run) -> null, success);
	}

	private static String warn(String job, long token, String recovery) {
		return warn(job, token, SLOT, recovery);
	}

	/**
	 * A line as a node logs it (Spring Boot's console format).
	 */
	private static String warn(String job, long token, Instant slot, String recovery) {
		return "2026-11-24T07:00:05.100Z  WARN 1 --- [cluster-proof-node] [node-job-1] "
				+ "i.g.c.lease.ClusterSingletonExecutor     : "
				+ ClusterProofTests.unrecordedCompletionWarning(job, token, slot, recovery)
				+ "org.springframework.dao.QueryTimeoutException: Redis command timed out";
	}

	private static Run run(long id, String job, int attempt, String node, long token, Instant started, Instant ended) {
		return new Run(id, job, SLOT, node, token, true, started, ended, started, ended, false, false, SLOT, attempt,
				(attempt == 1) ? "SCHEDULED" : "RECOVERY", List.of(), false);
	}

}
