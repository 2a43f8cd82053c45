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
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.StoreClockObserver;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract every {@link LeaseBackend} meets, run against a real store by one subclass
 * per backend. Every test uses job names of its own, so tests never see each other's
 * leases and the store needs no cleaning.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(Lifecycle.PER_CLASS)
public abstract class AbstractLeaseBackendContractTests extends AbstractLeaseEngineContractTests {

	/**
	 * A TTL that outlives every test.
	 */
	protected static final Duration LONG_TTL = Duration.ofSeconds(30);

	/**
	 * A TTL short enough to wait for.
	 */
	protected static final Duration SHORT_TTL = Duration.ofSeconds(1);

	/**
	 * How far a store's clock on this machine may read from the test's: they are the same
	 * clock, read a round trip apart (and to the second by Kubernetes).
	 */
	private static final Duration STORE_CLOCK_MARGIN = Duration.ofSeconds(5);

	/**
	 * How long a test waits for something a short TTL makes happen.
	 */
	private static final Duration PATIENCE = Duration.ofSeconds(10);

	/**
	 * How much earlier than the store's clock says the local clock may see a lease end
	 * (the two clocks tick at slightly different moments).
	 */
	private static final Duration CLOCK_TOLERANCE = Duration.ofMillis(200);

	/**
	 * What a step of {@link StoreTimeTravel time travel} lets pass beyond the time a test
	 * waits out: the store then sees that time strictly past, allowances a store adds to
	 * a TTL (such as a Redis quorum's clock drift) included.
	 */
	private static final Duration BEYOND = Duration.ofMillis(100);

	private final String jobNamePrefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + "-";

	/**
	 * Return the backend under test, on a reachable store.
	 * @return the backend
	 */
	protected abstract LeaseBackend backend();

	/**
	 * Return a backend whose store cannot be reached.
	 * @return the backend
	 */
	protected abstract LeaseBackend unreachableBackend();

	/**
	 * Return the number of round trips to the store of {@link #backend()} since the last
	 * {@link #resetRoundTrips()}.
	 * @return the round trips
	 */
	protected abstract long roundTrips();

	/**
	 * Reset the round-trip counter.
	 */
	protected abstract void resetRoundTrips();

	/**
	 * Return how to let time pass for a job's stored lease without waiting for it, by
	 * moving its stored times back in the store; {@code null} (the default) to wait in
	 * real time. Either way, {@link #leaseExpiresAfterTtlByTheStoresClockInRealTime()}
	 * waits for a lease's expiry in real time.
	 * @return the store's time travel, or {@code null}
	 */
	protected @Nullable StoreTimeTravel timeTravel() {
		return null;
	}

	/**
	 * Return whether the backend reads the store's time in a renewal round trip (a store
	 * whose renewal statement cannot return values does not).
	 * @return whether renewals report the store's time
	 */
	protected boolean reportsStoreTimeOnRenewal() {
		return true;
	}

	/**
	 * Return how long the store keeps a lease granted for {@code ttl}, from its
	 * acquisition: the TTL itself unless the backend adds an allowance of its own.
	 * @param ttl the requested TTL
	 * @return the stored time to live
	 */
	protected Duration storedTtl(Duration ttl) {
		return ttl;
	}

	/**
	 * Return the round trips of an acquisition refused because its slot lies ahead of the
	 * store's clock.
	 * @return the round trips
	 */
	protected int expectedClockSkewRoundTrips() {
		return expectedFailedAcquireRoundTrips();
	}

	/**
	 * Return the round trips of an uncontended, successful acquisition.
	 * @return the round trips
	 */
	protected int expectedAcquireRoundTrips() {
		return 1;
	}

	/**
	 * Return the round trips of an acquisition that fails because another one holds the
	 * lease (telling who, which may take a second look).
	 * @return the round trips
	 */
	protected int expectedFailedAcquireRoundTrips() {
		return 1;
	}

	/**
	 * Return the round trips of a release.
	 * @return the round trips
	 */
	protected int expectedReleaseRoundTrips() {
		return 1;
	}

	/**
	 * Return the round trips of a renewal of leases that are all still held: one for a
	 * store that renews them all in one call.
	 * @param leases how many leases are renewed
	 * @return the round trips
	 */
	protected int expectedRenewRoundTrips(int leases) {
		return 1;
	}

	@Test
	void acquireIsExclusive() {
		String job = jobName("exclusive");
		HeldLease a = acquire(request(job, "node-a"));
		assertThat(a.fencingToken()).isPositive();
		AcquireResult b = backend().tryAcquire(request(job, "node-b"));
		assertThat(b.outcome()).isEqualTo(Outcome.HELD);
		assertThat(b.holder()).isEqualTo("node-a");
		assertThat(b.isAcquired()).isFalse();
		// the same owner with a new acquisition token is refused too
		assertThat(backend().tryAcquire(request(job, "node-a")).outcome()).isEqualTo(Outcome.HELD);
	}

