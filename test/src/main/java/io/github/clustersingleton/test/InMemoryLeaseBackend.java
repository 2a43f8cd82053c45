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

package io.github.clustersingleton.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.NodePresence;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.StoreClockObserver;

import org.springframework.util.Assert;

/**
 * A {@link LeaseBackend} that keeps its leases in this JVM, for tests: the full contract
 * of a lease store (atomic acquisition, expiry, cron slots, fencing tokens, owner-checked
 * renewal and release, {@code lockAtLeastFor}, claim policies with recovery and catch-up,
 * and a run ledger) without a database. Chosen with
 * {@code cluster-singleton.backend=in-memory}; never chosen by {@code auto}.
 * <p>
 * Every operation is atomic: it runs under one lock and reads the backend's {@link Clock}
 * once, and that reading is the store's time. Expiry, slot checks and the times
 * {@link #describe} shows are judged by it, so a test that gives the backend a clock it
 * can move makes leases expire without waiting. The engine's own deadlines run on the
 * monotonic clock and are not moved by it.
 * <p>
 * Two application contexts (two "nodes") share a store when they are given the same
 * instance as a bean. A test can also make the store {@link #setReachable(boolean)
 * unreachable}, to see what the application does when the real store goes away.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class InMemoryLeaseBackend implements LeaseBackend {

	/**
	 * The backend id, the value of {@code cluster-singleton.backend} that selects it.
	 */
	public static final String ID = "in-memory";

	/**
	 * The longest job name the backend accepts, as the JDBC backend's {@code name}
	 * column.
	 */
	public static final int MAX_JOB_NAME_LENGTH = 200;

	private final Clock clock;

	private final ReentrantLock lock = new ReentrantLock();

	/**
	 * The leases by job name; guarded by {@link #lock}. A job's entry is never removed,
	 * so its fencing token and last slot survive release, expiry and force-release.
	 */
	private final Map<String, StoredLease> leases = new HashMap<>();

	private final RunLedger runLedger = new InMemoryRunLedger(this.lock, this::enter);

	private final AtomicLong operations = new AtomicLong();

	private final InMemoryJobControls controls;

	private final InMemoryNodePresence presence;

	private volatile boolean reachable = true;

	private volatile StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

	/**
	 * Create a backend whose store time is {@link Clock#systemUTC()}.
	 */
	public InMemoryLeaseBackend() {
		this(Clock.systemUTC());
	}

	/**
	 * Create a backend whose store time is read from the given clock.
	 * @param clock the store's clock
	 */
	public InMemoryLeaseBackend(Clock clock) {
		Assert.notNull(clock, "'clock' must not be null");
		this.clock = clock;
		this.controls = new InMemoryJobControls(this.lock, this::enter, clock, this.leases);
		this.presence = new InMemoryNodePresence(this.lock, this::enter, clock, this.leases);
	}

	@Override
	public String id() {
		return ID;
	}

	/**
	 * Return the clock that is this store's time.
	 * @return the clock
	 */
	public Clock getClock() {
		return this.clock;
	}

	/**
	 * Make the store reachable or unreachable. While it is unreachable, every operation
	 * that would reach a real store throws an {@link IllegalStateException}, as a backend
	 * does when its store does not answer; the leases are kept as they are.
	 * @param reachable whether the store answers
	 */
	public void setReachable(boolean reachable) {
		this.reachable = reachable;
	}

	/**
	 * Return whether the store answers.
	 * @return whether the store is reachable
	 * @see #setReachable(boolean)
	 */
	public boolean isReachable() {
		return this.reachable;
	}

	/**
	 * Return how many operations reached the store (or tried to, while it was
	 * unreachable): each acquisition, renewal of at least one lease, release,
	 * description, force-release, probe, start of a run, search for pending work and
	 * ledger operation counts once. The in-memory counterpart of a round trip.
	 * @return the number of operations since the backend was created
	 */
	public long getOperationCount() {
		return this.operations.get();
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		Assert.notNull(observer, "'observer' must not be null");
		this.storeClockObserver = observer;
	}

	@Override
	public void validateJobName(String jobName) {
		if (jobName == null || jobName.isEmpty()) {
			throw new IllegalArgumentException("Job name must not be empty");
		}
		if (jobName.length() > MAX_JOB_NAME_LENGTH) {
			throw new IllegalArgumentException("Job name '" + jobName + "' is " + jobName.length()
					+ " characters long; the in-memory lease backend accepts at most " + MAX_JOB_NAME_LENGTH
					+ ", as the JDBC backend does");
		}
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		Assert.notNull(request, "'request' must not be null");
		validateJobName(request.jobName());
		enter();
		Instant now;
		AcquireResult result;
		this.lock.lock();
		try {
			now = this.clock.instant();
			result = acquire(request, now);
		}
		finally {
			this.lock.unlock();
		}
		this.storeClockObserver.storeTimeObserved(now);
		return result;
	}

	private AcquireResult acquire(LeaseRequest request, Instant now) {
		StoredLease lease = this.leases.get(request.jobName());
		Instant slot = request.slot();
		if (!request.overridesPause() && this.controls.isPausedLocked(request.jobName())) {
			// every claim of a paused job is refused, changing nothing, whatever the
			// claiming node believes; only a claim that overrides the pause (a run-now
			// request's, a leader election's) is not
			return AcquireResult.paused((lease != null) ? lease.lastSlot : null);
		}
		if (request.recovery()) {
			if (lease == null) {
				return AcquireResult.nothingPending();
			}
			if (lease.isLive(now)) {
				return AcquireResult.held(lease.owner);
			}
			if (!lease.isPending(request.policy(), null, false, now)) {
				return AcquireResult.nothingPending();
			}
			if (lease.awaitsGrace(request.policy(), now)) {
				// a run still recorded as running may have ended without its completion
				// reaching the store yet: mark it, and take it over after the grace
				if (lease.recoverAt == null) {
					lease.recoverAt = StoredLease.plus(now, request.recoveryGrace());
				}
				return AcquireResult.nothingPending();
			}
			lease.takeOver(request, now);
			return AcquireResult.acquired(lease.fencingToken, lease.lastSlot, lease.run());
		}
		if (request.slotAheadOf(now)) {
			// the requesting node's clock runs ahead: claim nothing, create nothing
			return AcquireResult.clockSkew((lease != null) ? lease.lastSlot : null);
		}
		if (lease == null) {
			lease = new StoredLease(request, now);
			this.leases.put(request.jobName(), lease);
			// a new row has nothing pending: a claim of a slot starts its first run,
			// whatever the policy
			if (slot != null) {
				lease.startRun(slot, 1);
			}
			if (!request.policy().isActive()) {
				return AcquireResult.acquired(1);
			}
			return AcquireResult.acquired(lease.fencingToken, lease.lastSlot, lease.run());
		}
		boolean slotDone = slot != null && lease.lastSlot != null && !slot.isAfter(lease.lastSlot);
		if (lease.isLive(now) || slotDone) {
			return AcquireResult.notAcquired(request, lease.owner, lease.lastSlot, now);
		}
		ClaimPolicy policy = request.policy();
		// judged on the row as it is before the claim; never pending without an active
		// policy, so that every claim of a slot without one starts the slot's first run
		// (a later claim under an active policy must not take the slots for unserved)
		boolean pending = policy.isActive() && lease.isPending(policy, request.previousSlot(), true, now);
		if (pending && lease.awaitsGrace(policy, now)) {
			// the run may have ended without its completion reaching the store yet: only
			// a
			// recovery claim's mark and the grace after it let a claim take it over
			return AcquireResult.notAcquired(request, lease.owner, lease.lastSlot, now);
		}
		lease.takeOver(request, now);
		if (!pending && slot != null) {
			lease.startRun(slot, 1);
		}
		if (!policy.isActive()) {
			return AcquireResult.acquired(lease.fencingToken);
		}
		return AcquireResult.acquired(lease.fencingToken, lease.lastSlot, lease.run());
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		Assert.notNull(leases, "'leases' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		if (leases.isEmpty()) {
			return Set.of();
		}
		enter();
		Instant now;
		Set<String> renewed = new LinkedHashSet<>();
		this.lock.lock();
		try {
			now = this.clock.instant();
			for (HeldLease held : leases) {
				StoredLease lease = this.leases.get(held.jobName());
				if (lease != null && lease.isHeldBy(held.leaseToken(), now)) {
					lease.expiresAt = StoredLease.plus(now, ttl);
					renewed.add(held.leaseToken());
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		this.storeClockObserver.storeTimeObserved(now);
		return renewed;
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor) {
		release(lease, lockAtLeastFor, RunCompletion.none());
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		completeRun(lease, lockAtLeastFor, completion);
	}

	@Override
	public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lockAtLeastFor != null && !lockAtLeastFor.isNegative(), "'lockAtLeastFor' must not be negative");
		Assert.notNull(completion, "'completion' must not be null");
		enter();
		this.lock.lock();
		try {
			Instant now = this.clock.instant();
			StoredLease stored = this.leases.get(lease.jobName());
			boolean recorded = true;
			if (completion.state() != null) {
				// by the run's token, even after the lease expired, as long as no other
				// claim took the job since
				recorded = stored != null && lease.leaseToken().equals(stored.runToken);
				// only the run with this fencing token: once a later run started under
				// the same token (a startRun whose answer the caller may not have seen),
				// that start has ended this run, and the later one stays as it is
				if (recorded && stored.fencingToken == lease.fencingToken()) {
					stored.runState = completion.state();
					stored.retryAt = (completion.state() == RunState.FAILED)
							? StoredLease.plus(now, completion.retryDelay()) : null;
					stored.recoverAt = null;
				}
			}
			if (stored != null && stored.isHeldBy(lease.leaseToken(), now)) {
				Instant keepUntil = StoredLease.plus(stored.acquiredAt, lockAtLeastFor);
				stored.expiresAt = keepUntil.isAfter(now) ? keepUntil : now;
				// a renewal sent before the release must not extend a kept lease or
				// revive a released one
				stored.leaseToken = null;
			}
			return recorded;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		enter();
		this.lock.lock();
		try {
			Instant now = this.clock.instant();
			StoredLease stored = this.leases.get(lease.jobName());
			if (stored == null || !stored.isHeldBy(lease.leaseToken(), now)) {
				return OptionalLong.empty();
			}
			if (this.controls.refusesStartLocked(lease.jobName(), slot)) {
				// paused since the lease was claimed, or resumed without catch-up after
				// the slot: a sequence holding the lease starts no further slot
				return OptionalLong.empty();
			}
			stored.fencingToken++;
			stored.startRun(slot, attempt);
			if (stored.lastSlot == null || slot.isAfter(stored.lastSlot)) {
				stored.lastSlot = slot;
			}
			return OptionalLong.of(stored.fencingToken);
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public Set<String> findPending(Map<String, ClaimPolicy> policies) {
		Assert.notNull(policies, "'policies' must not be null");
		enter();
		Set<String> pending = new LinkedHashSet<>();
		this.lock.lock();
		try {
			Instant now = this.clock.instant();
			policies.forEach((jobName, policy) -> {
				StoredLease lease = this.leases.get(jobName);
				if (lease != null && !lease.isLive(now) && lease.isPending(policy, null, false, now)) {
					pending.add(jobName);
				}
			});
		}
		finally {
			this.lock.unlock();
		}
		return pending;
	}

	/**
	 * Return the cluster-wide controls, kept in this JVM next to the leases and checked
	 * by every claim under the same lock: every operation on them counts as one operation
	 * of the store.
	 */
	@Override
	public Optional<JobControls> controls() {
		return Optional.of(this.controls);
	}

	/**
	 * Return the run ledger, kept in this JVM next to the leases: every operation on it
	 * counts as one operation of the store; so does every one on the presence entries.
	 */
	@Override
	public RunLedger runLedger() {
		return this.runLedger;
	}

	@Override
	public Optional<NodePresence> presence() {
		return Optional.of(this.presence);
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		Assert.notNull(jobName, "'jobName' must not be null");
		enter();
		this.lock.lock();
		try {
			StoredLease lease = this.leases.get(jobName);
			if (lease == null) {
				return Optional.empty();
			}
			Instant now = this.clock.instant();
			return Optional.of(new LeaseInfo(jobName, lease.owner, lease.isLive(now), lease.acquiredAt, lease.expiresAt,
					lease.fencingToken, lease.lastSlot));
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean forceRelease(String jobName) {
		Assert.notNull(jobName, "'jobName' must not be null");
		enter();
		this.lock.lock();
		try {
			StoredLease lease = this.leases.get(jobName);
			return lease != null && lease.forceRelease(this.clock.instant());
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void probe() {
		enter();
	}

	/**
	 * Count an operation and fail it when the store is unreachable.
	 */
	private void enter() {
		this.operations.incrementAndGet();
		if (!this.reachable) {
			throw new IllegalStateException("In-memory lease store is unreachable (setReachable(false))");
		}
	}

	/**
	 * Move the stored times of a job's lease back by {@code duration} (acquisition,
	 * expiry, recovery mark, retry time), leaving everything else as it is: the contract
	 * tests' store time travel, which lets time pass for one job without moving this
	 * store's clock. Not counted as an operation.
	 * @param jobName the job
	 * @param duration how far back
	 */
	void backdate(String jobName, Duration duration) {
		this.lock.lock();
		try {
			StoredLease lease = this.leases.get(jobName);
			if (lease != null) {
				lease.backdate(duration);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public String toString() {
		return "InMemoryLeaseBackend[clock=" + this.clock + "]";
	}

}
