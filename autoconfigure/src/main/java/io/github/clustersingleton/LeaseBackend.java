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

package io.github.clustersingleton;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * SPI of a lease store. One implementation per store (JDBC, Redis, Kubernetes); the
 * engine holds all of the semantics that are not about storage (watchdog, deadlines,
 * slots, interruption), so a backend is a small set of atomic store operations.
 * <p>
 * Every method may throw any {@link RuntimeException} when the store cannot be reached;
 * the engine treats that as "unknown", never as success. Every method is called from
 * several threads at once.
 * <p>
 * Contract shared by all implementations (checked by the contract test suite):
 * <ul>
 * <li>{@link #tryAcquire} is atomic: at most one caller gets a lease that is not expired
 * by the store's clock, and a request with a slot at or before the job's last claimed
 * slot fails.</li>
 * <li>{@link #tryAcquire} refuses, atomically and without changing anything, a request
 * whose slot is later than the store's clock plus the request's
 * {@link LeaseRequest#slotTolerance() slot tolerance}, with outcome
 * {@link AcquireResult.Outcome#CLOCK_SKEW}.</li>
 * <li>Every successful acquisition of a job returns a fencing token strictly greater than
 * all earlier ones of that job, across release, expiry and force-release.</li>
 * <li>{@link #renew} and {@link #release} only touch a lease that still carries the
 * request's {@link LeaseRequest#leaseToken() lease token}.</li>
 * <li>Every first claim with a slot records the job's current run ({@link SlotRun}) on
 * its row, atomically with the claim, whatever its policy: with nothing pending (always
 * so under a policy that is not {@link ClaimPolicy#isActive() active}) it makes the
 * claimed slot's first attempt the current run, so that a later claim under an active
 * policy never takes slots claimed under an inactive one for unserved; a claim that finds
 * pending work (see {@link ClaimPolicy}) keeps the row's run as it was and reports it,
 * and the new holder takes that work over. A claim without a slot never changes the run.
 * Only a claim with an active policy reports the run in its {@link AcquireResult}. A
 * {@link LeaseRequest#recovery() recovery claim} succeeds only on an expired lease with
 * pending work, and never moves the last slot. Two claims never both succeed.</li>
 * </ul>
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface LeaseBackend {

	/**
	 * Return the short identifier of this backend ({@code jdbc}, {@code redis},
	 * {@code kubernetes}), used in metrics tags and in {@code cluster-singleton.backend}.
	 * @return the backend id
	 */
	String id();

	/**
	 * Prepare the store once at startup, when the application has jobs that use this
	 * backend: create missing storage where configured, and check that the store is
	 * usable. A store that cannot be reached must not fail startup (the engine skips runs
	 * until it answers): log it and return.
	 * @throws io.github.clustersingleton.ClusterSingletonConfigurationException when the
	 * store is reachable but cannot be used as configured
	 */
	default void initialize() {
	}

	/**
	 * Set the observer to tell the store's time whenever a round trip reveals it. A
	 * backend whose store has a clock should read it in the acquire and renew round trips
	 * it makes anyway (never in an extra one) and pass it on; the default ignores the
	 * observer.
	 * @param observer the observer
	 */
	default void setStoreClockObserver(StoreClockObserver observer) {
	}

	/**
	 * Check that the store can hold a job of the given name.
	 * @param jobName the job name
	 * @throws IllegalArgumentException with the reason when it cannot
	 */
	void validateJobName(String jobName);

	/**
	 * Try to acquire the lease of a job, atomically, in as few round trips as the store
	 * allows.
	 * @param request what to acquire
	 * @return whether the lease was acquired, and if so with which fencing token
	 */
	AcquireResult tryAcquire(LeaseRequest request);

	/**
	 * Extend every given lease to {@code ttl} from now (store time), in one round trip
	 * where the store allows.
	 * @param leases the leases this node believes it holds
	 * @param ttl the new time to live of each lease
	 * @return the {@link HeldLease#leaseToken() lease tokens} of the leases that were
	 * renewed; a lease missing from the result is no longer held
	 */
	Set<String> renew(Collection<HeldLease> leases, Duration ttl);

	/**
	 * Release a lease if it still carries its lease token. When the acquisition was less
	 * than {@code lockAtLeastFor} ago (store time), the lease is kept until acquisition
	 * plus {@code lockAtLeastFor} instead.
	 * @param lease the lease to release
	 * @param lockAtLeastFor how long after its acquisition the lease must be kept
	 */
	void release(HeldLease lease, Duration lockAtLeastFor);

	/**
	 * Release a lease if it still carries its lease token, as
	 * {@link #release(HeldLease, Duration)} does, and record how the row's current run
	 * ended: {@link RunState#SUCCEEDED}, or {@link RunState#FAILED} with the time (store
	 * clock, now plus {@link RunCompletion#retryDelay()}) from which another attempt may
	 * be claimed.
	 * @param lease the lease to release
	 * @param lockAtLeastFor how long after its acquisition the lease must be kept
	 * @param completion how the run ended
	 */
	default void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		release(lease, lockAtLeastFor);
	}

	/**
	 * Start another run under a lease this node still holds (a recovery attempt or a
	 * catch-up, one after the other): atomically, if the lease still carries its token
	 * and has not expired, raise the fencing token by one and make {@code slot},
	 * {@code attempt}, {@link RunState#RUNNING} the row's current run. The last claimed
	 * slot becomes {@code slot} when that is later.
	 * @param lease the held lease
	 * @param slot the slot of the run that starts
	 * @param attempt its attempt
	 * @return the fencing token of the run that starts, or empty when the lease is no
	 * longer held
	 */
	default OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		throw new UnsupportedOperationException("The " + id() + " lease backend does not support recovery or "
				+ "catch-up (misfire and recovery policies)");
	}

	/**
	 * Return the jobs among {@code policies} whose lease has expired and whose row has
	 * work pending under the job's policy, a failed run counting only once its retry time
	 * has come (store clock): the jobs a {@link LeaseRequest#recovery() recovery claim}
	 * would take over now. One round trip for all jobs where the store allows.
	 * @param policies the jobs to look at, with their policies
	 * @return the names of the jobs with pending work
	 */
	default Set<String> findPending(Map<String, ClaimPolicy> policies) {
		return Set.of();
	}

	/**
	 * Return the cluster-wide run ledger this store keeps.
	 * @return the ledger, {@link RunLedger#NONE} when the store keeps none
	 */
	default RunLedger runLedger() {
		return RunLedger.NONE;
	}

	/**
	 * Describe the stored state of a job's lease.
	 * @param jobName the job name
	 * @return the lease's state, or empty when the store has never seen the job
	 */
	Optional<LeaseInfo> describe(String jobName);

	/**
	 * Expire a job's lease now, whoever holds it. The fencing token and the last claimed
	 * slot are kept. Meant for operators freeing a stuck lease.
	 * @param jobName the job name
	 * @return whether a live lease was expired
	 */
	boolean forceRelease(String jobName);

	/**
	 * Run the cheapest round trip that shows the store answers.
	 * @throws RuntimeException when it does not
	 */
	void probe();

}
