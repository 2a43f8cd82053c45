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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import org.jspecify.annotations.Nullable;

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
 * <li>A run still {@link RunState#RUNNING running} that the claim's policy would run
 * again ({@link ClaimPolicy#needsRecoveryGrace}) is taken over by no claim until a
 * recovery claim has marked it and the {@link LeaseRequest#recoveryGrace() grace} has
 * passed since (store clock where the store has one); the marking claim fails. A
 * {@link #completeRun completion} by the run's lease token is recorded, also after the
 * lease expired, until another claim takes the job.</li>
 * <li>A {@link #completeRun completion} records the end of the run with the lease's
 * {@link HeldLease#fencingToken() fencing token} only: once {@link #startRun} has made a
 * later run current under the same lease token, the completion leaves that later run as
 * it is (the start already ended the earlier run) and still answers {@code true}.</li>
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
	 * Try to acquire the leases of several jobs, each as {@link #tryAcquire} would on its
	 * own: every request is decided by itself, atomically, and one refusal does not
	 * refuse the others. A store that can send them together in fewer round trips than
	 * one per request says so with {@link #acquiresTogether()}; this default asks for
	 * them one after another.
	 * @param requests what to acquire, one request per job
	 * @return the result of each request, in the order of the requests
	 * @throws PartialAcquisitionException when some claims failed and the others were
	 * answered: it carries the answers
	 * @throws RuntimeException when the store could not be reached or refused the whole
	 * call: then some of the leases may still have been acquired, as after a failed
	 * {@link #tryAcquire}
	 * @since 0.1.0
	 */
	default List<AcquireResult> tryAcquireAll(List<LeaseRequest> requests) {
		List<@Nullable AcquireResult> results = new ArrayList<>(requests.size());
		for (LeaseRequest request : requests) {
			try {
				results.add(tryAcquire(request));
			}
			catch (RuntimeException ex) {
				throw PartialAcquisitionException.after(results, requests.size(), ex);
			}
		}
		return List.copyOf(results);
	}

	/**
	 * Whether {@link #tryAcquireAll} sends its requests to the store together, in fewer
	 * round trips than one per request. In leader mode the engine then claims the cron
	 * slots of one instant in one call.
	 * @return {@code false} unless the store overrides {@link #tryAcquireAll}
	 * @since 0.1.0
	 */
	default boolean acquiresTogether() {
		return false;
	}

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
	 * Record how a run ended, by the lease token of the claim that started it, and
	 * release its lease as {@link #release(HeldLease, Duration)} does when the lease is
	 * still live. The completion is recorded, atomically, as long as the row's current
	 * run still belongs to {@code lease}'s lease token, that is as long as no other claim
	 * has taken the job since, <em>even after the lease expired</em>: a run whose end
	 * could not be told to the store in time (the store was unreachable as it ended) is
	 * still recorded, and a {@link LeaseRequest#recovery() recovery claim} does not take
	 * it over. A recovery claim that finds an expired lease whose run is still
	 * {@link RunState#RUNNING running} first marks it and takes it over only from
	 * {@link LeaseRequest#recoveryGrace()} later (store clock), which is the time a
	 * delayed completion has to arrive.
	 * <p>
	 * The completion is matched by fencing token as well: it records the end of the run
	 * whose fencing token is {@code lease}'s {@link HeldLease#fencingToken()} (the
	 * acquisition's for the run a claim started, the one {@link #startRun} returned for a
	 * later run), and only while that run is still the row's current run. When a later
	 * run has started under the same lease token since (a {@code startRun} whose answer
	 * the caller may never have seen), that start already ended this run: the later run
	 * is left as it is (it is not recorded as ended by this completion), the lease is
	 * released as above, and the answer is {@code true}. So a caller whose
	 * {@code startRun} threw can always send the previous run's completion. The check and
	 * the write are one atomic store operation.
	 * <p>
	 * The answer is definitive either way; a {@link RuntimeException} means "unknown" and
	 * the caller tries again. Recording the same completion twice is harmless.
	 * @param lease the lease of the run that ended, with that run's fencing token
	 * @param lockAtLeastFor how long after its acquisition the lease must be kept
	 * @param completion how the run ended; {@link RunCompletion#none()} only releases
	 * @return {@code true} when the completion was recorded (or had nothing to record, a
	 * later run under the same lease token having started), {@code false} when the run
	 * was superseded: another claim has taken the job since, and the completion was not
	 * recorded
	 * @since 0.1.0
	 */
	default boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		release(lease, lockAtLeastFor, completion);
		return true;
	}

	/**
	 * Start another run under a lease this node still holds (a recovery attempt or a
	 * catch-up, one after the other): atomically, if the lease still carries its token
	 * and has not expired, raise the fencing token by one and make {@code slot},
	 * {@code attempt}, {@link RunState#RUNNING} the row's current run. The last claimed
	 * slot becomes {@code slot} when that is later. Starting the run ends the row's
	 * previous run under this lease: a {@link #completeRun completion} of that previous
	 * run, by its own fencing token, then records nothing more.
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
	 * would take over now, or, for a run still recorded as running, would mark or take
	 * over once the recovery grace has passed. One round trip for all jobs where the
	 * store allows.
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
	 * Return the cluster-wide controls (pause and resume, run-now requests, cron
	 * overrides) this store keeps, when it supports them. A backend that returns them
	 * checks a job's pause in {@link #tryAcquire}, atomically with the claim.
	 * @return the controls, or empty when the store does not support them
	 */
	default Optional<JobControls> controls() {
		return Optional.empty();
	}

	/**
	 * Return what this store offers for preferred-node routing (the live nodes, and which
	 * jobs were claimed for a slot), when it supports it. Without it every node claims
	 * every job at its fire time.
	 * @return the presence support, or empty when the store does not offer it
	 * @since 0.1.0
	 */
	default Optional<NodePresence> presence() {
		return Optional.empty();
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