	@Test
	void concurrentAcquisitionsNeverOverlap() throws Exception {
		String job = jobName("concurrent");
		int threads = 8;
		int attempts = 50;
		AtomicInteger holders = new AtomicInteger();
		AtomicInteger maxHolders = new AtomicInteger();
		AtomicInteger acquisitions = new AtomicInteger();
		ConcurrentLinkedQueue<Long> fencingTokens = new ConcurrentLinkedQueue<>();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				String owner = "node-" + t;
				futures.add(executor.submit(() -> {
					start.await();
					for (int i = 0; i < attempts; i++) {
						LeaseRequest request = request(job, owner);
						AcquireResult result = backend().tryAcquire(request);
						if (result.isAcquired()) {
							int now = holders.incrementAndGet();
							maxHolders.accumulateAndGet(now, Math::max);
							acquisitions.incrementAndGet();
							fencingTokens.add(result.fencingToken());
							Thread.sleep(1);
							holders.decrementAndGet();
							backend().release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
						}
						else {
							assertThat(result.outcome()).isEqualTo(Outcome.HELD);
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(maxHolders).hasValue(1);
		assertThat(acquisitions.get()).isPositive();
		assertThat(new HashSet<>(fencingTokens)).as("distinct fencing tokens").hasSize(acquisitions.get());
	}

	@Test
	void releaseLetsAnotherOwnerAcquire() {
		String job = jobName("release");
		HeldLease a = acquire(request(job, "node-a"));
		backend().release(a, Duration.ZERO);
		HeldLease b = acquire(request(job, "node-b"));
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.holder()).isEqualTo("node-b");
			assertThat(info.live()).isTrue();
		});
	}

	@Test
	void lockAtLeastForKeepsLeaseAfterRelease() {
		String job = jobName("at-least");
		Duration atLeast = Duration.ofSeconds(1);
		long started = System.nanoTime();
		HeldLease a = acquire(request(job, "node-a"));
		backend().release(a, atLeast);
		AcquireResult early = backend().tryAcquire(request(job, "node-b"));
		assertThat(early.outcome()).isEqualTo(Outcome.HELD);
		assertThat(early.holder()).isEqualTo("node-a");
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel == null) {
			awaitAcquired(request(job, "node-b"));
			assertThat(elapsedSince(started)).isGreaterThanOrEqualTo(atLeast.minus(CLOCK_TOLERANCE));
			return;
		}
		Duration half = atLeast.dividedBy(2);
		timeTravel.elapse(job, half);
		if (elapsedSince(started).compareTo(half.minus(CLOCK_TOLERANCE)) < 0) {
			assertThat(backend().tryAcquire(request(job, "node-b")).outcome()).as("half of lockAtLeastFor later")
				.isEqualTo(Outcome.HELD);
		}
		acquireAfter(atLeast.minus(half), request(job, "node-b"));
	}

	@Test
	void aRenewalThatReachesTheStoreAfterTheReleaseDoesNotHoldTheLeaseAgain() {
		// the watchdog may send a renewal just before the run ends; arriving after the
		// release, it must neither extend a kept lease nor revive a released one
		String kept = jobName("renew-after-kept-release");
		HeldLease a = acquire(request(kept, "node-a"));
		backend().release(a, Duration.ofSeconds(1));
		assertThat(backend().renew(List.of(a), LONG_TTL)).isEmpty();
		long started = System.nanoTime();
		acquireAfter(Duration.ofSeconds(1), request(kept, "node-b"));
		assertThat(elapsedSince(started)).isLessThan(Duration.ofSeconds(5));
		String released = jobName("renew-after-release");
		HeldLease b = acquire(request(released, "node-a"));
		backend().release(b, Duration.ZERO);
		assertThat(backend().renew(List.of(b), LONG_TTL)).isEmpty();
		assertThat(backend().tryAcquire(request(released, "node-b")).isAcquired()).isTrue();
	}

	/**
	 * The one test that waits for a lease's expiry in real time, time travel or not: the
	 * store's clock, really running, ends the lease.
	 */
	@Test
	void leaseExpiresAfterTtlByTheStoresClockInRealTime() {
		String job = jobName("expiry");
		long started = System.nanoTime();
		HeldLease a = acquire(request(job, "node-a", SHORT_TTL, null));
		assertThat(backend().tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
		AcquireResult b = awaitAcquired(request(job, "node-b"));
		assertThat(elapsedSince(started)).isGreaterThanOrEqualTo(SHORT_TTL.minus(CLOCK_TOLERANCE));
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::holder).isEqualTo("node-b");
	}

	@Test
	void leaseExpiresOnceItsTtlHasPassedOnTheStoresClock() {
		StoreTimeTravel timeTravel = timeTravel();
		assumeTrue(timeTravel != null, "without time travel, leaseExpiresAfterTtlByTheStoresClockInRealTime waits");
		String job = jobName("expiry-travel");
		HeldLease a = acquire(request(job, "node-a", LONG_TTL, null));
		Duration almost = LONG_TTL.minusSeconds(1);
		timeTravel.elapse(job, almost);
		assertThat(backend().tryAcquire(request(job, "node-b")).outcome()).as("a second before the TTL ends")
			.isEqualTo(Outcome.HELD);
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::live).isEqualTo(true);
		AcquireResult b = acquireAfter(storedTtl(LONG_TTL).minus(almost), request(job, "node-b"));
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(backend().describe(job)).get().extracting(LeaseInfo::holder).isEqualTo("node-b");
	}

