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

import java.nio.charset.StandardCharsets;
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
import java.util.TreeMap;
import java.util.function.Consumer;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialRenewalException;
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
	 * The most leases one renewal call carries; more are renewed in several calls.
	 */
	static final int MAX_LEASES_PER_CALL = 1000;

	/**
	 * The longest wait for replicas by default, see {@link #setMinReplicas}.
	 */
	public static final Duration DEFAULT_MAX_REPLICA_WAIT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(RedisLeaseBackend.class);

	private final RedisScriptExecutor executor;

	private final String keyPrefix;

	/**
	 * Whether the server refused a call over the keys of several slots once: from then
	 * on, calls over several jobs are grouped by slot.
	 */
	private volatile boolean perSlot;

	private final RedisRunLedger runLedger;

	private volatile StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

	private volatile int minReplicas;

	private volatile Duration maxReplicaWait = DEFAULT_MAX_REPLICA_WAIT;

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
		Assert.isTrue(keyPrefix != null && !keyPrefix.isEmpty(), "'keyPrefix' must not be empty");
		Assert.isTrue(keyPrefix.indexOf('{') < 0 && keyPrefix.indexOf('}') < 0,
				() -> "Redis key prefix '" + keyPrefix + "' must not contain '{' or '}': each key of a job is "
						+ "'{<prefix>:<name>}:lease' or ':meta', and the part in braces is the hash tag that keeps "
						+ "both on one Redis Cluster slot");
		this.executor = executor;
		this.keyPrefix = keyPrefix;
		this.runLedger = new RedisRunLedger(this);
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
		return this.keyPrefix;
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
	 * @since 0.4.0
	 */
	public void setMinReplicas(int minReplicas, Duration maxWait) {
		Assert.isTrue(minReplicas >= 0, "'minReplicas' must not be negative");
		Assert.isTrue(maxWait != null && !maxWait.isNegative() && !maxWait.isZero(), "'maxWait' must be positive");
		this.minReplicas = minReplicas;
		this.maxReplicaWait = maxWait;
	}

	/**
	 * Return the number of replicas every grant waits for.
	 * @return the number of replicas, 0 for none
	 * @since 0.4.0
	 */
	public int getMinReplicas() {
		return this.minReplicas;
	}

	/**
	 * Run a script that grants, extends, fences or records a run's end; with
	 * {@link #setMinReplicas min replicas}, followed by {@code WAIT}.
	 * @return the reply, and whether enough replicas acknowledged it (always with none
	 * required)
	 */
	private Replication execute(RedisLeaseScript script, List<String> keys, List<String> args, @Nullable Duration ttl) {
		int replicas = this.minReplicas;
		if (replicas <= 0) {
			return new Replication(this.executor.execute(script, keys, args), -1, true);
		}
		Duration wait = this.maxReplicaWait;
		if (ttl != null && ttl.dividedBy(4).compareTo(wait) < 0) {
			wait = ttl.dividedBy(4);
		}
		RedisScriptExecutor.Replicated replicated = this.executor.executeAndWait(script, keys, args, replicas,
				wait.isZero() ? Duration.ofMillis(1) : wait);
		return new Replication(replicated.reply(), replicated.acknowledged(), replicated.acknowledged() >= replicas);
	}

	private record Replication(List<Object> reply, long acknowledged, boolean enough) {

	}

	private IllegalStateException notReplicated(String jobName, String what, Replication replication) {
		return new IllegalStateException("cluster-singleton: only " + replication.acknowledged()
				+ " Redis replica(s) acknowledged the " + what + " of job '" + jobName + "' in time, "
				+ "cluster-singleton.redis.min-replicas is " + this.minReplicas + "; released it, not running "
				+ "(a lease only the master knows could be lost in a failover and granted again)");
	}

	/**
	 * Return the key of a job's lease hash, {@code {<prefix>:<name>}:lease}.
	 * @param jobName the job name
	 * @return the key
	 */
	public String leaseKey(String jobName) {
		return hashTag(jobName) + ":lease";
	}

	/**
	 * Return the key of a job's meta hash, {@code {<prefix>:<name>}:meta}.
	 * @param jobName the job name
	 * @return the key
	 */
	public String metaKey(String jobName) {
		return hashTag(jobName) + ":meta";
	}

	/**
	 * Return the key of a job's run ledger, {@code {<prefix>:<name>}:runs}.
	 * @param jobName the job name
	 * @return the key
	 */
	public String runsKey(String jobName) {
		return hashTag(jobName) + ":runs";
	}

	private String hashTag(String jobName) {
		return "{" + this.keyPrefix + ":" + jobName + "}";
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
		try {
			warnWithoutPersistence();
			warnAboutEviction();
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not read the Redis server's settings (CONFIG GET may be "
					+ "disabled on this server); not checking them", ex);
		}
	}

	private void warnWithoutPersistence() {
		Map<String, String> save = this.executor.getConfig("save");
		Map<String, String> appendOnly = this.executor.getConfig("appendonly");
		boolean snapshots = save.values().stream().anyMatch((value) -> value != null && !value.isBlank());
		boolean appendOnlyFile = appendOnly.values().stream().anyMatch("yes"::equalsIgnoreCase);
		if (!save.isEmpty() && !appendOnly.isEmpty() && !snapshots && !appendOnlyFile) {
			logger.warn("cluster-singleton: the Redis server (" + this.executor + ") persists nothing (CONFIG "
					+ "'save' is empty and 'appendonly' is 'no'). After a Redis restart every job's fencing token "
					+ "starts again at 1 and the last claimed cron slots are forgotten: fencing tokens then no "
					+ "longer increase across the restart, and a cron slot claimed just before it may run again. "
					+ "Enable AOF (appendonly yes) if you rely on them; see the Redis page of the "
					+ "cluster-singleton documentation");
		}
	}

	private void warnAboutEviction() {
		Map<String, String> maxMemory = this.executor.getConfig("maxmemory");
		boolean limited = maxMemory.values().stream().anyMatch((value) -> value != null && !value.equals("0"));
		if (!limited) {
			return;
		}
		Map<String, String> policy = this.executor.getConfig("maxmemory-policy");
		boolean evicts = policy.values().stream().anyMatch((value) -> !"noeviction".equalsIgnoreCase(value));
		if (evicts) {
			logger.warn("cluster-singleton: the Redis server (" + this.executor + ") may evict keys when it reaches "
					+ "maxmemory (maxmemory-policy " + policy.values() + "). An evicted lease ends early, so another "
					+ "node may start a job that still runs here; an evicted meta hash restarts the job's fencing "
					+ "tokens and forgets its last cron slot. Use maxmemory-policy noeviction, or a Redis of its own "
					+ "for the leases");
		}
	}

	/**
	 * Check that a job name fits the key layout: at most {@value #MAX_JOB_NAME_LENGTH}
	 * characters and no braces, which would move the end of the key's hash tag.
	 */
	@Override
	public void validateJobName(String jobName) {
		if (jobName == null || jobName.isEmpty()) {
			throw new IllegalArgumentException("Job name must not be empty");
		}
		if (jobName.length() > MAX_JOB_NAME_LENGTH) {
			throw new IllegalArgumentException("Job name '" + jobName + "' is " + jobName.length()
					+ " characters long; the Redis lease backend accepts at most " + MAX_JOB_NAME_LENGTH
					+ " characters");
		}
		if (jobName.indexOf('{') >= 0 || jobName.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Job name '" + jobName + "' contains '{' or '}', which the Redis lease "
					+ "backend cannot use: the job's keys are '" + leaseKey("<name>") + "' and '" + metaKey("<name>")
					+ "', and the part in braces is the Redis Cluster hash tag that keeps both on one slot; a brace "
					+ "in the name would change where that tag ends");
		}
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		Assert.notNull(request, "'request' must not be null");
		Instant slot = request.slot();
		Instant previousSlot = request.previousSlot();
		ClaimPolicy policy = request.policy();
		Replication replication = execute(RedisLeaseScript.ACQUIRE,
				List.of(leaseKey(request.jobName()), metaKey(request.jobName())),
				List.of(request.owner(), request.leaseToken(), Long.toString(ttlMillis(request.ttl())),
						(slot != null) ? Long.toString(slot.toEpochMilli()) : "",
						Long.toString(request.slotTolerance().toMillis()), flag(policy.recoverLost()),
						flag(policy.recoverFailed()), Integer.toString(policy.maxAttempts()), flag(policy.catchUp()),
						(previousSlot != null) ? Long.toString(previousSlot.toEpochMilli()) : "",
						flag(request.recovery()), Long.toString(request.recoveryGrace().toMillis())),
				request.ttl());
		List<Object> reply = replication.reply();
		if (asLong(element(reply, 0)) == 1 && !replication.enough()) {
			releaseUnreplicated(request.jobName(), request.leaseToken());
			throw notReplicated(request.jobName(), "acquisition", replication);
		}
		if (asLong(element(reply, 0)) == 1) {
			observeStoreTime(element(reply, 2));
			long fence = asLong(element(reply, 1));
			if (!policy.isActive()) {
				return AcquireResult.acquired(fence);
			}
			return AcquireResult.acquired(fence, asInstant(element(reply, 3)),
					slotRun(element(reply, 4), element(reply, 5), element(reply, 6)));
		}
		Instant storeTime = observeStoreTime(element(reply, 3));
		String holder = asText(element(reply, 1));
		if (request.recovery()) {
			return (holder != null) ? AcquireResult.held(holder) : AcquireResult.nothingPending();
		}
		return AcquireResult.notAcquired(request, holder, asInstant(element(reply, 2)), storeTime);
	}

	/**
	 * Release a grant that too few replicas acknowledged, best effort: the release is
	 * owner-checked, and a lease left behind expires at the end of its TTL.
	 */
	private void releaseUnreplicated(String jobName, String leaseToken) {
		try {
			this.executor.execute(RedisLeaseScript.RELEASE, List.of(leaseKey(jobName), metaKey(jobName)),
					List.of(leaseToken, "0", "", "0"));
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not release the unreplicated lease of job '" + jobName
					+ "'; it expires at the end of its TTL", ex);
		}
	}

	private static @Nullable SlotRun slotRun(@Nullable Object slot, @Nullable Object attempt, @Nullable Object state) {
		Instant runSlot = asInstant(slot);
		String runState = asText(state);
		if (runSlot == null || runState == null) {
			return null;
		}
		return new SlotRun(runSlot, (int) asLong(attempt), RunState.fromValue(runState));
	}

	private static String flag(boolean value) {
		return value ? "1" : "0";
	}

	@Override
	public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		Replication replication = execute(RedisLeaseScript.START_RUN,
				List.of(leaseKey(lease.jobName()), metaKey(lease.jobName())),
				List.of(lease.leaseToken(), Long.toString(slot.toEpochMilli()), Integer.toString(attempt)), null);
		List<Object> reply = replication.reply();
		if (asLong(element(reply, 0)) == 1 && !replication.enough()) {
			releaseUnreplicated(lease.jobName(), lease.leaseToken());
			throw notReplicated(lease.jobName(), "new run", replication);
		}
		return (asLong(element(reply, 0)) == 1) ? OptionalLong.of(asLong(element(reply, 1))) : OptionalLong.empty();
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
		forEachGroup(jobNames, (group) -> {
			List<String> keys = new ArrayList<>(group.size() * 2);
			List<String> args = new ArrayList<>(group.size() * 4);
			for (String jobName : group) {
				ClaimPolicy policy = policies.get(jobName);
				keys.add(leaseKey(jobName));
				keys.add(metaKey(jobName));
				args.add(flag(policy.recoverLost()));
				args.add(flag(policy.recoverFailed()));
				args.add(Integer.toString(policy.maxAttempts()));
				args.add(flag(policy.catchUp()));
			}
			for (Object position : this.executor.execute(RedisLeaseScript.FIND_PENDING, keys, args)) {
				pending.add(group.get((int) asLong(position) - 1));
			}
		}, true);
		return pending;
	}

	@Override
	public RunLedger runLedger() {
		return this.runLedger;
	}

	/**
	 * Make one call per group of jobs: all jobs in calls of at most
	 * {@value #MAX_LEASES_PER_CALL}, or, in a Redis Cluster, one call per hash slot.
	 * @param jobNames the jobs
	 * @param call the call of one group, which collects its answer
	 * @param partial whether the answers of the slots that answered are enough when
	 * another slot's node fails (else the first failure is thrown)
	 */
	void forEachGroup(List<String> jobNames, Consumer<List<String>> call, boolean partial) {
		if (jobNames.isEmpty()) {
			return;
		}
		if (!this.perSlot) {
			try {
				for (List<String> chunk : chunks(jobNames)) {
					call.accept(chunk);
				}
				return;
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isCrossSlot(ex)) {
					throw ex;
				}
				switchToPerSlot();
			}
		}
		Map<Integer, List<String>> bySlot = new TreeMap<>();
		for (String jobName : jobNames) {
			bySlot.computeIfAbsent(RedisClusterSlots.slot(leaseKey(jobName)), (slot) -> new ArrayList<>()).add(jobName);
		}
		RuntimeException failure = null;
		boolean answered = false;
		for (List<String> group : bySlot.values()) {
			for (List<String> chunk : chunks(group)) {
				try {
					call.accept(chunk);
					answered = true;
				}
				catch (RuntimeException ex) {
					if (failure == null) {
						failure = ex;
					}
					else {
						failure.addSuppressed(ex);
					}
				}
			}
		}
		if (failure != null) {
			if (!partial || !answered) {
				throw failure;
			}
			logger.debug("cluster-singleton: a Redis Cluster node did not answer; using the answers of the others",
					failure);
		}
	}

	private static <T> List<List<T>> chunks(List<T> items) {
		List<List<T>> chunks = new ArrayList<>();
		for (int from = 0; from < items.size(); from += MAX_LEASES_PER_CALL) {
			chunks.add(items.subList(from, Math.min(from + MAX_LEASES_PER_CALL, items.size())));
		}
		return chunks;
	}

	private void switchToPerSlot() {
		if (!this.perSlot) {
			this.perSlot = true;
			logger.info("cluster-singleton: Redis refused a call over the keys of several jobs (CROSSSLOT: a Redis "
					+ "Cluster); calling it once per hash slot from now on");
		}
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		Assert.notNull(observer, "'observer' must not be null");
		this.storeClockObserver = observer;
	}

	/**
	 * Tell the observer the server's clock a script returned (epoch milliseconds).
	 * @return the time, or {@code null} when the reply carries none
	 */
	private @Nullable Instant observeStoreTime(@Nullable Object millis) {
		if (millis == null) {
			return null;
		}
		Instant storeTime = Instant.ofEpochMilli(asLong(millis));
		try {
			this.storeClockObserver.storeTimeObserved(storeTime);
		}
		catch (RuntimeException ex) {
			// an observer must not turn a good round trip into a failure
		}
		return storeTime;
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
		String ttlMillis = Long.toString(ttlMillis(ttl));
		if (!this.perSlot) {
			try {
				return renewInChunks(distinct, ttlMillis, ttl);
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isCrossSlot(ex)) {
					throw ex;
				}
				switchToPerSlot();
			}
		}
		Map<Integer, List<HeldLease>> bySlot = new TreeMap<>();
		for (HeldLease lease : distinct) {
			bySlot.computeIfAbsent(RedisClusterSlots.slot(leaseKey(lease.jobName())), (slot) -> new ArrayList<>())
				.add(lease);
		}
		// Every slot gets its call even when another slot's node fails, so that Redis
		// keeps those leases. What the healthy nodes answered counts: their leases are
		// renewed or lost now; only the leases of failing nodes are left to the retry
		Set<String> renewed = new HashSet<>();
		Set<String> lost = new HashSet<>();
		RuntimeException failure = null;
		boolean answered = false;
		for (List<HeldLease> group : bySlot.values()) {
			try {
				Set<String> groupRenewed = renewInChunks(group, ttlMillis, ttl);
				answered = true;
				renewed.addAll(groupRenewed);
				for (HeldLease lease : group) {
					if (!groupRenewed.contains(lease.leaseToken())) {
						lost.add(lease.leaseToken());
					}
				}
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			if (!answered) {
				throw failure;
			}
			throw new PartialRenewalException(renewed, lost, failure);
		}
		return renewed;
	}

	private Set<String> renewInChunks(List<HeldLease> leases, String ttlMillis, Duration ttl) {
		Set<String> renewed = new HashSet<>();
		for (int from = 0; from < leases.size(); from += MAX_LEASES_PER_CALL) {
			List<HeldLease> chunk = leases.subList(from, Math.min(from + MAX_LEASES_PER_CALL, leases.size()));
			List<String> keys = new ArrayList<>(chunk.size());
			List<String> args = new ArrayList<>(chunk.size() + 1);
			args.add(ttlMillis);
			for (HeldLease lease : chunk) {
				keys.add(leaseKey(lease.jobName()));
				args.add(lease.leaseToken());
			}
			Replication replication = execute(RedisLeaseScript.RENEW, keys, args, ttl);
			List<Object> reply = replication.reply();
			if (!replication.enough() && reply.size() > 1) {
				// renewed on the master only: a failover now would bring back the
				// previous
				// expiry, so this renewal must not move the holder's deadline
				throw new IllegalStateException("cluster-singleton: only " + replication.acknowledged()
						+ " Redis replica(s) acknowledged the renewal of " + (reply.size() - 1)
						+ " lease(s) in time, cluster-singleton.redis.min-replicas is " + this.minReplicas);
			}
			// the server's clock first, then the positions of the renewed leases
			observeStoreTime(element(reply, 0));
			for (Object position : reply.subList(Math.min(1, reply.size()), reply.size())) {
				renewed.add(chunk.get((int) asLong(position) - 1).leaseToken());
			}
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
		RunState state = completion.state();
		List<String> keys = List.of(leaseKey(lease.jobName()), metaKey(lease.jobName()));
		List<String> args = List.of(lease.leaseToken(), Long.toString(lockAtLeastFor.toMillis()),
				(state != null) ? state.value() : "", Long.toString(completion.retryDelay().toMillis()),
				Long.toString(lease.fencingToken()));
		List<Object> reply;
		if (state != null) {
			Replication replication = execute(RedisLeaseScript.RELEASE, keys, args, null);
			reply = replication.reply();
			if (!replication.enough() && asLong(element(reply, 1)) == 1) {
				// recorded on the master only: unknown until a replica has it too
				throw new IllegalStateException("cluster-singleton: only " + replication.acknowledged()
						+ " Redis replica(s) acknowledged the end of the run of job '" + lease.jobName()
						+ "' (fencingToken=" + lease.fencingToken() + ") in time, cluster-singleton.redis.min-replicas "
						+ "is " + this.minReplicas + "; not recorded yet (a failover now would bring the run back "
						+ "as running)");
			}
		}
		else {
			reply = this.executor.execute(RedisLeaseScript.RELEASE, keys, args);
		}
		if (logger.isDebugEnabled() && asLong(element(reply, 0)) == 0) {
			logger.debug("cluster-singleton did not release the lease of job '" + lease.jobName()
					+ "': it no longer carries this run's token");
		}
		return reply.size() < 2 || asLong(element(reply, 1)) == 1;
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		List<Object> reply = this.executor.execute(RedisLeaseScript.DESCRIBE,
				List.of(leaseKey(jobName), metaKey(jobName)), List.of());
		if (reply.isEmpty()) {
			return Optional.empty();
		}
		String fence = asText(element(reply, 0));
		String holder = asText(element(reply, 2));
		return Optional.of(new LeaseInfo(jobName, holder, holder != null, asInstant(element(reply, 3)),
				asInstant(element(reply, 4)), (fence != null) ? Long.parseLong(fence) : 0,
				asInstant(element(reply, 1))));
	}

	@Override
	public boolean forceRelease(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		List<Object> reply = this.executor.execute(RedisLeaseScript.FORCE_RELEASE, List.of(leaseKey(jobName)),
				List.of());
		return asLong(element(reply, 0)) > 0;
	}

	@Override
	public void probe() {
		this.executor.ping(this.keyPrefix + ":probe");
	}

	private static long ttlMillis(Duration ttl) {
		return Math.max(1, ttl.toMillis());
	}

	static @Nullable Object element(List<Object> reply, int index) {
		return (index < reply.size()) ? reply.get(index) : null;
	}

	static long asLong(@Nullable Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		String text = asText(value);
		Assert.state(text != null, "Unexpected empty element in a Redis script reply");
		return Long.parseLong(text);
	}

	static @Nullable String asText(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		String text = (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : value.toString();
		return text.isEmpty() ? null : text;
	}

	static @Nullable Instant asInstant(@Nullable Object value) {
		String text = asText(value);
		return (text != null) ? Instant.ofEpochMilli(Long.parseLong(text)) : null;
	}

	@Override
	public String toString() {
		return "RedisLeaseBackend [keyPrefix=" + this.keyPrefix + ", executor=" + this.executor + "]";
	}

}
