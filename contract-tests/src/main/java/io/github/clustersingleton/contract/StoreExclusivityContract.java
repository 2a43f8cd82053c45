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
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The store contract's exclusivity and fencing cases: one owner holds a lease at a time,
 * even under concurrent acquisitions; a stale lease token never touches the new holder's
 * lease; fencing tokens increase across release, expiry and force-release; and a force-
 * release ends a live lease once.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreExclusivityContract extends StoreContractSupport {

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
		// untouched: a store that derives the expiry from the key's remaining TTL (Redis)
		// may read it a millisecond apart; a renewal would move it by minutes
		assertThat(after.expiresAt()).isCloseTo(before.expiresAt(), within(10, ChronoUnit.MILLIS));
		assertThat(after.fencingToken()).isEqualTo(b.fencingToken());
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

}
