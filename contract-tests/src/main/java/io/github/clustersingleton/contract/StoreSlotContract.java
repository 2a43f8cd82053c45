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
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.StoreClockObserver;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store contract's slot cases: a slot at or before the last claimed one is refused, a
 * slot ahead of the store's clock is refused and changes nothing, a newer slot while the
 * lease is held finds it held, a slot-less acquisition keeps the last slot, and the
 * store's time is reported from the round trips the engine makes.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreSlotContract extends StoreRenewalContract {

	@Test
	void claimsAskedForTogetherAreEachDecidedAsOnTheirOwn() {
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		String free = jobName("together-free");
		String held = jobName("together-held");
		String done = jobName("together-done");
		String skewed = jobName("together-skewed");
		acquire(request(held, "node-b"));
		backend().release(acquire(request(done, "node-b", LONG_TTL, slot)), Duration.ZERO);
		List<LeaseRequest> requests = List.of(request(done, "node-a", LONG_TTL, slot),
				request(free, "node-a", LONG_TTL, slot), request(held, "node-a", LONG_TTL, slot),
				request(skewed, "node-a", LONG_TTL, slot.plus(Duration.ofHours(1))));
		List<AcquireResult> results = backend().tryAcquireAll(requests);
		assertThat(results).extracting(AcquireResult::outcome)
			.containsExactly(Outcome.SLOT_DONE, Outcome.ACQUIRED, Outcome.HELD, Outcome.CLOCK_SKEW);
		assertThat(results.get(2).holder()).isEqualTo("node-b");
		// the grant is a lease like any other: refused to others, renewed for its holder
		HeldLease granted = HeldLease.of(requests.get(1), results.get(1).fencingToken());
		assertThat(granted.fencingToken()).isPositive();
		assertThat(backend().tryAcquire(request(free, "node-c")).outcome()).isEqualTo(Outcome.HELD);
		assertThat(backend().renew(List.of(granted), LONG_TTL)).containsExactly(granted.leaseToken());
		assertThat(backend().describe(free)).get().satisfies((info) -> {
			assertThat(info.holder()).isEqualTo("node-a");
			assertThat(info.lastSlot()).isEqualTo(slot);
		});
		// more claims than one round trip takes on a store that sends them together
		List<LeaseRequest> many = new java.util.ArrayList<>();
		for (int i = 0; i < 70; i++) {
			many.add(request(jobName("together-" + i), "node-a", LONG_TTL, slot));
		}
		List<AcquireResult> manyResults = backend().tryAcquireAll(many);
		assertThat(manyResults).hasSize(70).allSatisfy((result) -> assertThat(result.isAcquired()).isTrue());
		List<LeaseRequest> again = many.stream()
			.map((request) -> request(request.jobName(), "node-b", LONG_TTL, slot))
			.toList();
		resetRoundTrips();
		assertThat(backend().tryAcquireAll(again)).extracting(AcquireResult::outcome).containsOnly(Outcome.SLOT_DONE);
		if (backend().acquiresTogether()) {
			assertThat(roundTrips()).as("round trips of 70 claims sent together").isLessThanOrEqualTo(2);
		}
	}

	@Test
	void slotAtOrBeforeLastClaimedSlotIsRefused() {
		String job = jobName("slot");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		HeldLease a = acquire(request(job, "node-a", LONG_TTL, slot));
		backend().release(a, Duration.ZERO);
		AcquireResult same = backend().tryAcquire(request(job, "node-b", LONG_TTL, slot));
		assertThat(same.outcome()).isEqualTo(Outcome.SLOT_DONE);
		assertThat(same.lastSlot()).isEqualTo(slot);
		AcquireResult earlier = backend().tryAcquire(request(job, "node-b", LONG_TTL, slot.minusSeconds(1)));
		assertThat(earlier.outcome()).isEqualTo(Outcome.SLOT_DONE);
		HeldLease next = acquire(request(job, "node-b", LONG_TTL, slot.plusSeconds(1)));
		assertThat(next.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::lastSlot).isEqualTo(slot.plusSeconds(1));
	}

	@Test
	void slotAheadOfTheStoreClockIsRefusedAndChangesNothing() {
		String job = jobName("clock-skew");
		Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
		HeldLease first = acquire(request(job, "node-a", LONG_TTL, now.minusSeconds(10)));
		backend().release(first, Duration.ZERO);
		LeaseInfo before = backend().describe(job).orElseThrow();
		resetRoundTrips();
		AcquireResult ahead = backend().tryAcquire(new LeaseRequest(job, "node-b", UUID.randomUUID().toString(),
				LONG_TTL, now.plusSeconds(5), Duration.ofSeconds(1)));
		assertThat(ahead.outcome()).isEqualTo(Outcome.CLOCK_SKEW);
		assertThat(roundTrips()).isEqualTo(expectedClockSkewRoundTrips());
		LeaseInfo after = backend().describe(job).orElseThrow();
		assertThat(after.live()).isFalse();
		assertThat(after.lastSlot()).isEqualTo(before.lastSlot());
		assertThat(after.fencingToken()).isEqualTo(before.fencingToken());
		// a slot ahead by less than the tolerance is an early trigger, not a skewed clock
		HeldLease early = acquire(new LeaseRequest(job, "node-b", UUID.randomUUID().toString(), LONG_TTL,
				now.plusMillis(300), Duration.ofSeconds(1)));
		assertThat(early.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::lastSlot).isEqualTo(now.plusMillis(300));
	}

	@Test
	void firstAcquisitionWithASlotAheadOfTheStoreClockCreatesNothing() {
		String job = jobName("clock-skew-first");
		AcquireResult ahead = backend().tryAcquire(new LeaseRequest(job, "node-a", UUID.randomUUID().toString(),
				LONG_TTL, Instant.now().plusSeconds(60), Duration.ofSeconds(1)));
		assertThat(ahead.outcome()).isEqualTo(Outcome.CLOCK_SKEW);
		assertThat(backend().describe(job)).isEmpty();
		acquire(request(job, "node-b", LONG_TTL, Instant.now().truncatedTo(ChronoUnit.MILLIS)));
	}

	@Test
	void storeTimeIsReportedFromTheRoundTripsTheEngineMakes() {
		String job = jobName("store-time");
		List<Instant> seen = new CopyOnWriteArrayList<>();
		backend().setStoreClockObserver(seen::add);
		try {
			resetRoundTrips();
			HeldLease lease = acquire(request(job, "node-a"));
			assertThat(roundTrips()).isEqualTo(expectedFirstAcquireRoundTrips());
			assertThat(seen).isNotEmpty()
				.allSatisfy((storeTime) -> assertThat(storeTime).isBetween(Instant.now().minus(STORE_CLOCK_MARGIN),
						Instant.now().plus(STORE_CLOCK_MARGIN)));
			if (reportsStoreTimeOnRenewal()) {
				seen.clear();
				assertThat(backend().renew(List.of(lease), LONG_TTL)).containsExactly(lease.leaseToken());
				assertThat(seen).isNotEmpty();
			}
		}
		finally {
			backend().setStoreClockObserver(StoreClockObserver.NONE);
		}
	}

	@Test
	void newerSlotWhileLeaseIsHeldIsHeld() {
		String job = jobName("slot-held");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		acquire(request(job, "node-a", LONG_TTL, slot));
		AcquireResult next = backend().tryAcquire(request(job, "node-b", LONG_TTL, slot.plusSeconds(1)));
		assertThat(next.outcome()).isEqualTo(Outcome.HELD);
		assertThat(next.holder()).isEqualTo("node-a");
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::lastSlot).isEqualTo(slot);
	}

	@Test
	void slotlessAcquisitionKeepsLastSlot() {
		String job = jobName("slotless");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		HeldLease a = acquire(request(job, "node-a", LONG_TTL, slot));
		backend().release(a, Duration.ZERO);
		HeldLease b = acquire(request(job, "node-b"));
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::lastSlot).isEqualTo(slot);
		backend().release(b, Duration.ZERO);
		assertThat(backend().tryAcquire(request(job, "node-c", LONG_TTL, slot)).outcome()).isEqualTo(Outcome.SLOT_DONE);
	}

}
