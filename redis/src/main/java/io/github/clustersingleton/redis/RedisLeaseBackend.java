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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

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
import io.github.clustersingleton.StoreClockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * {@link LeaseBackend} that keeps leases in Redis, up to three keys per job:
 * <ul>
 * <li>{@code {<prefix>:<name>}:lease}, a hash ({@code owner}, {@code token},
 * {@code acquired_at}) that exists while the lease is held and expires by itself at the
 * end of its TTL, judged by the Redis server's clock;</li>
 * <li>{@code {<prefix>:<name>}:meta}, a hash ({@code fence}, {@code last_slot}) that
 * never expires: the job's last fencing token and last claimed cron slot (epoch
 * milliseconds); under a recovery or misfire policy also the job's current run
 * ({@code run_slot}, {@code attempt}, {@code run_state}, and {@code retry_at} for a
 * failed run, times in epoch milliseconds);</li>
 * <li>{@code {<prefix>:<name>}:runs}, the job's {@link #runLedger() run ledger}: a sorted
 * set of runs, scored by fencing token.</li>
 * </ul>
 * The hash tag {@code {<prefix>:<name>}} puts all keys of a job on one Redis Cluster
 * slot, so every script about one job touches a single slot. All changes are made by the
 * {@link RedisLeaseScript Lua scripts}, each atomic and one round trip: acquire (first
 * and recovery claims), start-run, renew (all leases this node holds in one call),
 * release, find-pending (all given jobs in one call), describe, force-release and the
 * ledger's scripts. How the scripts reach Redis is the {@link RedisScriptExecutor}'s
 * business (Redisson or Spring Data Redis).
 * <p>
 * In a Redis Cluster, the keys of several jobs live on different slots and one script
 * call cannot reach them all: the first call over several jobs (a renewal,
 * {@link #findPending}, {@link RunLedger#lastSuccess}) answered with {@code CROSSSLOT}
 * switches this backend to one call per slot.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class RedisLeaseBackend implements LeaseBackend {

	/**
	 * The default prefix of the keys.
	 */
	public static final String DEFAULT_KEY_PREFIX = "cluster-singleton";

	/**
	 * The longest job name this backend accepts (as for the other backends).
	 */
	public static final int MAX_JOB_NAME_LENGTH = 200;

	/**
	 * The longest wait for replicas by default, see {@link #setMinReplicas}.
	 */
	public static final Duration DEFAULT_MAX_REPLICA_WAIT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(RedisLeaseBackend.class);

	private final RedisScriptExecutor executor;

	private final RedisKeys keys;

	private final ClusterSlotGrouping grouping;

	private final ReplicaWait replicaWait;

	private final RedisRunLedger runLedger;

	private final StoreTimeRelay storeTime = new StoreTimeRelay();

	private final RedisJobControls controls;

	private final RedisNodePresence presence;

	private final RedisClaims claims;

	/**
	 * Create a new instance with the {@link #DEFAULT_KEY_PREFIX default key prefix}.
	 * @param executor how the scripts reach Redis
	 */
	public RedisLeaseBackend(RedisScriptExecutor executor) {
		this(executor, DEFAULT_KEY_PREFIX);
	}

	/**
	 * Create a new instance.
	 * @param executor how the scripts reach Redis
	 * @param keyPrefix the prefix of every key, without braces
	 * @throws IllegalArgumentException when the prefix is empty or has a brace
	 */
	public RedisLeaseBackend(RedisScriptExecutor executor, String keyPrefix) {
		Assert.notNull(executor, "'executor' must not be null");
		this.keys = new RedisKeys(keyPrefix);
		this.executor = executor;
		this.grouping = new ClusterSlotGrouping(this.keys);
		this.replicaWait = new ReplicaWait(executor, this.keys);
		this.runLedger = new RedisRunLedger(executor, this.keys, this.grouping);
		this.controls = new RedisJobControls(executor, this.keys, this.grouping);
		this.presence = new RedisNodePresence(executor, this.keys, this.grouping);
		this.claims = new RedisClaims(executor, this.keys, this.grouping, this.replicaWait, this.storeTime,
				this.controls);
	}

	@Override
	public String id() {
		return "redis";
	}

	/**
	 * Return the prefix of every key.
	 * @return the key prefix
	 */
	public String getKeyPrefix() {
		return this.keys.prefix();
	}

	/**
	 * Return how the scripts reach Redis.
	 * @return the executor
	 */
	public RedisScriptExecutor getExecutor() {
		return this.executor;
	}

	/**
	 * Make every write that grants or extends a lease or raises a fencing token (an
	 * acquisition, {@link #startRun}, a renewal), and every completion that records how a
	 * run ended ({@link #completeRun}), wait ({@code WAIT}) until {@code minReplicas}
	 * replicas of the master acknowledged it. A grant that is not acknowledged in time is
	 * released and fails with an exception (the acquisition's outcome is {@code error});
	 * a renewal that is not acknowledged fails as if Redis had not answered, so the
	 * lease's local deadline only moves with acknowledged renewals; a completion that is
	 * not acknowledged fails the same way, and is sent again. The wait is at most a
	 * quarter of the lease TTL and at most {@code maxWait}.
	 * @param minReplicas the number of replicas, 0 (the default) to wait for none
	 * @param maxWait the longest wait
	 * @since 0.1.0
	 */
	public void setMinReplicas(int minReplicas, Duration maxWait) {
		Assert.isTrue(minReplicas >= 0, "'minReplicas' must not be negative");
		Assert.isTrue(maxWait != null && !maxWait.isNegative() && !maxWait.isZero(), "'maxWait' must be positive");
		this.replicaWait.set(minReplicas, maxWait);
	}

	/**
	 * Return the number of replicas every grant waits for.
	 * @return the number of replicas, 0 for none
	 * @since 0.1.0
	 */
	public int getMinReplicas() {
		return this.replicaWait.minReplicas();
	}

	/**
	 * Return the key of a job's lease hash, {@code {<prefix>:<name>}:lease}. The key
	 * layout is fixed (only the prefix can be set): every node of a cluster, whatever its
	 * version, must find a job's lease under the same key, so these methods are final.
	 * @param jobName the job name
	 * @return the key
	 */
	public final String leaseKey(String jobName) {
		return this.keys.lease(jobName);
	}

	/**
	 * Return the key of a job's meta hash, {@code {<prefix>:<name>}:meta}.
	 * @param jobName the job name
	 * @return the key
	 */
	public final String metaKey(String jobName) {
		return this.keys.meta(jobName);
	}

	/**
	 * Return the key of a job's run ledger, {@code {<prefix>:<name>}:runs}.
	 * @param jobName the job name
	 * @return the key
	 */
	public final String runsKey(String jobName) {
		return this.keys.runs(jobName);
	}

	/**
	 * Load the scripts into Redis's script cache, and warn once when the server persists
	 * nothing or may evict keys. An unreachable server is logged, not thrown: runs are
	 * skipped until it answers, and the scripts are loaded on first use.
	 */
	@Override
	public void initialize() {
		try {
			for (RedisLeaseScript script : RedisLeaseScript.values()) {
				this.executor.load(script);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton could not reach Redis (" + this.executor + ") to load its lease scripts; "
					+ "runs are skipped until it answers: " + ex);
			return;
		}
		RedisServerChecks.warnAboutPersistenceAndEviction(this.executor);
		// asked here, once, rather than on a trigger's thread
		this.executor.executesTogether();
	}

	/**
	 * Check that a job name fits the key layout: at most {@value #MAX_JOB_NAME_LENGTH}
	 * characters and no braces, which would move the end of the key's hash tag.
	 */
	@Override
	public void validateJobName(String jobName) {
		this.keys.validateJobName(jobName, MAX_JOB_NAME_LENGTH);
	}

	/**
	 * Claim with one {@code acquire.lua} call, which refuses the claim of a paused job
	 * (see {@link #controls()}). Outside a Redis Cluster the call also reads the pause of
	 * every job; the first claim answered with {@code CROSSSLOT} (a Redis Cluster, where
	 * that key lives on another slot) is sent again without it, and so are all later
	 * ones.
	 */
	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		Assert.notNull(request, "'request' must not be null");
		return this.claims.claim(request);
	}

	/**
	 * Send the claims' {@code acquire.lua} calls in one pipeline, each claim decided by
	 * its own script run, as {@link #tryAcquire} decides it. One after another instead on
	 * a Redis Cluster, on a quorum, and when claims wait for replicas
	 * ({@code cluster-singleton.redis.min-replicas}).
	 */
	@Override
	public List<AcquireResult> tryAcquireAll(List<LeaseRequest> requests) {
		Assert.notNull(requests, "'requests' must not be null");
		if (requests.size() < 2 || !acquiresTogether()) {
			return LeaseBackend.super.tryAcquireAll(requests);
		}
		return this.claims.claimTogether(requests);
	}

	/**
	 * Whether claims go in one pipeline: on one Redis server (not a Redis Cluster)
	 * through a client that pipelines, without waiting for replicas.
	 */
	@Override
	public boolean acquiresTogether() {
		return this.claims.together();
	}

	@Override
	public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		boolean withPauseAll = !this.grouping.perSlot();
		try {
			return startRun(lease, slot, attempt, withPauseAll);
		}
		catch (RuntimeException ex) {
			if (!withPauseAll || !RedisErrors.isCrossSlot(ex)) {
				throw ex;
			}
			// refused before the script ran: nothing was written
			this.grouping.crossSlot();
			return startRun(lease, slot, attempt, false);
		}
	}

	private OptionalLong startRun(HeldLease lease, Instant slot, int attempt, boolean withPauseAll) {
		return this.replicaWait
			.execute(new StartRunCall(lease.jobName(), lease.leaseToken(), slot, attempt, withPauseAll), null)
			.reply()
			.fence();
	}

	/**
	 * Find the jobs with pending work in one call of the find-pending script; in a Redis
	 * Cluster, one call per hash slot of the jobs. A job whose policy is not active is
	 * not sent at all. In a Redis Cluster with a node that does not answer, the jobs of
	 * the nodes that answered are returned.
	 */
	@Override
	public Set<String> findPending(Map<String, ClaimPolicy> policies) {
		Assert.notNull(policies, "'policies' must not be null");
		List<String> jobNames = new ArrayList<>();
		policies.forEach((jobName, policy) -> {
			if (policy.isActive()) {
				jobNames.add(jobName);
			}
		});
		Set<String> pending = new HashSet<>();
		this.grouping.forEachGroup(jobNames,
				(group) -> pending.addAll(new FindPendingCall(group, policies).execute(this.executor, this.keys)),
				true);
		return pending;
	}

	/**
	 * Return the controls kept next to the leases; see {@link RedisJobControls} for the
	 * key layout and for what is atomic, in particular the pause of every job in a Redis
	 * Cluster.
	 */
	@Override
	public Optional<JobControls> controls() {
		return Optional.of(this.controls);
	}

	/**
	 * Return the presence entries, kept in the sorted set {@code <prefix>:nodes}.
	 */
	@Override
	public Optional<NodePresence> presence() {
		return Optional.of(this.presence);
	}

	@Override
	public RunLedger runLedger() {
		return this.runLedger;
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		this.storeTime.set(observer);
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		Assert.notNull(leases, "'leases' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		if (leases.isEmpty()) {
			return Set.of();
		}
		// One entry per lease token: a token renewed twice in one call is fine, but the
		// reply is mapped back by position
		List<HeldLease> distinct = HeldLease.distinctByToken(leases);
		long ttlMillis = ttlMillis(ttl);
		return this.grouping.renew(distinct, (group) -> renewInChunks(group, ttlMillis, ttl));
	}

	private Set<String> renewInChunks(List<HeldLease> leases, long ttlMillis, Duration ttl) {
		Set<String> renewed = new HashSet<>();
		for (List<HeldLease> chunk : ClusterSlotGrouping.chunks(leases)) {
			ReplicaWait.Replicated<RenewCall.Reply> replicated = this.replicaWait
				.execute(new RenewCall(chunk, ttlMillis), ttl);
			RenewCall.Reply reply = replicated.reply();
			if (!replicated.enough() && reply.count() > 0) {
				throw this.replicaWait.renewalNotReplicated(reply.count(), replicated);
			}
			this.storeTime.observe(reply.storeTime());
			renewed.addAll(reply.renewed());
		}
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

	/**
	 * Record how a run ended by the run's token, which the meta hash keeps
	 * ({@code run_token}) after the lease hash expired, and by its fencing token: only
	 * while the meta hash's {@code fence} is still the run's (a later run started under
	 * the same token has already ended it); and release the lease if it still carries the
	 * token; one {@code release.lua} call.
	 * <p>
	 * With {@link #setMinReplicas min replicas}, a completion that records how a run
	 * ended is followed by {@code WAIT}, as a grant is: a completion that too few
	 * replicas acknowledged in time is not reported as recorded but fails with an
	 * exception, so that the caller tries it again (a failover now would bring back the
	 * run as still running, and a recovery policy would run it again). A plain release
	 * waits for no replica.
	 * @throws IllegalStateException when too few replicas acknowledged the completion
	 */
	@Override
	public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lockAtLeastFor != null && !lockAtLeastFor.isNegative(), "'lockAtLeastFor' must not be negative");
		Assert.notNull(completion, "'completion' must not be null");
		ReleaseCall call = ReleaseCall.of(lease, lockAtLeastFor, completion);
		ReleaseCall.Reply reply;
		if (completion.state() != null) {
			ReplicaWait.Replicated<ReleaseCall.Reply> replicated = this.replicaWait.execute(call, null);
			reply = replicated.reply();
			if (!replicated.enough() && reply.recorded()) {
				throw this.replicaWait.completionNotReplicated(lease, replicated);
			}
		}
		else {
			reply = call.execute(this.executor, this.keys);
		}
		if (logger.isDebugEnabled() && reply.released() == 0) {
			logger.debug("cluster-singleton did not release the lease of job '" + lease.jobName()
					+ "': it no longer carries this run's token");
		}
		return reply.recorded();
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		return new DescribeCall(jobName).execute(this.executor, this.keys);
	}

	@Override
	public boolean forceRelease(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		return new ForceReleaseCall(jobName).execute(this.executor, this.keys);
	}

	@Override
	public void probe() {
		this.executor.ping(this.keys.probe());
	}

	/**
	 * A TTL in whole milliseconds, at least one, as the scripts take it.
	 */
	static long ttlMillis(Duration ttl) {
		return Math.max(1, ttl.toMillis());
	}

	@Override
	public String toString() {
		return "RedisLeaseBackend [keyPrefix=" + this.keys.prefix() + ", executor=" + this.executor + "]";
	}

}
