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

package io.github.clustersingleton.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.StoreClockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link LeaseBackend} that also holds ShedLock's lock of each job for as long as it
 * holds the job's lease, so that nodes still on ShedLock and nodes on cluster-singleton
 * exclude each other while an application moves from one to the other.
 * <p>
 * The lease is taken first, then ShedLock's lock: among cluster-singleton nodes the lease
 * already decides who may run, so only its holder ever competes with the ShedLock nodes
 * for ShedLock's row. A row that an earlier acquisition of the same job on a
 * cluster-singleton node left taken (lower fencing token: its lease is gone) is taken
 * over; when the row is held otherwise (an old pod), the lease is given back at once and
 * the acquisition reports {@link AcquireResult.Outcome#HELD}. ShedLock's lock is released
 * before the lease, so that the next holder of the lease never finds it still taken by
 * the run that just ended. {@code lock_until} is set to now plus the job's lockAtMostFor:
 * ShedLock renews nothing, and cluster-singleton interrupts a run at its lockAtMostFor.
 * Every other operation goes to the wrapped backend unchanged, and a lease that is not a
 * job's (the leader lease) takes no ShedLock lock.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ShedLockLeaseBackend implements LeaseBackend {

	private static final Log logger = LogFactory.getLog(ShedLockLeaseBackend.class);

	private static final int MAX_LOCKED_BY_LENGTH = 255;

	/**
	 * Room for {@code #cs-<job hash>-<fencing token>-} with a fencing token of up to 19
	 * digits, plus a few characters of the owner.
	 */
	private static final int MIN_LOCKED_BY_LENGTH = 40;

	/**
	 * The end of the {@code locked_by} that a cluster-singleton node writes: job hash,
	 * fencing token, lease token.
	 */
	private static final Pattern MARKER = Pattern.compile("#cs-([0-9a-f]{8})-([0-9]{1,19})-[^#]*$");

	private final LeaseBackend delegate;

	private final ShedLockTable table;

	private final Function<String, String> lockNames;

	private final Function<String, Duration> lockAtMostFor;

	private final @Nullable String leaderLeaseName;

	/**
	 * The ShedLock locks this node holds, by the lease token of the acquisition that took
	 * them.
	 */
	private final Map<String, Lock> locks = new ConcurrentHashMap<>();

	/**
	 * Create the bridge.
	 * @param delegate the lease store
	 * @param table ShedLock's table
	 * @param lockNames the ShedLock lock name of each job name
	 * @param lockAtMostFor the lockAtMostFor of each job name
	 * @param leaderLeaseName the name of the leader lease, which takes no ShedLock lock,
	 * or {@code null} when leader mode is off
	 */
	public ShedLockLeaseBackend(LeaseBackend delegate, ShedLockTable table, Function<String, String> lockNames,
			Function<String, Duration> lockAtMostFor, @Nullable String leaderLeaseName) {
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(table, "'table' must not be null");
		Assert.notNull(lockNames, "'lockNames' must not be null");
		Assert.notNull(lockAtMostFor, "'lockAtMostFor' must not be null");
		this.delegate = delegate;
		this.table = table;
		this.lockNames = lockNames;
		this.lockAtMostFor = lockAtMostFor;
		this.leaderLeaseName = leaderLeaseName;
	}

	/**
	 * Return the wrapped lease store.
	 * @return the lease store
	 */
	public LeaseBackend getDelegate() {
		return this.delegate;
	}

	/**
	 * Return ShedLock's table.
	 * @return the table
	 */
	public ShedLockTable getTable() {
		return this.table;
	}

	@Override
	public String id() {
		return this.delegate.id();
	}

	@Override
	public void initialize() {
		this.delegate.initialize();
		this.table.check();
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		this.delegate.setStoreClockObserver(observer);
	}

	@Override
	public void validateJobName(String jobName) {
		this.delegate.validateJobName(jobName);
		if (jobName.equals(this.leaderLeaseName)) {
			return;
		}
		// a longer name would be cut (MySQL's INSERT IGNORE) or refused by the column,
		// and
		// the lock could never be released by its name
		Integer lockedByLength = this.table.lockedByLength();
		if (lockedByLength != null && lockedByLength < MIN_LOCKED_BY_LENGTH) {
			// the marker (job hash and fencing token) would be cut: releases and
			// takeovers
			// could not find the row
			throw new IllegalArgumentException("Column 'locked_by' of ShedLock table '" + this.table.getTableName()
					+ "' holds " + lockedByLength + " characters; the ShedLock bridge (job '" + jobName
					+ "') needs at least " + MIN_LOCKED_BY_LENGTH + " (ShedLock's DDL has 255)");
		}
		String name = this.lockNames.apply(jobName);
		Integer length = this.table.nameLength();
		if (name.isEmpty() || (length != null && name.length() > length)) {
			throw new IllegalArgumentException("ShedLock lock name '" + name + "' is " + name.length()
					+ " characters long; column 'name' of ShedLock table '" + this.table.getTableName() + "' holds "
					+ length + ". Set cluster-singleton.jobs." + jobName
					+ ".shedlock-name to the name the job has on ShedLock");
		}
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		AcquireResult result = this.delegate.tryAcquire(request);
		if (!result.isAcquired() || request.jobName().equals(this.leaderLeaseName)) {
			return result;
		}
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		String name = this.lockNames.apply(request.jobName());
		String lockedBy = lockedBy(request, result.fencingToken(), lockedByLength());
		boolean locked;
		try {
			locked = lock(name, request.jobName(), result.fencingToken(), lockedBy);
		}
		catch (RuntimeException ex) {
			// unknown whether the row was written: if it was, it expires at lock_until
			releaseLease(lease, RunCompletion.none());
			throw ex;
		}
		if (!locked) {
			releaseLease(lease, unusedClaim(request, result));
			return AcquireResult.held(holder(name));
		}
		this.locks.put(request.leaseToken(), new Lock(name, lockedBy, request.jobName()));
		return result;
	}

	/**
	 * Take ShedLock's lock of a job: a free row (ShedLock's rule), or a row that an
	 * earlier acquisition of the same job on a cluster-singleton node left taken (a run
	 * that crashed or lost its lease, a release that failed, ShedLock's lockAtLeastFor
	 * tail that ends a little after the lease's). Such a row excludes only old pods,
	 * which it goes on doing under its new holder; among cluster-singleton nodes the
	 * lease, which this acquisition holds, already decides. The row is taken over only
	 * from an acquisition with a lower fencing token, whose lease is therefore gone, and
	 * only if its {@code locked_by} is still the one read (compare and set).
	 */
	private boolean lock(String name, String jobName, long fencingToken, String lockedBy) {
		Duration lockAtMostFor = this.lockAtMostFor.apply(jobName);
		if (this.table.lock(name, lockAtMostFor, lockedBy)) {
			return true;
		}
		for (int attempt = 0; attempt < 3; attempt++) {
			String current = this.table.lockedBy(name);
			if (current != null && !supersededBy(current, jobName, fencingToken)) {
				return false;
			}
			if (current != null && this.table.takeOver(name, lockAtMostFor, current, lockedBy)) {
				logger.info("cluster-singleton took over ShedLock lock '" + name + "' of job '" + jobName
						+ "' from an earlier acquisition of the job that no longer holds its lease (" + current + ")");
				return true;
			}
			if (this.table.lock(name, lockAtMostFor, lockedBy)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a {@code locked_by} is the marker of an acquisition of the same job with a
	 * lower fencing token than the given one.
	 */
	static boolean supersededBy(String lockedBy, String jobName, long fencingToken) {
		Matcher marker = MARKER.matcher(lockedBy);
		if (!marker.find() || !marker.group(1).equals(jobHash(jobName))) {
			return false;
		}
		try {
			return Long.parseLong(marker.group(2)) < fencingToken;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	/**
	 * How to give back a claim whose run did not start because ShedLock's lock was held:
	 * a first claim of a slot made that slot's first attempt the row's current run, and
	 * the holder of ShedLock's lock runs the job for that trigger, so the slot counts as
	 * served (a recovery policy would otherwise run it again); any other claim leaves the
	 * row's run as it was, its pending work pending.
	 */
	private static RunCompletion unusedClaim(LeaseRequest request, AcquireResult result) {
		SlotRun run = result.run();
		Instant slot = request.slot();
		if (!request.recovery() && slot != null && run != null && slot.equals(run.slot()) && run.attempt() == 1
				&& run.state() == RunState.RUNNING) {
			return RunCompletion.succeeded();
		}
		return RunCompletion.none();
	}

	private String holder(String name) {
		try {
			String lockedBy = this.table.lockedBy(name);
			return ((lockedBy != null) ? lockedBy : "another node") + " (ShedLock lock '" + name + "')";
		}
		catch (RuntimeException ex) {
			return "another node (ShedLock lock '" + name + "')";
		}
	}

	private void releaseLease(HeldLease lease, RunCompletion completion) {
		try {
			this.delegate.release(lease, Duration.ZERO, completion);
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton could not give back the lease of job '" + lease.jobName()
					+ "' after ShedLock's lock was not taken; it expires with its TTL: " + ex);
		}
	}

	/**
	 * The {@code locked_by} of one acquisition:
	 * {@code <owner>#cs-<job hash>-<fencing token>-<lease token>}, the owner cut so that
	 * the whole fits the column. Unique to the acquisition, so that a release never
	 * touches a lock that a later acquisition took; the job hash and the fencing token
	 * tell a later acquisition of the same job that it may take the row over.
	 */
	static String lockedBy(LeaseRequest request, long fencingToken, int maxLength) {
		String marker = "#cs-" + jobHash(request.jobName()) + "-" + fencingToken + "-" + request.leaseToken();
		if (marker.length() > maxLength) {
			// no room for the lease token: the job hash and the fencing token are unique
			// to the acquisition too
			marker = "#cs-" + jobHash(request.jobName()) + "-" + fencingToken + "-";
		}
		String owner = request.owner();
		int room = maxLength - marker.length();
		return ((owner.length() > room) ? owner.substring(0, Math.max(0, room)) : owner) + marker;
	}

	/**
	 * How long a {@code locked_by} may be: what the column holds (MySQL's INSERT IGNORE
	 * would cut a longer one, and a release, which matches on it, would never find the
	 * row), at most 255.
	 */
	private int lockedByLength() {
		Integer length = this.table.lockedByLength();
		return (length != null) ? Math.min(length, MAX_LOCKED_BY_LENGTH) : MAX_LOCKED_BY_LENGTH;
	}

	static String jobHash(String jobName) {
		return String.format("%08x", jobName.hashCode());
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		// ShedLock has no renewal: lock_until already covers the run's lockAtMostFor
		return this.delegate.renew(leases, ttl);
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor) {
		unlock(lease, lockAtLeastFor);
		this.delegate.release(lease, lockAtLeastFor);
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		unlock(lease, lockAtLeastFor);
		this.delegate.release(lease, lockAtLeastFor, completion);
	}

	@Override
	public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		// ShedLock's lock goes first, once; the store's answer (recorded, superseded, or
		// unknown and tried again) is the wrapped store's own
		unlock(lease, lockAtLeastFor);
		return this.delegate.completeRun(lease, lockAtLeastFor, completion);
	}

	private void unlock(HeldLease lease, Duration lockAtLeastFor) {
		Lock lock = this.locks.remove(lease.leaseToken());
		if (lock == null) {
			return;
		}
		try {
			this.table.unlock(lock.name(), lock.lockedBy(), lockAtLeastFor);
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton could not release ShedLock lock '" + lock.name() + "' of job '"
					+ lease.jobName() + "'; it stays taken until its lock_until (the job's lockAtMostFor after the "
					+ "run started): " + ex);
		}
	}

	@Override
	public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		OptionalLong fence = this.delegate.startRun(lease, slot, attempt);
		Lock lock = this.locks.get(lease.leaseToken());
		if (lock == null) {
			return fence;
		}
		if (fence.isEmpty()) {
			// the lease is gone and nobody releases it: give ShedLock's lock back now
			unlock(lease, Duration.ZERO);
			return fence;
		}
		// another run under the same lease: ShedLock's lock must cover its lockAtMostFor
		// too
		boolean extended;
		try {
			extended = this.table.extend(lock.name(), this.lockAtMostFor.apply(lock.jobName()), lock.lockedBy());
		}
		catch (RuntimeException ex) {
			// the run does not start and the lease expires; ShedLock's lock ends at its
			// lock_until
			this.locks.remove(lease.leaseToken());
			throw ex;
		}
		if (!extended) {
			this.locks.remove(lease.leaseToken());
			logger.warn("cluster-singleton no longer holds ShedLock lock '" + lock.name() + "' of job '"
					+ lease.jobName() + "' (its lock_until passed)");
			return OptionalLong.empty();
		}
		return fence;
	}

	@Override
	public Set<String> findPending(Map<String, ClaimPolicy> policies) {
		return this.delegate.findPending(policies);
	}

	@Override
	public RunLedger runLedger() {
		return this.delegate.runLedger();
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		return this.delegate.describe(jobName);
	}

	@Override
	public boolean forceRelease(String jobName) {
		return this.delegate.forceRelease(jobName);
	}

	@Override
	public void probe() {
		this.delegate.probe();
	}

	@Override
	public String toString() {
		return this.delegate + " with ShedLock table '" + this.table.getTableName() + "'";
	}

	private record Lock(String name, String lockedBy, String jobName) {

	}

}
