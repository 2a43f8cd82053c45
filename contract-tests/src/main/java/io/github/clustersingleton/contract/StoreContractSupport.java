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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the store half of the contract shares: the backend under test and the hooks
 * through which a store's test class states its round trips, its time travel and how it
 * stores TTLs; the TTLs, claim policies and slots the cases use; and the helpers that
 * make requests, acquire leases and wait for the store's clock. The store half is a chain
 * of abstract classes, one group of cases each, from this one up to
 * {@link AbstractLeaseBackendContractTests}, over the engine half.
 *
 * @author cluster-singleton contributors
 */
abstract class StoreContractSupport extends AbstractLeaseEngineContractTests {

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
	static final Duration STORE_CLOCK_MARGIN = Duration.ofSeconds(5);

	/**
	 * How long a test waits for something a short TTL makes happen.
	 */
	static final Duration PATIENCE = Duration.ofSeconds(10);

	/**
	 * How much earlier than the store's clock says the local clock may see a lease end
	 * (the two clocks tick at slightly different moments).
	 */
	static final Duration CLOCK_TOLERANCE = Duration.ofMillis(200);

	/**
	 * What a step of {@link StoreTimeTravel time travel} lets pass beyond the time a test
	 * waits out: the store then sees that time strictly past, allowances a store adds to
	 * a TTL (such as a Redis quorum's clock drift) included.
	 */
	static final Duration BEYOND = Duration.ofMillis(100);

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
	 * Return the round trips of the very first acquisition of a job, which the store has
	 * never seen: as {@link #expectedAcquireRoundTrips()} unless the store must also read
	 * the pause of every job, which it cannot check atomically on a job it keeps nothing
	 * of yet.
	 * @return the round trips
	 */
	protected int expectedFirstAcquireRoundTrips() {
		return expectedAcquireRoundTrips();
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

	/**
	 * Return the round trips of one {@code findPending} call over several jobs.
	 * @return the round trips
	 */
	protected int expectedFindPendingRoundTrips() {
		return 1;
	}

	static final ClaimPolicy RECOVER_LOST = new ClaimPolicy(true, false, 3, false);

	static final ClaimPolicy RECOVER_FAILED = new ClaimPolicy(true, true, 3, false);

	static final ClaimPolicy CATCH_UP = new ClaimPolicy(false, false, 1, true);

	static final Instant S1 = Instant.parse("2026-01-01T10:00:00Z");

	static final Instant S2 = S1.plusSeconds(60);

	static final Instant S3 = S1.plusSeconds(120);

	static final Instant S4 = S1.plusSeconds(180);

	static LeaseRequest claim(String job, String owner, Duration ttl, Instant slot, ClaimPolicy policy,
			@Nullable Instant previousSlot) {
		return request(job, owner, ttl, slot).withPolicy(policy, previousSlot);
	}

	static LeaseRequest recoveryClaim(String job, String owner, Duration ttl, ClaimPolicy policy) {
		return LeaseRequest.recovery(job, owner, UUID.randomUUID().toString(), ttl, policy);
	}

	/**
	 * The TTL of the recovery claims that wait out the recovery grace (a quarter of it)
	 * and then use the lease they took.
	 */
	static final Duration RECOVERY_TTL = Duration.ofSeconds(4);

	/**
	 * Make a recovery claim until it takes the lease over: the first one that finds a run
	 * still recorded as running only marks it, and a claim takes it once the grace after
	 * the mark has passed.
	 */
	AcquireResult awaitRecovered(LeaseRequest recovery) {
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

	HeldLease held(LeaseRequest request, AcquireResult result) {
		assertThat(result.outcome()).as("claim of %s by %s", request.jobName(), request.owner())
			.isEqualTo(Outcome.ACQUIRED);
		return HeldLease.of(request, result.fencingToken());
	}

	/**
	 * Wait until the job's lease, which the store keeps for at most {@code remaining},
	 * has expired; with time travel, let that time pass and expect it expired at once.
	 */
	void awaitExpired(String job, Duration remaining) {
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
	void awaitPending(String job, ClaimPolicy policy) {
		await().atMost(PATIENCE)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> backend().findPending(Map.of(job, policy)).contains(job));
	}

	/**
	 * Wait until the job has pending work, once its lease, which the store keeps for at
	 * most {@code remaining}, has expired; with time travel, let that time pass and
	 * expect the work pending at once.
	 */
	void awaitPending(String job, ClaimPolicy policy, Duration remaining) {
		StoreTimeTravel timeTravel = timeTravel();
		if (timeTravel == null) {
			awaitPending(job, policy);
			return;
		}
		timeTravel.elapse(job, remaining.plus(BEYOND));
		assertThat(backend().findPending(Map.of(job, policy))).as("pending after %s", remaining).contains(job);
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

	static Duration elapsedSince(long nanoTime) {
		return Duration.ofNanos(System.nanoTime() - nanoTime);
	}

}
