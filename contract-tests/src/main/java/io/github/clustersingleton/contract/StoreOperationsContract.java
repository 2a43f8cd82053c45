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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * The store contract's cases of its other operations and their cost: {@code describe}
 * shows what the store keeps, acquisition, release and the renewal of many leases take
 * the round trips the store states, an unreachable store fails fast, and a reachable one
 * answers {@code probe}.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreOperationsContract extends StoreSlotContract {

	@Test
	void describeShowsStoredState() {
		String job = jobName("describe");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		HeldLease a = acquire(request(job, "node-a", LONG_TTL, slot));
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.jobName()).isEqualTo(job);
			assertThat(info.holder()).isEqualTo("node-a");
			assertThat(info.live()).isTrue();
			assertThat(info.fencingToken()).isEqualTo(a.fencingToken());
			assertThat(info.lastSlot()).isEqualTo(slot);
			// store time, but on any sane clock (and in any time zone) close to ours
			assertThat(info.acquiredAt()).isCloseTo(Instant.now(), within(1, ChronoUnit.MINUTES));
			assertThat(info.expiresAt()).isNotNull();
			assertThat(Duration.between(info.acquiredAt(), info.expiresAt())).isEqualTo(storedTtl(LONG_TTL));
		});
		backend().release(a, Duration.ZERO);
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.live()).isFalse();
			assertThat(info.fencingToken()).isEqualTo(a.fencingToken());
			assertThat(info.lastSlot()).isEqualTo(slot);
		});
	}

	@Test
	void describeOfUnknownJobIsEmpty() {
		assertThat(backend().describe(jobName("unknown"))).isEmpty();
	}

	@Test
	void renewalOfManyLeasesIsOneRoundTrip() {
		List<HeldLease> leases = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			leases.add(acquire(request(jobName("batch-" + i), "node-a")));
		}
		resetRoundTrips();
		Set<String> renewed = backend().renew(leases, LONG_TTL);
		assertThat(roundTrips()).isEqualTo(expectedRenewRoundTrips(leases.size()));
		assertThat(renewed).hasSize(50)
			.containsExactlyInAnyOrderElementsOf(leases.stream().map(HeldLease::leaseToken).toList());
	}

	@Test
	void acquireAndReleaseRoundTrips() {
		String job = jobName("round-trips");
		resetRoundTrips();
		HeldLease first = acquire(request(job, "node-a"));
		assertThat(roundTrips()).as("first acquisition").isEqualTo(expectedFirstAcquireRoundTrips());
		resetRoundTrips();
		backend().release(first, Duration.ZERO);
		assertThat(roundTrips()).as("release").isEqualTo(expectedReleaseRoundTrips());
		resetRoundTrips();
		acquire(request(job, "node-b"));
		assertThat(roundTrips()).as("acquisition of a released lease").isEqualTo(expectedAcquireRoundTrips());
		resetRoundTrips();
		assertThat(backend().tryAcquire(request(job, "node-c")).outcome()).isEqualTo(Outcome.HELD);
		assertThat(roundTrips()).as("failed acquisition").isEqualTo(expectedFailedAcquireRoundTrips());
	}

	@Test
	void unreachableStoreFailsFastWithRuntimeException() {
		LeaseBackend unreachable = unreachableBackend();
		String job = jobName("unreachable");
		LeaseRequest request = request(job, "node-a");
		HeldLease lease = HeldLease.of(request, 1);
		long started = System.nanoTime();
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> unreachable.tryAcquire(request));
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> unreachable.renew(List.of(lease), LONG_TTL));
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> unreachable.release(lease, Duration.ZERO));
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(unreachable::probe);
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> unreachable.describe(job));
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> unreachable.forceRelease(job));
		assertThat(elapsedSince(started)).isLessThan(Duration.ofSeconds(15));
	}

	@Test
	void probeOfReachableStoreSucceeds() {
		backend().probe();
	}

}
