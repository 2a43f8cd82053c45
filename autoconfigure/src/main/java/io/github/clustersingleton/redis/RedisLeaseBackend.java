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
import java.util.Set;
import java.util.TreeMap;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialRenewalException;
import io.github.clustersingleton.StoreClockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link LeaseBackend} that keeps leases in Redis, two keys per job:
 * <ul>
 * <li>{@code {<prefix>:<name>}:lease}, a hash ({@code owner}, {@code token},
 * {@code acquired_at}) that exists while the lease is held and expires by itself at the
 * end of its TTL, judged by the Redis server's clock;</li>
 * <li>{@code {<prefix>:<name>}:meta}, a hash ({@code fence}, {@code last_slot}) that
 * never expires: the job's last fencing token and last claimed cron slot (epoch
 * milliseconds).</li>
 * </ul>
 * The hash tag {@code {<prefix>:<name>}} puts both keys of a job on one Redis Cluster
 * slot, so every script touches a single slot. All changes are made by the
 * {@link RedisLeaseScript Lua scripts}, each atomic and one round trip: acquire, renew
 * (all leases this node holds in one call), release, describe and force-release. How the
 * scripts reach Redis is the {@link RedisScriptExecutor}'s business (Redisson or Spring
 * Data Redis).
 * <p>
 * In a Redis Cluster, the leases of several jobs live on different slots and one script
 * call cannot renew them all: the first renewal answered with {@code CROSSSLOT} switches
 * this backend to one call per slot.
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

	private static final Log logger = LogFactory.getLog(RedisLeaseBackend.class);

	private final RedisScriptExecutor executor;

	private final String keyPrefix;

	/**
	 * Whether the server refused a multi-slot renewal once: from then on, renewals are
	 * grouped by slot.
	 */
	private volatile boolean renewPerSlot;

	private volatile StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

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
		List<Object> reply = this.executor.execute(RedisLeaseScript.ACQUIRE,
				List.of(leaseKey(request.jobName()), metaKey(request.jobName())),
				List.of(request.owner(), request.leaseToken(), Long.toString(ttlMillis(request.ttl())),
						(slot != null) ? Long.toString(slot.toEpochMilli()) : "",
						Long.toString(request.slotTolerance().toMillis())));
		if (asLong(element(reply, 0)) == 1) {
			observeStoreTime(element(reply, 2));
			return AcquireResult.acquired(asLong(element(reply, 1)));
		}
		Instant storeTime = observeStoreTime(element(reply, 3));
		return AcquireResult.notAcquired(request, asText(element(reply, 1)), asInstant(element(reply, 2)), storeTime);
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
		if (!this.renewPerSlot) {
			try {
				return renewInChunks(distinct, ttlMillis);
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isCrossSlot(ex)) {
					throw ex;
				}
				this.renewPerSlot = true;
				logger.info("cluster-singleton: Redis refused to renew the leases of several jobs in one call "
						+ "(CROSSSLOT: a Redis Cluster); renewing them with one call per hash slot from now on");
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
				Set<String> groupRenewed = renewInChunks(group, ttlMillis);
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

	private Set<String> renewInChunks(List<HeldLease> leases, String ttlMillis) {
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
			List<Object> reply = this.executor.execute(RedisLeaseScript.RENEW, keys, args);
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
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lockAtLeastFor != null && !lockAtLeastFor.isNegative(), "'lockAtLeastFor' must not be negative");
		List<Object> reply = this.executor.execute(RedisLeaseScript.RELEASE, List.of(leaseKey(lease.jobName())),
				List.of(lease.leaseToken(), Long.toString(lockAtLeastFor.toMillis())));
		if (logger.isDebugEnabled() && asLong(element(reply, 0)) == 0) {
			logger.debug("cluster-singleton did not release the lease of job '" + lease.jobName()
					+ "': it no longer carries this run's token");
		}
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

	private static @Nullable Object element(List<Object> reply, int index) {
		return (index < reply.size()) ? reply.get(index) : null;
	}

	private static long asLong(@Nullable Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		String text = asText(value);
		Assert.state(text != null, "Unexpected empty element in a Redis script reply");
		return Long.parseLong(text);
	}

	private static @Nullable String asText(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		String text = (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : value.toString();
		return text.isEmpty() ? null : text;
	}

	private static @Nullable Instant asInstant(@Nullable Object value) {
		String text = asText(value);
		return (text != null) ? Instant.ofEpochMilli(Long.parseLong(text)) : null;
	}

	@Override
	public String toString() {
		return "RedisLeaseBackend [keyPrefix=" + this.keyPrefix + ", executor=" + this.executor + "]";
	}

}
