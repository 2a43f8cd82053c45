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

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.NodePresence;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The presence cases, for a backend that {@link #supportsPresence() offers presence
 * entries} ({@link NodePresence}): a heartbeat answers the live owners, including its
 * own; a node that left or stopped renewing drops out; and the sweep's read tells which
 * jobs were claimed for a slot or a later one. Presence entries are not jobs: they do not
 * show up in a job's description nor in the pending work.
 *
 * @author cluster-singleton contributors
 */
abstract class StorePresenceContract extends StoreManualRunContract {

	/**
	 * Return whether {@link LeaseBackend#presence()} of the backend under test is
	 * present: then the presence cases run, else the suite only checks that it is empty.
	 * @return whether the backend offers presence entries
	 */
	protected boolean supportsPresence() {
		return false;
	}

	private NodePresence presence() {
		assumeTrue(supportsPresence(), "the backend keeps no presence entries");
		return backend().presence().orElseThrow();
	}

	private static String owner(String name) {
		return name + "-" + UUID.randomUUID();
	}

	@Test
	void presenceIsOfferedExactlyWhenTheBackendSupportsIt() {
		assertThat(backend().presence().isPresent()).as("presence() of %s", backend().id())
			.isEqualTo(supportsPresence());
	}

	@Test
	void aHeartbeatAnswersTheLiveNodesIncludingItsOwn() {
		NodePresence presence = presence();
		String a = owner("node-a");
		String b = owner("node-b");
		assertThat(presence.heartbeat(a, LONG_TTL)).contains(a).doesNotContain(b);
		assertThat(presence.heartbeat(b, LONG_TTL)).contains(a, b);
		assertThat(presence.heartbeat(a, LONG_TTL)).contains(a, b);
		presence.leave(a);
		presence.leave(b);
	}

	@Test
	void aNodeThatLeftIsNotLiveAnyMore() {
		NodePresence presence = presence();
		String a = owner("node-a");
		String b = owner("node-b");
		presence.heartbeat(a, LONG_TTL);
		presence.heartbeat(b, LONG_TTL);
		presence.leave(a);
		assertThat(presence.heartbeat(b, LONG_TTL)).contains(b).doesNotContain(a);
		presence.leave(b);
	}

	@Test
	void aNodeThatStoppedRenewingDropsOutAfterItsTtl() {
		NodePresence presence = presence();
		String a = owner("node-a");
		String b = owner("node-b");
		long sent = System.nanoTime();
		presence.heartbeat(a, SHORT_TTL);
		Set<String> live = presence.heartbeat(b, LONG_TTL);
		if (System.nanoTime() - sent < SHORT_TTL.toNanos()) {
			// unless the two calls took longer than the TTL (a loaded machine)
			assertThat(live).contains(a);
		}
		// expiry is judged by the store's clock: one real-time case
		await().atMost(PATIENCE).until(() -> !presence.heartbeat(b, LONG_TTL).contains(a));
		presence.leave(b);
	}

	@Test
	void theSweepsReadTellsWhichJobsWereClaimedForASlotOrALaterOne() {
		NodePresence presence = presence();
		String claimed = jobName("sweep-claimed");
		String later = jobName("sweep-later");
		String unclaimed = jobName("sweep-unclaimed");
		String neverSeen = jobName("sweep-never-seen");
		backend().release(acquire(request(claimed, "node-a", LONG_TTL, S1)), Duration.ZERO);
		backend().release(acquire(request(later, "node-a", LONG_TTL, S2)), Duration.ZERO);
		backend().release(acquire(request(unclaimed, "node-a", LONG_TTL, S1.minusSeconds(60))), Duration.ZERO);
		List<String> jobs = List.of(claimed, later, unclaimed, neverSeen);
		assertThat(presence.claimedSince(jobs, S1)).containsExactlyInAnyOrder(claimed, later);
		assertThat(presence.claimedSince(jobs, S2)).containsExactly(later);
		assertThat(presence.claimedSince(jobs, S2.plusSeconds(60))).isEmpty();
		assertThat(presence.claimedSince(List.of(), S1)).isEmpty();
	}

	@Test
	void aClaimRefusedForItsSlotDoesNotCountAsClaimedForALaterOne() {
		NodePresence presence = presence();
		String job = jobName("sweep-held");
		LeaseRequest first = request(job, "node-a", LONG_TTL, S1);
		acquire(first);
		// held: a claim of the next slot is refused, and the slot stays unclaimed
		assertThat(backend().tryAcquire(request(job, "node-b", LONG_TTL, S2)).outcome()).isEqualTo(Outcome.HELD);
		assertThat(presence.claimedSince(List.of(job), S2)).isEmpty();
		assertThat(presence.claimedSince(List.of(job), S1)).containsExactly(job);
	}

	@Test
	void presenceEntriesAreNotJobs() {
		NodePresence presence = presence();
		String a = owner("node-a");
		presence.heartbeat(a, LONG_TTL);
		String job = jobName("beside-presence");
		assertThat(backend().describe(job)).isEmpty();
		assertThat(presence.claimedSince(List.of(job), Instant.EPOCH)).isEmpty();
		Set<String> live = presence.heartbeat(a, Duration.ofSeconds(5));
		assertThat(live).contains(a);
		presence.leave(a);
	}

}
