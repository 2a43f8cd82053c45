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

package io.github.clustersingleton.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.StoreClockObserver;
import io.github.clustersingleton.redis.MemberCalls.Answer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * {@link LeaseBackend} that keeps each lease on a quorum of independent Redis servers
 * (the members, 3 or 5, no replication between them), in the manner of Redlock, with
 * fencing tokens and cron slots that keep their guarantees when members fail. Each member
 * holds the same keys as with {@link RedisLeaseBackend} ({@code :lease} and {@code :meta}
 * per job).
 * <p>
 * An acquisition has two phases, each one parallel round trip to every member:
 * <ol>
 * <li>{@code quorum-grant.lua}: a member without a live lease of the job grants it (with
 * the TTL, judged by its own clock) and every member answers with the job's fence and
 * last slot as it knows them;</li>
 * <li>when a majority granted, the acquirer picks the fence {@code max + 1} over all
 * answers (and refuses a slot at or before the largest last slot of all answers), and
 * {@code quorum-commit.lua} raises the fence and last slot of every member to those by
 * {@code max()}; a member that still holds the lease confirms.</li>
 * </ol>
 * Each member keeps the lease for the requested TTL plus a clock-drift allowance (1% of
 * the TTL plus 2ms), so that the lease's validity, the members' time to live minus the
 * time both phases took minus the allowance, ends no earlier than the TTL after the
 * request was sent: the deadline the holder counts with. The lease is acquired when a
 * majority confirmed phase 2 within that validity, that is within the TTL; otherwise the
 * lease is released on every member that may have granted it. Renewals and releases go to
 * all members; a renewal extends the lease on each member by the TTL plus the allowance,
 * and counts when a majority renewed within the TTL. A call that fewer than a majority of
 * the members answered throws.
 * <p>
 * Recovery and misfire policies, and the run ledger, are not offered on a quorum:
 * {@link #tryAcquire} refuses a request with an active policy.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class RedisQuorumLeaseBackend implements LeaseBackend, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisQuorumLeaseBackend.class);

	/**
	 * How many times an acquisition is tried when the members split between contenders.
	 */
	static final int MAX_SPLIT_ATTEMPTS = 5;

	/**
	 * The longest random pause before another try after a split, in milliseconds.
	 */
	static final long SPLIT_BACKOFF_MILLIS = 50;

	private final List<RedisScriptExecutor> executors;

	private final List<RedisLeaseBackend> members;

	private final RedisKeys keys;

	private final int majority;

	private final MemberCalls calls;

	private final StoreTimeRelay storeTime = new StoreTimeRelay();

	private final List<AutoCloseable> resources = new ArrayList<>();

	private volatile Runnable betweenPhases = () -> {
	};

	/**
	 * Create a new instance.
	 * @param executors how the scripts reach each member: 3 or 5 (an odd number, at least
	 * 3) independent Redis servers
	 * @param keyPrefix the prefix of every key, without braces
	 * @throws IllegalArgumentException when the number of members is even or below 3, or
	 * the prefix is not valid
	 */
	public RedisQuorumLeaseBackend(List<RedisScriptExecutor> executors, String keyPrefix) {
		Assert.notNull(executors, "'executors' must not be null");
		Assert.isTrue(executors.size() >= 3 && executors.size() % 2 == 1,
				() -> "A Redis quorum needs an odd number of at least 3 members (3 or 5), not " + executors.size());
		this.executors = List.copyOf(executors);
		List<RedisLeaseBackend> members = new ArrayList<>();
		for (RedisScriptExecutor executor : executors) {
			members.add(new RedisLeaseBackend(executor, keyPrefix));
		}
		this.members = List.copyOf(members);
		this.keys = new RedisKeys(keyPrefix);
		this.majority = executors.size() / 2 + 1;
		this.calls = new MemberCalls(this.executors, this.majority);
	}

	@Override
	public String id() {
		return "redis";
	}

	/**
	 * Return the number of members.
	 * @return the number of members
	 */
	public int getMemberCount() {
		return this.members.size();
	}

	/**
	 * Return how many members make a majority.
	 * @return the majority
	 */
	public int getMajority() {
		return this.majority;
	}

	/**
	 * Set code to run between the two phases of every acquisition (tests use it to fail
	 * members at the worst moment).
	 * @param hook the code to run
	 */
	void setBetweenPhases(Runnable hook) {
		this.betweenPhases = hook;
	}

	/**
	 * Load the scripts into every member and warn about members that may lose
	 * acknowledged writes when they restart. A member that does not answer is logged.
	 */
	@Override
	public void initialize() {
		for (int i = 0; i < this.members.size(); i++) {
			this.members.get(i).initialize();
			RedisServerChecks.warnUnlessEveryWriteIsSynced(this.executors.get(i));
		}
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		this.storeTime.set(observer);
	}

	/** For tests on a loaded machine: see {@link MemberCalls#setMinimumGrace}. */
	void setMinimumGrace(Duration minimumGrace) {
		this.calls.setMinimumGrace(minimumGrace);
	}

	@Override
	public void validateJobName(String jobName) {
		this.members.get(0).validateJobName(jobName);
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		Assert.notNull(request, "'request' must not be null");
		if (request.recovery() || request.policy().isActive()) {
			throw new UnsupportedOperationException("The Redis quorum lease backend does not support recovery or "
					+ "misfire policies (job '" + request.jobName() + "')");
		}
		// nodes whose triggers fire at the same instant can split the members between
		// them so that none has a majority: each gave its grants back; try again after
		// a random pause, as Redlock does, a few times
		for (int attempt = 1;; attempt++) {
			try {
				return tryAcquireOnce(request);
			}
			catch (SplitVote split) {
				if (attempt >= MAX_SPLIT_ATTEMPTS) {
					return AcquireResult.held(null);
				}
				try {
					Thread.sleep(ThreadLocalRandom.current().nextLong(1, SPLIT_BACKOFF_MILLIS + 1));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return AcquireResult.held(null);
				}
			}
		}
	}

	private AcquireResult tryAcquireOnce(LeaseRequest request) {
		long started = System.nanoTime();
		long ttlMillis = Math.max(1, request.ttl().toMillis());
		long validityNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
		String jobName = request.jobName();
		Instant slot = request.slot();
		QuorumGrantCall grant = new QuorumGrantCall(request, memberTtlMillis(ttlMillis));
		List<Answer<List<Object>>> grants = this.calls.onAll((i) -> execute(i, grant), started + validityNanos);
		QuorumTally tally = QuorumTally.of(grant, grants);
		Instant storeTime = tally.storeTime();
		Instant maxLastSlot = tally.maxLastSlot();
		if (tally.granted() < this.majority) {
			releaseGrants(request, tally.refused());
			if (tally.answered() < this.majority) {
				throw this.calls.unavailable("acquire the lease of job '" + jobName + "'", tally.answered(), grants);
			}
			this.storeTime.observe(storeTime);
			String holder = tally.holder();
			AcquireResult result = AcquireResult.notAcquired(request, holder, maxLastSlot, storeTime);
			return (result.outcome() == AcquireResult.Outcome.HELD && holder == null) ? AcquireResult.held(null)
					: result;
		}
		if (slot != null && maxLastSlot != null && !slot.isAfter(maxLastSlot)) {
			// a majority granted, but a member that did not (or a minority that lagged)
			// knows a later claim of this slot or a later one
			releaseGrants(request, tally.refused());
			this.storeTime.observe(storeTime);
			return AcquireResult.slotDone(maxLastSlot);
		}
		long fence = tally.maxFence() + 1;
		this.betweenPhases.run();
		QuorumCommitCall commit = new QuorumCommitCall(jobName, request.leaseToken(), fence, slot);
		List<Answer<List<Object>>> commits = this.calls.onAll((i) -> execute(i, commit), started + validityNanos);
		int confirmed = 0;
		int committedAnswers = 0;
		for (Answer<List<Object>> answer : commits) {
			if (answer.failure() == null) {
				committedAnswers++;
				if (commit.decode(answer.value())) {
					confirmed++;
				}
			}
		}
		boolean inTime = System.nanoTime() - started < validityNanos;
		if (confirmed >= this.majority && inTime) {
			this.storeTime.observe(storeTime);
			return AcquireResult.acquired(fence);
		}
		releaseGrants(request, tally.refused());
		if (!inTime) {
			throw new RedisQuorumException("cluster-singleton could not acquire the lease of job '" + jobName
					+ "' on a Redis quorum within its validity (the lease TTL, " + ttlMillis + "ms): the acquisition "
					+ "took " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + "ms; released it");
		}
		if (committedAnswers < this.majority) {
			throw this.calls.unavailable("confirm the lease of job '" + jobName + "'", committedAnswers, commits);
		}
		return AcquireResult.held(null);
	}

	/**
	 * Run a call on one member, and leave its reply to decode in the caller's thread.
	 */
	private List<Object> execute(int member, RedisScriptCall<?> call) {
		return this.executors.get(member).execute(call.script(), call.keys(this.keys), call.args());
	}

	/**
	 * Release the lease of an acquisition that failed on every member that may hold it
	 * (all but those that refused); a failure is logged, the lease expires by itself.
	 */
	private void releaseGrants(LeaseRequest request, Set<Integer> refused) {
		HeldLease lease = HeldLease.of(request, 0);
		List<Integer> targets = new ArrayList<>();
		for (int i = 0; i < this.members.size(); i++) {
			if (!refused.contains(i)) {
				targets.add(i);
			}
		}
		if (targets.isEmpty()) {
			return;
		}
		List<Answer<Boolean>> answers = this.calls.onMembers(targets, (i) -> {
			this.members.get(i).release(lease, Duration.ZERO);
			return true;
		}, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(1, request.ttl().toMillis())));
		for (Answer<Boolean> answer : answers) {
			if (answer.failure() != null && logger.isDebugEnabled()) {
				logger.debug(
						"cluster-singleton could not release a failed quorum acquisition of job '" + request.jobName()
								+ "' on member " + this.executors.get(answer.member()) + "; it expires there by itself",
						answer.failure());
			}
		}
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		Assert.notNull(leases, "'leases' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		if (leases.isEmpty()) {
			return Set.of();
		}
		long started = System.nanoTime();
		long ttlMillis = Math.max(1, ttl.toMillis());
		long validityNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
		Duration memberTtl = Duration.ofMillis(memberTtlMillis(ttlMillis));
		List<HeldLease> distinct = HeldLease.distinctByToken(leases);
		List<Answer<Set<String>>> answers = this.calls.onAll((i) -> this.members.get(i).renew(distinct, memberTtl),
				started + validityNanos);
		Map<String, Integer> counts = new HashMap<>();
		for (Answer<Set<String>> answer : answers) {
			if (answer.failure() == null) {
				answer.value().forEach((token) -> counts.merge(token, 1, Integer::sum));
			}
		}
		this.calls.requireMajority("renew " + distinct.size() + " lease(s)", answers);
		if (System.nanoTime() - started >= validityNanos) {
			throw new RedisQuorumException("cluster-singleton could not renew its leases on a Redis quorum within "
					+ "their validity (the lease TTL, " + ttlMillis + "ms)");
		}
		Set<String> renewed = new HashSet<>();
		counts.forEach((token, count) -> {
			if (count >= this.majority) {
				renewed.add(token);
			}
		});
		return renewed;
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lockAtLeastFor != null && !lockAtLeastFor.isNegative(), "'lockAtLeastFor' must not be negative");
		List<Answer<Boolean>> answers = this.calls.onAll((i) -> {
			this.members.get(i).release(lease, lockAtLeastFor);
			return true;
		}, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
		this.calls.requireMajority("release the lease of job '" + lease.jobName() + "'", answers);
	}

	/**
	 * Release the lease; the completion is not recorded: a quorum keeps no run state.
	 */
	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		release(lease, lockAtLeastFor);
	}

	/**
	 * Release the lease; the completion is not recorded: a quorum keeps no run state.
	 */
	@Override
	public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		release(lease, lockAtLeastFor);
		return true;
	}

	/**
	 * Describe a job from the answers of a majority: the largest fence and last slot any
	 * member knows, and the holder whose lease a majority holds (none otherwise).
	 */
	/**
	 * Return no controls: a pause, a run-now request or a cron override would have to be
	 * agreed by a majority of independent servers and checked by every member's claim,
	 * which this backend does not do. Pausing, resuming, running now and rescheduling are
	 * refused with this backend.
	 * @return empty
	 */
	@Override
	public Optional<JobControls> controls() {
		return Optional.empty();
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		List<Answer<Optional<LeaseInfo>>> answers = this.calls.onAll((i) -> this.members.get(i).describe(jobName),
				System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
		this.calls.requireMajority("describe job '" + jobName + "'", answers);
		return QuorumTally.describe(jobName, answers, this.majority);
	}

	@Override
	public boolean forceRelease(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		List<Answer<Boolean>> answers = this.calls.onAll((i) -> this.members.get(i).forceRelease(jobName),
				System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
		this.calls.requireMajority("force-release job '" + jobName + "'", answers);
		return answers.stream().anyMatch((answer) -> answer.failure() == null && Boolean.TRUE.equals(answer.value()));
	}

	/**
	 * Check that a majority of the members answer.
	 */
	@Override
	public void probe() {
		List<Answer<Boolean>> answers = this.calls.onAll((i) -> {
			this.members.get(i).probe();
			return true;
		}, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
		this.calls.requireMajority("probe", answers);
	}

	/**
	 * Register a resource to close with this backend (the members' clients).
	 * @param resource the resource
	 */
	public void closeWith(AutoCloseable resource) {
		Assert.notNull(resource, "'resource' must not be null");
		synchronized (this.resources) {
			this.resources.add(resource);
		}
	}

	/**
	 * Wait until every call sent to a member so far has ended, also those that a call
	 * answered by a majority did not wait for. For tests that count one member's calls.
	 * @param timeout how long to wait for each member
	 * @throws Exception when a member's calls did not end in time
	 */
	void awaitPendingCalls(Duration timeout) throws Exception {
		this.calls.awaitPendingCalls(timeout);
	}

	/**
	 * Stop the threads that call the members, and close the registered resources.
	 */
	@Override
	public void close() {
		this.calls.shutdownNow();
		synchronized (this.resources) {
			for (AutoCloseable resource : this.resources) {
				try {
					resource.close();
				}
				catch (Exception ex) {
					logger.debug("cluster-singleton could not close " + resource, ex);
				}
			}
			this.resources.clear();
		}
	}

	/**
	 * The clock-drift allowance of a lease: 1% of its TTL plus 2ms.
	 */
	static long drift(long ttlMillis) {
		return ttlMillis / 100 + 2;
	}

	/**
	 * How long each member keeps a lease granted or renewed for {@code ttlMillis}: the
	 * TTL plus the {@link #drift clock-drift allowance}. The holder counts on the lease
	 * for the TTL from when it sent the request, so its validity is the members' time to
	 * live minus the time the round took minus the allowance, and a member whose clock
	 * runs fast by up to the allowance still holds the lease until the holder's deadline.
	 */
	static long memberTtlMillis(long ttlMillis) {
		return ttlMillis + drift(ttlMillis);
	}

	@Override
	public String toString() {
		return "RedisQuorumLeaseBackend [keyPrefix=" + this.keys.prefix() + ", members=" + this.executors + "]";
	}

	/**
	 * An acquisition that no holder refused with a majority and that got some grants,
	 * given back: worth another try.
	 */
	private static final class SplitVote extends RuntimeException {

		private static final long serialVersionUID = 1L;

		SplitVote() {
			super(null, null, false, false);
		}

	}

}
