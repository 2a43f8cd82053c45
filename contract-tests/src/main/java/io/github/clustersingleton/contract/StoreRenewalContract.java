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
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseInfo;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The store contract's release, expiry and renewal cases: a release lets another owner
 * acquire, but not within {@code lockAtLeastFor}; a renewal that reaches the store after
 * the release does not hold the lease again; a lease expires once its TTL has passed on
 * the store's clock; and a renewal extends the leases still held, and only those.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreRenewalContract extends StoreExclusivityContract {

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

}
