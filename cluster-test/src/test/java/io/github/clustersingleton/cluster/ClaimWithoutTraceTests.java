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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import io.github.clustersingleton.cluster.ClusterProofTests.Fault;
import io.github.clustersingleton.cluster.ClusterProofTests.Run;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the cluster proof's reading of a policy-job slot without any run: it was
 * claimed, and its run died before the method started, only when a fencing token between
 * the runs of the slots around it is carried by no run and a fault came near the slot.
 *
 * @author cluster-singleton contributors
 */
@Tag("cluster")
class ClaimWithoutTraceTests {

	private static final String JOB = "p1-run-all";

	private static final Instant BEFORE = Instant.parse("2026-11-25T20:37:55Z");

	private static final Instant SLOT = BEFORE.plusSeconds(5);

	private static final Instant AFTER = SLOT.plusSeconds(5);

	private static final List<Fault> KILL = List
		.of(new Fault("kill -9 node3", SLOT.plusMillis(12), SLOT.plusMillis(12), null));

	@Test
	void tokenGapAndAFaultAtTheSlotIsAClaimWhoseRunDied() {
		TreeMap<Instant, List<Run>> job = job(run(1, BEFORE, 41), run(2, AFTER, 43));
		assertThat(ClusterProofTests.claimedWithoutTrace(job, SLOT, KILL, new HashSet<>())).isTrue();
	}

	@Test
	void consecutiveTokensMeanNobodyClaimedTheSlot() {
		TreeMap<Instant, List<Run>> job = job(run(1, BEFORE, 41), run(2, AFTER, 42));
		assertThat(ClusterProofTests.claimedWithoutTrace(job, SLOT, KILL, new HashSet<>())).isFalse();
	}

	@Test
	void tokenGapWithoutAFaultNearTheSlotIsNotExplained() {
		TreeMap<Instant, List<Run>> job = job(run(1, BEFORE, 41), run(2, AFTER, 43));
		List<Fault> late = List.of(new Fault("kill -9 node3", SLOT.plusSeconds(30), SLOT.plusSeconds(30), null));
		assertThat(ClusterProofTests.claimedWithoutTrace(job, SLOT, late, new HashSet<>())).isFalse();
	}

	@Test
	void oneMissingTokenExplainsOneSlotOnly() {
		Instant second = AFTER.plusSeconds(5);
		TreeMap<Instant, List<Run>> job = job(run(1, BEFORE, 41), run(2, second.plusSeconds(5), 43));
		Set<Long> explained = new HashSet<>();
		assertThat(ClusterProofTests.claimedWithoutTrace(job, SLOT, KILL, explained)).isTrue();
		assertThat(ClusterProofTests.claimedWithoutTrace(job, AFTER, KILL, explained)).isFalse();
		assertThat(explained).containsExactly(42L);
	}

	@Test
	void aTokenCarriedByAnotherRunExplainsNothing() {
		// token 42 is a catch-up run of a later slot that started before the newer run
		TreeMap<Instant, List<Run>> job = job(run(1, BEFORE, 41), run(2, AFTER, 43), run(3, AFTER.plusSeconds(5), 42));
		assertThat(ClusterProofTests.claimedWithoutTrace(job, SLOT, KILL, new HashSet<>())).isFalse();
	}

	@Test
	void theOwnTokenOfAClaimThatCaughtUpExplainsNothing() {
		// after a whole-cluster stop: the claim (token 42) runs the missed slots with
		// tokens of their own, 43 on, as catch-up runs
		Run caughtUp = new Run(2, JOB, AFTER, "node2", 43, true, AFTER.plusSeconds(20), AFTER.plusSeconds(21),
				AFTER.plusSeconds(20), AFTER.plusSeconds(21), false, false, AFTER, 1, "CATCH_UP", List.of(), false);
		TreeMap<Instant, List<Run>> job = job(run(1, BEFORE, 41), caughtUp);
		assertThat(ClusterProofTests.claimedWithoutTrace(job, SLOT, KILL, new HashSet<>())).isFalse();
	}

	private static TreeMap<Instant, List<Run>> job(Run... runs) {
		TreeMap<Instant, List<Run>> job = new TreeMap<>();
		for (Run run : runs) {
			job.computeIfAbsent(run.slot(), (slot) -> new ArrayList<>()).add(run);
		}
		return job;
	}

	private static Run run(long id, Instant slot, long token) {
		Instant ended = slot.plusSeconds(1);
		return new Run(id, JOB, slot, "node1", token, true, slot, ended, slot, ended, false, false, slot, 1,
				"SCHEDULED", List.of(), false);
	}

}