	@Test
	void renewExtendsLease() throws InterruptedException {
		String job = jobName("renew");
		HeldLease a = acquire(request(job, "node-a", SHORT_TTL, null));
		// 3 s of renewals every quarter TTL: without them the lease would end after 1 s
		for (int i = 0; i < 12; i++) {
			pass(job, SHORT_TTL.dividedBy(4));
			assertThat(backend().renew(List.of(a), SHORT_TTL)).containsExactly(a.leaseToken());
			assertThat(backend().tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
		}
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.holder()).isEqualTo("node-a");
			assertThat(info.live()).isTrue();
			assertThat(info.fencingToken()).isEqualTo(a.fencingToken());
		});
		if (timeTravel() != null) {
			// the time that passed was real for the store: without renewals the lease
			// ends
			acquireAfter(storedTtl(SHORT_TTL), request(job, "node-b"));
		}
	}

	@Test
	void renewReturnsOnlyLeasesStillHeld() {
		HeldLease forced = acquire(request(jobName("renew-forced"), "node-a"));
		HeldLease expired = acquire(request(jobName("renew-expired"), "node-a", SHORT_TTL, null));
		HeldLease kept = acquire(request(jobName("renew-kept"), "node-a"));
		assertThat(backend().forceRelease(forced.jobName())).isTrue();
		acquireAfter(storedTtl(SHORT_TTL), request(expired.jobName(), "node-b"));
		Set<String> renewed = backend().renew(List.of(forced, expired, kept), LONG_TTL);
		assertThat(renewed).containsExactly(kept.leaseToken());
		assertThat(backend().describe(forced.jobName())).get().extracting(LeaseInfo::live).isEqualTo(false);
		assertThat(backend().describe(expired.jobName())).get().extracting(LeaseInfo::holder).isEqualTo("node-b");
	}

	@Test
	void renewOfNothingDoesNotTouchStore() {
		resetRoundTrips();
		assertThat(backend().renew(List.of(), LONG_TTL)).isEmpty();
		assertThat(roundTrips()).isZero();
	}

	@Test
	void staleTokenDoesNotTouchNewHolder() {
		String job = jobName("stale");
		HeldLease a = acquire(request(job, "node-a"));
		assertThat(backend().forceRelease(job)).isTrue();
		HeldLease b = acquire(request(job, "node-b"));
		LeaseInfo before = backend().describe(job).orElseThrow();
		backend().release(a, Duration.ZERO);
		assertThat(backend().renew(List.of(a), Duration.ofMinutes(5))).isEmpty();
		LeaseInfo after = backend().describe(job).orElseThrow();
		assertThat(after.holder()).isEqualTo("node-b");
		assertThat(after.live()).isTrue();
		assertThat(after.expiresAt()).isEqualTo(before.expiresAt());
		assertThat(after.fencingToken()).isEqualTo(b.fencingToken());
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
			assertThat(roundTrips()).isEqualTo(expectedAcquireRoundTrips());
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

	@Test
	void fencingTokensIncreaseAcrossReleaseExpiryAndForceRelease() {
		String job = jobName("fencing");
		HeldLease first = acquire(request(job, "node-a"));
		backend().release(first, Duration.ZERO);
		HeldLease second = acquire(request(job, "node-b"));
		assertThat(backend().forceRelease(job)).isTrue();
		HeldLease third = acquire(request(job, "node-c", SHORT_TTL, null));
		AcquireResult fourth = acquireAfter(storedTtl(SHORT_TTL), request(job, "node-d"));
		assertThat(List.of(first.fencingToken(), second.fencingToken(), third.fencingToken(), fourth.fencingToken()))
			.isSorted()
			.doesNotHaveDuplicates();
		assertThat(first.fencingToken()).isPositive();
	}

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
	void forceReleaseExpiresLiveLeaseOnce() {
		String job = jobName("force");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		HeldLease a = acquire(request(job, "node-a", LONG_TTL, slot));
		assertThat(backend().forceRelease(job)).isTrue();
		assertThat(backend().forceRelease(job)).isFalse();
		assertThat(backend().forceRelease(jobName("force-unknown"))).isFalse();
		assertThat(backend().describe(job)).get().satisfies((info) -> {
			assertThat(info.live()).isFalse();
			assertThat(info.fencingToken()).isEqualTo(a.fencingToken());
			assertThat(info.lastSlot()).isEqualTo(slot);
		});
		assertThat(backend().renew(List.of(a), LONG_TTL)).isEmpty();
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
		assertThat(roundTrips()).as("first acquisition").isEqualTo(expectedAcquireRoundTrips());
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

	// ---- recovery, catch-up and the run ledger (ClaimPolicy, startRun, findPending)
	// ----

	/**
	 * Return the round trips of one {@code findPending} call over several jobs.
	 * @return the round trips
	 */
	protected int expectedFindPendingRoundTrips() {
		return 1;
	}

	private static final ClaimPolicy RECOVER_LOST = new ClaimPolicy(true, false, 3, false);

	private static final ClaimPolicy RECOVER_FAILED = new ClaimPolicy(true, true, 3, false);

	private static final ClaimPolicy CATCH_UP = new ClaimPolicy(false, false, 1, true);

	private static final Instant S1 = Instant.parse("2026-01-01T10:00:00Z");

	private static final Instant S2 = S1.plusSeconds(60);

	private static final Instant S3 = S1.plusSeconds(120);

	private static final Instant S4 = S1.plusSeconds(180);

	private static LeaseRequest claim(String job, String owner, Duration ttl, Instant slot, ClaimPolicy policy,
			@Nullable Instant previousSlot) {
		return request(job, owner, ttl, slot).withPolicy(policy, previousSlot);
	}

	private static LeaseRequest recoveryClaim(String job, String owner, Duration ttl, ClaimPolicy policy) {
		return LeaseRequest.recovery(job, owner, UUID.randomUUID().toString(), ttl, policy);
	}

	/**
	 * The TTL of the recovery claims that wait out the recovery grace (a quarter of it)
	 * and then use the lease they took.
	 */
	private static final Duration RECOVERY_TTL = Duration.ofSeconds(4);

	/**
	 * Make a recovery claim until it takes the lease over: the first one that finds a run
	 * still recorded as running only marks it, and a claim takes it once the grace after
	 * the mark has passed.
	 */
	private AcquireResult awaitRecovered(LeaseRequest recovery) {
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			AcquireResult first = backend().tryAcquire(recovery);
			if (first.isAcquired()) {
				return first;
			}
			timeTravel.elapse(recovery.jobName(), recovery.recoveryGrace().plus(BEYOND));
			AcquireResult taken = backend().tryAcquire(recovery);
			assertThat(taken.outcome())
				.as("recovery claim of %s by %s after the grace", recovery.jobName(), recovery.owner())
				.isEqualTo(Outcome.ACQUIRED);
			return taken;
		}
		AtomicReference<AcquireResult> result = new AtomicReference<>();
		await().atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).until(() -> {
			AcquireResult attempt = backend().tryAcquire(recovery);
			result.set(attempt);
			return attempt.isAcquired();
		});
		return result.get();
	}

	private HeldLease held(LeaseRequest request, AcquireResult result) {
		assertThat(result.outcome()).as("claim of %s by %s", request.jobName(), request.owner())
			.isEqualTo(Outcome.ACQUIRED);
		return HeldLease.of(request, result.fencingToken());
	}

	/**
	 * Wait until the job's lease, which the store keeps for at most {@code remaining},
	 * has expired; with time travel, let that time pass and expect it expired at once.
	 */
	private void awaitExpired(String job, Duration remaining) {
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			timeTravel.elapse(job, remaining.plus(BEYOND));
			assertThat(backend().describe(job)).as("lease of %s after %s", job, remaining)
				.get()
				.extracting(LeaseInfo::live)
				.isEqualTo(false);
			return;
		}
		await().atMost(PATIENCE)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> backend().describe(job).map((info) -> !info.live()).orElse(false));
	}

	/**
	 * Wait until the job has pending work, once its lease has ended (it already has).
	 */
	private void awaitPending(String job, ClaimPolicy policy) {
		await().atMost(PATIENCE)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> backend().findPending(Map.of(job, policy)).contains(job));
	}

	/**
	 * Wait until the job has pending work, once its lease, which the store keeps for at
	 * most {@code remaining}, has expired; with time travel, let that time pass and
	 * expect the work pending at once.
	 */
	private void awaitPending(String job, ClaimPolicy policy, Duration remaining) {
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel == null) {
			awaitPending(job, policy);
			return;
		}
		timeTravel.elapse(job, remaining.plus(BEYOND));
		assertThat(backend().findPending(Map.of(job, policy))).as("pending after %s", remaining).contains(job);
	}

	@Test
	void firstClaimWithAPolicyMakesTheSlotsFirstAttemptTheCurrentRun() {
		assumeTrue(supportsRecovery());
		String job = jobName("first-claim");
		LeaseRequest request = claim(job, "node-a", LONG_TTL, S1, RECOVER_LOST, null);
		AcquireResult result = backend().tryAcquire(request);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
		assertThat(result.lastSlot()).isEqualTo(S1);
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
	}

	@Test
	void aSucceededRunLeavesNothingPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("succeeded");
		LeaseRequest request = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease lease = held(request, backend().tryAcquire(request));
		backend().release(lease, Duration.ZERO, RunCompletion.succeeded());
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", LONG_TTL, RECOVER_FAILED)).isAcquired()).isFalse();
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aDeadRunIsPendingOnceItsLeaseExpiresAndExactlyOneRecoveryClaimWins() throws Exception {
		assumeTrue(supportsRecovery());
		String job = jobName("dead-run");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", LONG_TTL, RECOVER_LOST)).isAcquired())
			.as("recovery claim of a live lease")
			.isFalse();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			// the claims that only mark the run, and the grace after the mark, without
			// waiting: the contenders race for the run once the grace has passed
			LeaseRequest marking = recoveryClaim(job, "node-marker", RECOVERY_TTL, RECOVER_LOST);
			assertThat(backend().tryAcquire(marking).isAcquired()).as("the first recovery claim only marks").isFalse();
			assertThat(backend().tryAcquire(recoveryClaim(job, "node-marker", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
				.as("a recovery claim within the grace")
				.isFalse();
			timeTravel.elapse(job, marking.recoveryGrace().plus(BEYOND));
		}
		int contenders = 8;
		ExecutorService pool = Executors.newFixedThreadPool(contenders);
		try {
			// every contender claims until one of them has won (the first claims only
			// mark
			// the run, which is taken over once the recovery grace has passed)
			CountDownLatch start = new CountDownLatch(1);
			AtomicReference<AcquireResult> someWin = new AtomicReference<>();
			List<Future<List<AcquireResult>>> results = new ArrayList<>();
			for (int i = 0; i < contenders; i++) {
				String owner = "node-" + i;
				results.add(pool.submit(() -> {
					start.await();
					List<AcquireResult> wins = new ArrayList<>();
					long deadline = System.nanoTime() + PATIENCE.toNanos();
					while (someWin.get() == null && System.nanoTime() - deadline < 0) {
						AcquireResult result = backend()
							.tryAcquire(recoveryClaim(job, owner, RECOVERY_TTL, RECOVER_LOST));
						if (result.isAcquired()) {
							wins.add(result);
							someWin.compareAndSet(null, result);
						}
					}
					return wins;
				}));
			}
			start.countDown();
			List<AcquireResult> won = new ArrayList<>();
			for (Future<List<AcquireResult>> result : results) {
				won.addAll(result.get(30, TimeUnit.SECONDS));
			}
			assertThat(won).hasSize(1);
			AcquireResult winner = won.get(0);
			assertThat(winner.fencingToken()).isGreaterThan(fence);
			assertThat(winner.run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
			assertThat(winner.lastSlot()).isEqualTo(S1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void startRunRaisesTheFenceAndRecordsTheAttemptWhileTheLeaseIsHeld() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-run");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		LeaseRequest recovery = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST);
		HeldLease lease = held(recovery, awaitRecovered(recovery));
		OptionalLong second = backend().startRun(lease, S1, 2);
		assertThat(second).isPresent();
		assertThat(second.getAsLong()).isGreaterThan(lease.fencingToken()).isGreaterThan(fence);
		HeldLease run = new HeldLease(job, "node-b", lease.leaseToken(), second.getAsLong(), S1);
		OptionalLong third = backend().startRun(run, S2, 1);
		assertThat(third).isPresent();
		assertThat(third.getAsLong()).isGreaterThan(second.getAsLong());
		backend().release(new HeldLease(job, "node-b", lease.leaseToken(), third.getAsLong(), S2), Duration.ZERO,
				RunCompletion.succeeded());
		assertThat(backend().startRun(run, S3, 1)).as("startRun after release").isEmpty();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
		LeaseRequest next = claim(job, "node-c", LONG_TTL, S2, RECOVER_LOST, S1);
		assertThat(backend().tryAcquire(next).outcome()).as("S2 was claimed by startRun").isEqualTo(Outcome.SLOT_DONE);
	}

	@Test
	void aFailedRunIsPendingOnlyUnderRecoverFailedAndAfterItsRetryDelay() {
		assumeTrue(supportsRecovery());
		String job = jobName("failed-run");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		Duration retryDelay = Duration.ofSeconds(2);
		backend().release(lease, Duration.ZERO, RunCompletion.failed(retryDelay));
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).as("before the retry delay").isEmpty();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", LONG_TTL, RECOVER_FAILED)).isAcquired())
			.as("recovery claim before the retry delay")
			.isFalse();
		awaitPending(job, RECOVER_FAILED, retryDelay);
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).as("under recovery=lost").isEmpty();
		LeaseRequest recovery = recoveryClaim(job, "node-b", LONG_TTL, RECOVER_FAILED);
		AcquireResult result = backend().tryAcquire(recovery);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.FAILED));
	}

	@Test
	void aFirstClaimOfALaterSlotTakesOverAFailedRunBeforeItsRetryDelay() {
		assumeTrue(supportsRecovery());
		String job = jobName("failed-then-next");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO,
				RunCompletion.failed(Duration.ofMinutes(5)));
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		AcquireResult result = backend().tryAcquire(next);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S2);
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.FAILED));
	}

	@Test
	void aFirstClaimOfALaterSlotKeepsADeadRunForItsNewHolder() {
		assumeTrue(supportsRecovery());
		String job = jobName("dead-then-next");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		// a recovery claim marks the run still recorded as running; once the grace after
		// the mark has passed, a first claim of a later slot takes it over too
		LeaseRequest marking = recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST);
		assertThat(backend().tryAcquire(marking).isAcquired()).isFalse();
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_LOST, S1);
		// the grace is the marking claim's on some stores, the claimant's on others (the
		// Kubernetes backend measures it on the claiming node)
		Duration grace = Collections.max(List.of(marking.recoveryGrace(), next.recoveryGrace()));
		AcquireResult result = acquireAfter(grace, next);
		assertThat(result.fencingToken()).isGreaterThan(fence);
		assertThat(result.lastSlot()).isEqualTo(S2);
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
	}

	@Test
	void theAttemptLimitEndsRecovery() {
		assumeTrue(supportsRecovery());
		String job = jobName("attempt-limit");
		ClaimPolicy twoAttempts = new ClaimPolicy(true, false, 2, false);
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, twoAttempts, null);
		held(first, backend().tryAcquire(first));
		awaitPending(job, twoAttempts, storedTtl(SHORT_TTL));
		LeaseRequest recovery = recoveryClaim(job, "node-b", SHORT_TTL, twoAttempts);
		HeldLease lease = held(recovery, awaitRecovered(recovery));
		assertThat(backend().startRun(lease, S1, 2)).isPresent();
		// node-b dies too: its attempt 2 is the last one
		awaitExpired(job, storedTtl(SHORT_TTL));
		assertThat(backend().findPending(Map.of(job, twoAttempts))).isEmpty();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).as("with three attempts").contains(job);
	}

	@Test
	void aFirstClaimAfterUnclaimedSlotsReportsTheLastRunForCatchUp() {
		assumeTrue(supportsRecovery());
		String job = jobName("catch-up");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest late = claim(job, "node-b", LONG_TTL, S4, CATCH_UP, S3);
		AcquireResult result = backend().tryAcquire(late);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).as("S2 and S3 were never claimed").isEqualTo(new SlotRun(S1, 1, RunState.SUCCEEDED));
		HeldLease lease = HeldLease.of(late, result.fencingToken());
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		OptionalLong s3 = backend().startRun(lease, S3, 1);
		OptionalLong s4 = backend().startRun(lease, S4, 1);
		assertThat(s2).isPresent();
		assertThat(s3).isPresent();
		assertThat(s4).isPresent();
		assertThat(s2.getAsLong()).isGreaterThan(result.fencingToken());
		assertThat(s3.getAsLong()).isGreaterThan(s2.getAsLong());
		assertThat(s4.getAsLong()).isGreaterThan(s3.getAsLong());
	}

	@Test
	void aFirstClaimRightAfterTheLastSlotHasNothingToCatchUp() {
		assumeTrue(supportsRecovery());
		String job = jobName("no-gap");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, CATCH_UP, S1);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aHolderThatDiedBetweenCatchUpRunsLeavesTheRestPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("died-mid-catch-up");
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, true);
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, policy, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest late = claim(job, "node-b", SHORT_TTL, S4, policy, S3);
		HeldLease lease = held(late, backend().tryAcquire(late));
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		assertThat(s2).isPresent();
		backend().release(new HeldLease(job, "node-b", lease.leaseToken(), s2.getAsLong(), S2), Duration.ZERO,
				RunCompletion.succeeded());
		awaitPending(job, policy);
		LeaseRequest recovery = recoveryClaim(job, "node-c", LONG_TTL, policy);
		AcquireResult result = backend().tryAcquire(recovery);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).isEqualTo(new SlotRun(S2, 1, RunState.SUCCEEDED));
	}

	@Test
	void withoutASlotAClaimWithoutAPolicyLeavesNothingPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("no-policy");
		held(request(job, "node-a", SHORT_TTL, null), backend().tryAcquire(request(job, "node-a", SHORT_TTL, null)));
		awaitExpired(job, storedTtl(SHORT_TTL));
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
	}

	@Test
	void aClaimOfASlotWithoutAPolicyEndedByItsReleaseLeavesNothingPending() {
		assumeTrue(supportsRecovery());
		String job = jobName("no-policy-slot");
		LeaseRequest request = request(job, "node-a", LONG_TTL, S1);
		backend().release(held(request, backend().tryAcquire(request)), Duration.ZERO, RunCompletion.succeeded());
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
		LeaseRequest next = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void slotsClaimedWithoutAPolicyAreNotCaughtUpByALaterClaimWithOne() {
		assumeTrue(supportsRecovery());
		String job = jobName("mixed-catch-up");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, CATCH_UP, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		for (Instant slot : List.of(S2, S3)) {
			LeaseRequest none = request(job, "node-b", LONG_TTL, slot);
			backend().release(held(none, backend().tryAcquire(none)), Duration.ZERO);
		}
		LeaseRequest next = claim(job, "node-a", LONG_TTL, S4, CATCH_UP, S3);
		AcquireResult result = backend().tryAcquire(next);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).as("S2 and S3 were claimed without a policy: nothing is pending")
			.isEqualTo(new SlotRun(S4, 1, RunState.RUNNING));
	}

	@Test
	void slotsClaimedWithoutAPolicyAreNotPendingForALaterClaimWithOne() {
		assumeTrue(supportsRecovery());
		String job = jobName("mixed-policy");
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, true);
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, policy, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		for (Instant slot : List.of(S2, S3)) {
			LeaseRequest none = request(job, "node-b", LONG_TTL, slot);
			backend().release(held(none, backend().tryAcquire(none)), Duration.ZERO, RunCompletion.succeeded());
		}
		LeaseRequest next = claim(job, "node-a", LONG_TTL, S4, policy, S3);
		AcquireResult result = backend().tryAcquire(next);
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.run()).as("S2 and S3 ran under the claims without a policy")
			.isEqualTo(new SlotRun(S4, 1, RunState.RUNNING));
	}

	@Test
	void aCompletionThatArrivesAfterTheLeaseExpiredIsRecordedAndTheRunIsNotRecovered() {
		assumeTrue(supportsRecovery());
		String job = jobName("late-completion");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		// another node's recovery claim finds the run still running: it only marks it
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
			.isFalse();
		// the completion the store could not take while the lease lived arrives now
		assertThat(backend().completeRun(lease, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		assertThat(backend().completeRun(lease, Duration.ZERO, RunCompletion.succeeded()))
			.as("a repeated completion (its first reply was lost)")
			.isTrue();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
		Duration grace = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST).recoveryGrace();
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			// twice the grace after the mark, a step at a time: no claim takes the run
			for (int step = 0; step < 8; step++) {
				timeTravel.elapse(job, grace.dividedBy(4));
				assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
					.as("a recovery claim %s after the mark", grace.dividedBy(4).multipliedBy(step + 1))
					.isFalse();
			}
		}
		else {
			await().during(grace.multipliedBy(2))
				.atMost(PATIENCE)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> !backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST))
					.isAcquired());
		}
		LeaseRequest next = claim(job, "node-c", LONG_TTL, S2, RECOVER_LOST, S1);
		assertThat(backend().tryAcquire(next).run()).as("the next slot starts afresh")
			.isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aRunStillRecordedAsRunningIsMarkedFirstAndTakenOverByOneClaimAfterTheGrace() throws Exception {
		assumeTrue(supportsRecovery());
		String job = jobName("mark-then-take");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		long fence = held(first, backend().tryAcquire(first)).fencingToken();
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		LeaseRequest marking = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST);
		Duration grace = marking.recoveryGrace();
		long beforeMark = System.nanoTime();
		assertThat(backend().tryAcquire(marking).isAcquired()).as("the first recovery claim only marks").isFalse();
		long marked = System.nanoTime();
		AcquireResult early = backend().tryAcquire(recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST));
		AcquireResult earlyFirst = backend().tryAcquire(claim(job, "node-d", LONG_TTL, S2, RECOVER_LOST, S1));
		if (elapsedSince(marked).compareTo(grace.minus(CLOCK_TOLERANCE)) < 0) {
			assertThat(early.isAcquired()).as("a recovery claim within the grace").isFalse();
			assertThat(earlyFirst.isAcquired()).as("a first claim of a later slot within the grace").isFalse();
		}
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			timeTravel.elapse(job, grace.plus(BEYOND));
		}
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			AtomicReference<AcquireResult> winner = new AtomicReference<>();
			AtomicLong wonAfter = new AtomicLong();
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> wins = new ArrayList<>();
			for (String owner : List.of("node-e", "node-f")) {
				wins.add(pool.submit(() -> {
					start.await();
					int won = 0;
					long deadline = System.nanoTime() + PATIENCE.toNanos();
					while (winner.get() == null && System.nanoTime() - deadline < 0) {
						AcquireResult result = backend()
							.tryAcquire(recoveryClaim(job, owner, RECOVERY_TTL, RECOVER_LOST));
						if (result.isAcquired()) {
							won++;
							wonAfter.compareAndSet(0, System.nanoTime() - beforeMark);
							winner.compareAndSet(null, result);
						}
					}
					return won;
				}));
			}
			start.countDown();
			int total = 0;
			for (Future<Integer> won : wins) {
				total += won.get(30, TimeUnit.SECONDS);
			}
			assertThat(total).as("claims that took the run over").isEqualTo(1);
			if (timeTravel == null) {
				assertThat(Duration.ofNanos(wonAfter.get())).as("taken over after the grace")
					.isGreaterThanOrEqualTo(grace.minus(CLOCK_TOLERANCE));
			}
			assertThat(winner.get().fencingToken()).isGreaterThan(fence);
			assertThat(winner.get().run()).isEqualTo(new SlotRun(S1, 1, RunState.RUNNING));
			assertThat(winner.get().lastSlot()).isEqualTo(S1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aCompletionOfARunDoesNotEndALaterRunStartedUnderTheSameLease() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-reply-lost");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_LOST, null);
		HeldLease lease = held(first, backend().tryAcquire(first));
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		assertThat(s2).isPresent();
		HeldLease run2 = new HeldLease(job, "node-a", lease.leaseToken(), s2.getAsLong(), S2);
		// S3's start reaches the store, but its reply is lost: node-a cannot tell, does
		// not run S3, and sends S2's completion
		OptionalLong s3 = backend().startRun(lease, S3, 1);
		assertThat(s3).isPresent();
		HeldLease run3 = new HeldLease(job, "node-a", lease.leaseToken(), s3.getAsLong(), S3);
		assertThat(backend().completeRun(run2, Duration.ZERO, RunCompletion.succeeded()))
			.as("S2's completion after S3 started under the same lease")
			.isTrue();
		assertThat(backend().completeRun(run2, Duration.ZERO, RunCompletion.succeeded()))
			.as("a repeated completion of S2 (its first reply was lost)")
			.isTrue();
		// S3 is not recorded as ended by S2's completion: it is a run that died, pending
		// once the lease that completion released has expired
		awaitPending(job, RECOVER_LOST);
		assertThat(backend().startRun(run3, S4, 1)).as("startRun after the release").isEmpty();
		// S3's own completion (late: its node did run it) is still recorded
		assertThat(backend().completeRun(run3, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		assertThat(backend().findPending(Map.of(job, RECOVER_LOST))).isEmpty();
		assertThat(backend().tryAcquire(recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST)).isAcquired())
			.isFalse();
		LeaseRequest next = claim(job, "node-c", LONG_TTL, S4, RECOVER_LOST, S3);
		assertThat(backend().tryAcquire(next).run()).isEqualTo(new SlotRun(S4, 1, RunState.RUNNING));
	}

	@Test
	void aCompletionOfARunWhoseNextStartDidNotReachTheStoreIsRecorded() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-not-sent");
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, true);
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, policy, null);
		backend().release(held(first, backend().tryAcquire(first)), Duration.ZERO, RunCompletion.succeeded());
		LeaseRequest late = claim(job, "node-b", LONG_TTL, S4, policy, S3);
		HeldLease lease = held(late, backend().tryAcquire(late));
		OptionalLong s2 = backend().startRun(lease, S2, 1);
		assertThat(s2).isPresent();
		HeldLease run2 = new HeldLease(job, "node-b", lease.leaseToken(), s2.getAsLong(), S2);
		// S3's start never reaches the store: node-b sends S2's completion
		assertThat(backend().completeRun(run2, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		LeaseRequest recovery = recoveryClaim(job, "node-c", RECOVERY_TTL, policy);
		AcquireResult result = awaitRecovered(recovery);
		assertThat(result.run()).as("the catch-up goes on after S2").isEqualTo(new SlotRun(S2, 1, RunState.SUCCEEDED));
		assertThat(result.lastSlot()).isEqualTo(S4);
		assertThat(result.fencingToken()).isGreaterThan(s2.getAsLong());
	}

	@Test
	void aFailedCompletionOfARunDoesNotFailALaterRunStartedUnderTheSameLease() {
		assumeTrue(supportsRecovery());
		String job = jobName("start-reply-lost-failed");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease run1 = held(first, backend().tryAcquire(first));
		OptionalLong s2 = backend().startRun(run1, S2, 1);
		assertThat(s2).isPresent();
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		// S2 never ran and is pending as a dead run, without S1's retry delay
		awaitPending(job, RECOVER_LOST);
		LeaseRequest recovery = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_FAILED);
		assertThat(awaitRecovered(recovery).run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
	}

	@Test
	void aCompletionAfterAnotherClaimTookTheRunOverIsSupersededAndChangesNothing() {
		assumeTrue(supportsRecovery());
		String job = jobName("superseded");
		LeaseRequest first = claim(job, "node-a", SHORT_TTL, S1, RECOVER_LOST, null);
		HeldLease late = held(first, backend().tryAcquire(first));
		awaitPending(job, RECOVER_LOST, storedTtl(SHORT_TTL));
		LeaseRequest recovery = recoveryClaim(job, "node-b", RECOVERY_TTL, RECOVER_LOST);
		HeldLease taken = held(recovery, awaitRecovered(recovery));
		assertThat(backend().completeRun(late, Duration.ZERO, RunCompletion.succeeded())).as("superseded").isFalse();
		OptionalLong second = backend().startRun(taken, S1, 2);
		assertThat(second).isPresent();
		assertThat(backend().completeRun(late, Duration.ZERO, RunCompletion.succeeded())).as("superseded").isFalse();
		// node-b's attempt 2 dies: it is still recorded as running, not as node-a's
		// success
		backend().release(new HeldLease(job, "node-b", taken.leaseToken(), second.getAsLong(), S1), Duration.ZERO);
		awaitPending(job, RECOVER_LOST);
		LeaseRequest third = recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST);
		assertThat(awaitRecovered(third).run()).isEqualTo(new SlotRun(S1, 2, RunState.RUNNING));
	}

	@Test
	void aCompletionRetriedAfterItsNodeClaimedTheNextSlotLeavesTheNewRunAndItsLeaseAlone() {
		assumeTrue(supportsRecovery());
		String job = jobName("retry-after-reclaim");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		HeldLease run1 = held(first, backend().tryAcquire(first));
		// S1's completion is recorded, but its reply is lost: node-a sends it again later
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		// meanwhile the same node claims S2, with a new lease token
		LeaseRequest second = claim(job, "node-a", LONG_TTL, S2, RECOVER_FAILED, S1);
		AcquireResult claimed = backend().tryAcquire(second);
		HeldLease run2 = held(second, claimed);
		assertThat(claimed.run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
		assertThat(backend().completeRun(run1, Duration.ofSeconds(30), RunCompletion.succeeded()))
			.as("S1's completion again, after S2 was claimed")
			.isFalse();
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.failed(Duration.ZERO)))
			.as("S1's completion again, as failed")
			.isFalse();
		backend().release(run1, Duration.ZERO);
		// node-a still holds S2's lease, and S2 is still its running first attempt
		assertThat(backend().renew(List.of(run2), LONG_TTL)).containsExactly(run2.leaseToken());
		assertThat(backend().tryAcquire(claim(job, "node-b", LONG_TTL, S3, RECOVER_FAILED, S2)).isAcquired()).isFalse();
		assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).isEmpty();
		// S2's node dies: S2 is a dead run, not a failed or succeeded one
		backend().release(run2, Duration.ZERO);
		awaitPending(job, RECOVER_LOST);
		LeaseRequest recovery = recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_LOST);
		AcquireResult recovered = awaitRecovered(recovery);
		assertThat(recovered.run()).isEqualTo(new SlotRun(S2, 1, RunState.RUNNING));
		assertThat(recovered.fencingToken()).isGreaterThan(run2.fencingToken());
	}

	@Test
	void aRepeatedCompletionKeepsTheLeaseForLockAtLeastForAndTheRetryDelay() {
		assumeTrue(supportsRecovery());
		String job = jobName("repeated-completion");
		LeaseRequest first = claim(job, "node-a", LONG_TTL, S1, RECOVER_FAILED, null);
		long started = System.nanoTime();
		HeldLease run1 = held(first, backend().tryAcquire(first));
		Duration atLeast = Duration.ofSeconds(2);
		assertThat(backend().completeRun(run1, atLeast, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		// the reply was lost: the same completion again
		assertThat(backend().completeRun(run1, atLeast, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		assertThat(backend().completeRun(run1, Duration.ZERO, RunCompletion.failed(Duration.ofHours(1)))).isTrue();
		assertThat(backend().renew(List.of(run1), LONG_TTL)).isEmpty();
		LeaseRequest later = claim(job, "node-b", LONG_TTL, S2, RECOVER_FAILED, S1);
		boolean withinLockAtLeastFor = elapsedSince(started).compareTo(atLeast.minus(CLOCK_TOLERANCE)) < 0;
		AcquireResult early = backend().tryAcquire(later);
		if (withinLockAtLeastFor) {
			assertThat(early.isAcquired()).as("a claim within lockAtLeastFor").isFalse();
		}
		if (!early.isAcquired()) {
			assertThat(backend().findPending(Map.of(job, RECOVER_FAILED))).as("before the retry delay").isEmpty();
			assertThat(backend().tryAcquire(recoveryClaim(job, "node-c", RECOVERY_TTL, RECOVER_FAILED)).isAcquired())
				.isFalse();
		}
		StoreTimeTravel timeTravel = timeTravel();
		AcquireResult result;
		if (early.isAcquired() || timeTravel == null) {
			result = early.isAcquired() ? early : awaitAcquired(later);
			assertThat(elapsedSince(started)).isGreaterThanOrEqualTo(atLeast.minus(CLOCK_TOLERANCE));
		}
		else {
			Duration half = atLeast.dividedBy(2);
			timeTravel.elapse(job, half);
			if (elapsedSince(started).compareTo(half.minus(CLOCK_TOLERANCE)) < 0) {
				assertThat(backend().tryAcquire(later).isAcquired()).as("a claim half of lockAtLeastFor later")
					.isFalse();
			}
			result = acquireAfter(atLeast.minus(half), later);
		}
		assertThat(result.run()).isEqualTo(new SlotRun(S1, 1, RunState.FAILED));
		assertThat(result.fencingToken()).isGreaterThan(run1.fencingToken());
	}

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
	void probeOfReachableStoreSucceeds() {
		backend().probe();
	}

	/**
	 * Return the prefix of every job name this test class uses, unique to this run of it,
	 * so that a subclass can remove exactly its own leases from a shared store.
	 * @return the prefix
	 */
	protected final String jobNamePrefix() {
		return this.jobNamePrefix;
	}

	/**
	 * Return a job name no other test uses.
	 * @param name a readable name
	 * @return the job name
	 */
	protected String jobName(String name) {
		return this.jobNamePrefix + name + "-" + UUID.randomUUID();
	}

	/**
	 * Return a slot-less request with a fresh lease token and {@link #LONG_TTL}.
	 * @param jobName the job name
	 * @param owner the owner
	 * @return the request
	 */
	protected static LeaseRequest request(String jobName, String owner) {
		return request(jobName, owner, LONG_TTL, null);
	}

	/**
	 * Return a request with a fresh lease token.
	 * @param jobName the job name
	 * @param owner the owner
	 * @param ttl the TTL
	 * @param slot the slot, or {@code null}
	 * @return the request
	 */
	protected static LeaseRequest request(String jobName, String owner, Duration ttl, Instant slot) {
		return new LeaseRequest(jobName, owner, UUID.randomUUID().toString(), ttl, slot);
	}

	/**
	 * Acquire a lease, failing the test when that does not succeed.
	 * @param request the request
	 * @return the held lease
	 */
	protected HeldLease acquire(LeaseRequest request) {
		AcquireResult result = backend().tryAcquire(request);
		assertThat(result.outcome()).as("acquisition of %s by %s", request.jobName(), request.owner())
			.isEqualTo(Outcome.ACQUIRED);
		return HeldLease.of(request, result.fencingToken());
	}

	/**
	 * Try to acquire a lease until that succeeds, failing the test after a while.
	 * @param request the request
	 * @return the successful result
	 */
	protected AcquireResult awaitAcquired(LeaseRequest request) {
		AtomicReference<AcquireResult> result = new AtomicReference<>();
		await().atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).until(() -> {
			AcquireResult attempt = backend().tryAcquire(request);
			result.set(attempt);
			return attempt.isAcquired();
		});
		return result.get();
	}

	/**
	 * Try to acquire a lease once the lease that holds it now, which the store keeps for
	 * at most {@code remaining}, has ended. With {@link #timeTravel() time travel}, let
	 * that time pass for the job and make one claim, which must succeed; else claim until
	 * one succeeds, failing the test after a while.
	 * @param remaining how long the store keeps the lease that holds it now, at most
	 * @param request the request
	 * @return the successful result
	 */
	protected AcquireResult acquireAfter(Duration remaining, LeaseRequest request) {
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel == null) {
			return awaitAcquired(request);
		}
		timeTravel.elapse(request.jobName(), remaining.plus(BEYOND));
		AcquireResult result = backend().tryAcquire(request);
		assertThat(result.outcome())
			.as("acquisition of %s by %s once %s have passed on the store's clock", request.jobName(), request.owner(),
					remaining)
			.isEqualTo(Outcome.ACQUIRED);
		return result;
	}

	/**
	 * Let time pass for a job: with {@link #timeTravel() time travel} on the store's
	 * clock only, else in real time.
	 * @param jobName the job
	 * @param duration how much time passes
	 * @throws InterruptedException if interrupted while waiting
	 */
	protected void pass(String jobName, Duration duration) throws InterruptedException {
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel != null) {
			timeTravel.elapse(jobName, duration);
		}
		else {
			Thread.sleep(duration.toMillis());
		}
	}

	private static Duration elapsedSince(long nanoTime) {
		return Duration.ofNanos(System.nanoTime() - nanoTime);
	}

}
