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

import java.net.InetAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialAcquisitionException;
import io.github.clustersingleton.PartialRenewalException;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.contract.AbstractLeaseBackendContractTests;
import io.github.clustersingleton.contract.StoreTimeTravel;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.test.TcpProxy;
import io.github.clustersingleton.test.TestStores;
import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * The backend contract plus Redis-specific behavior (key layout, script cache, Redis
 * Cluster slots, persistence warning, a connection cut while a job runs), run against a
 * real Redis by one subclass per {@link RedisScriptExecutor}.
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class AbstractRedisLeaseBackendTests extends AbstractLeaseBackendContractTests {

	/**
	 * Command and connect timeout of the client behind the connection-cut proxy: short,
	 * so that a cut connection shows within a watchdog tick.
	 */
	protected static final Duration CLIENT_TIMEOUT = Duration.ofMillis(400);

	/**
	 * Command and connect timeout of the clients every other test uses: well above a busy
	 * build machine's scheduling delays, so that a slow answer is not taken for a failed
	 * store (a 400 ms timeout failed CI runs on a loaded 2-core machine).
	 */
	protected static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private static final String LOOPBACK = InetAddress.getLoopbackAddress().getHostAddress();

	private final Deque<AutoCloseable> resources = new ArrayDeque<>();

	private final Set<String> keyPrefixes = new HashSet<>(Set.of(RedisLeaseBackend.DEFAULT_KEY_PREFIX));

	private final String isolatedPrefix = "cs-isolated-" + UUID.randomUUID().toString().substring(0, 8);

	private String host;

	private int port;

	private StringRedisTemplate admin;

	private CountingRedisScriptExecutor executor;

	private RedisLeaseBackend backend;

	private RedisLeaseBackend unreachableBackend;

	/**
	 * Return a new executor on a Redis server, registering what must be closed after the
	 * tests with {@link #closeAfterAll}.
	 * @param host the server's host
	 * @param port the server's port
	 * @param timeout the connect and command timeout
	 * @return the executor
	 */
	protected abstract RedisScriptExecutor createExecutor(String host, int port, Duration timeout);

	/**
	 * Return the exception the client under test throws when a Redis Cluster answers with
	 * the given error.
	 * @param message the server's error message
	 * @return the exception
	 */
	protected abstract RuntimeException serverError(String message);

	/**
	 * Close a resource after all tests of the class.
	 * @param resource the resource
	 */
	protected final void closeAfterAll(AutoCloseable resource) {
		this.resources.push(resource);
	}

	@BeforeAll
	void createBackend() {
		URI url = URI.create(TestStores.redisUrl());
		this.host = url.getHost();
		this.port = url.getPort();
		LettuceConnectionFactory adminFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.host, this.port));
		adminFactory.afterPropertiesSet();
		adminFactory.start();
		closeAfterAll(adminFactory::destroy);
		this.admin = new StringRedisTemplate(adminFactory);
		this.executor = new CountingRedisScriptExecutor(createExecutor(this.host, this.port, COMMAND_TIMEOUT));
		this.backend = new RedisLeaseBackend(this.executor);
		this.backend.initialize();
		this.unreachableBackend = new RedisLeaseBackend(createExecutor("127.0.0.1", 1, CLIENT_TIMEOUT));
	}

	@AfterAll
	void removeKeysAndCloseClients() throws Exception {
		try {
			if (this.admin != null) {
				for (String prefix : this.keyPrefixes) {
					deleteKeys("{" + prefix + ":" + jobNamePrefix() + "*");
					removeClaims(prefix + ":claims");
				}
				this.admin.delete(this.isolatedPrefix + ":controls");
			}
		}
		finally {
			while (!this.resources.isEmpty()) {
				this.resources.pop().close();
			}
		}
	}

	/**
	 * Remove this class's jobs from a claims index that other test classes may share.
	 */
	private void removeClaims(String key) {
		List<Object> members = new ArrayList<>();
		try (Cursor<ZSetOperations.TypedTuple<String>> cursor = this.admin.opsForZSet()
			.scan(key, ScanOptions.scanOptions().match(jobNamePrefix() + "*").count(1000).build())) {
			cursor.forEachRemaining((tuple) -> members.add(tuple.getValue()));
		}
		if (!members.isEmpty()) {
			this.admin.opsForZSet().remove(key, members.toArray());
		}
	}

	private void deleteKeys(String pattern) {
		List<String> keys = new ArrayList<>();
		try (Cursor<String> cursor = this.admin.scan(ScanOptions.scanOptions().match(pattern).count(1000).build())) {
			cursor.forEachRemaining(keys::add);
		}
		if (!keys.isEmpty()) {
			this.admin.delete(keys);
		}
	}

	@Override
	protected LeaseBackend backend() {
		return this.backend;
	}

	@Override
	protected LeaseBackend unreachableBackend() {
		return this.unreachableBackend;
	}

	@Override
	protected long roundTrips() {
		return this.executor.getCount();
	}

	@Override
	protected void resetRoundTrips() {
		this.executor.reset();
	}

	@Override
	protected StoreTimeTravel timeTravel() {
		return new RedisStoreTimeTravel(this.backend, (key) -> List.of(this.port));
	}

	@Override
	protected boolean supportsControls() {
		return true;
	}

	@Override
	protected boolean supportsPresence() {
		return true;
	}

	/**
	 * A backend on a key prefix of this test class's own.
	 */
	@Override
	protected LeaseBackend isolatedBackend() {
		this.keyPrefixes.add(this.isolatedPrefix);
		return new RedisLeaseBackend(this.executor, this.isolatedPrefix);
	}

	@Test
	void idIsRedis() {
		assertThat(this.backend.id()).isEqualTo("redis");
	}

	@Test
	void keysFollowTheDocumentedLayout() {
		String job = jobName("layout");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		LeaseRequest request = request(job, "node-a", LONG_TTL, slot);
		HeldLease lease = acquire(request);
		String leaseKey = "{cluster-singleton:" + job + "}:lease";
		String metaKey = "{cluster-singleton:" + job + "}:meta";
		assertThat(this.backend.leaseKey(job)).isEqualTo(leaseKey);
		assertThat(this.backend.metaKey(job)).isEqualTo(metaKey);
		assertThat(this.admin.type(leaseKey).code()).isEqualTo("hash");
		Map<Object, Object> leaseHash = this.admin.opsForHash().entries(leaseKey);
		assertThat(leaseHash).containsEntry("owner", "node-a")
			.containsEntry("token", request.leaseToken())
			.containsKey("acquired_at");
		assertThat(this.admin.getExpire(leaseKey, TimeUnit.MILLISECONDS)).isBetween(1L, LONG_TTL.toMillis());
		assertThat(this.admin.opsForHash().entries(metaKey))
			.containsExactlyInAnyOrderEntriesOf(Map.of("fence", Long.toString(lease.fencingToken()), "last_slot",
					Long.toString(slot.toEpochMilli()), "run_slot", Long.toString(slot.toEpochMilli()), "attempt", "1",
					"run_state", "running", "run_token", request.leaseToken()));
		assertThat(this.admin.getExpire(metaKey)).as("meta has no TTL").isEqualTo(-1L);
		this.backend.release(lease, Duration.ZERO);
		assertThat(this.admin.hasKey(leaseKey)).isFalse();
		assertThat(this.admin.hasKey(metaKey)).isTrue();
	}

	@Test
	void bothKeysOfAJobHashToOneClusterSlot() {
		for (String job : List.of("billing", "Billing.bill", "a:b:c", "jobs/nightly report", "ünïcødé-job",
				jobName("slot"), "x".repeat(RedisLeaseBackend.MAX_JOB_NAME_LENGTH))) {
			String leaseKey = this.backend.leaseKey(job);
			String metaKey = this.backend.metaKey(job);
			assertThat(SlotHash.getSlot(leaseKey)).as(job).isEqualTo(SlotHash.getSlot(metaKey));
			assertThat(SlotHash.getSlot(leaseKey)).as(job)
				.isEqualTo(SlotHash.getSlot("cluster-singleton:" + job))
				.isEqualTo(RedisClusterSlots.slot(leaseKey));
		}
	}

	@Test
	void jobNamesUpTo200CharactersWithoutBracesAreValid() {
		String name = jobName("longest-");
		String longest = name + "j".repeat(RedisLeaseBackend.MAX_JOB_NAME_LENGTH - name.length());
		assertThatNoException().isThrownBy(() -> this.backend.validateJobName(longest));
		assertThat(this.backend.tryAcquire(request(longest, "node-a")).isAcquired()).isTrue();
		assertThat(this.backend.describe(longest)).get().extracting(LeaseInfo::holder).isEqualTo("node-a");
		assertThatNoException().isThrownBy(() -> this.backend.validateJobName("Billing.bill:eu/1 ü"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName(longest + "x"))
			.withMessageContaining("201")
			.withMessageContaining("at most 200 characters");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName("job{eu}"))
			.withMessageContaining("'{' or '}'")
			.withMessageContaining("hash tag");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName("job}"))
			.withMessageContaining("'{' or '}'");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName(""))
			.withMessageContaining("empty");
	}

	@Test
	void keyPrefixSeparatesBackends() {
		String prefix = "cs-test-" + UUID.randomUUID().toString().substring(0, 8);
		this.keyPrefixes.add(prefix);
		RedisLeaseBackend other = new RedisLeaseBackend(this.executor, prefix);
		String job = jobName("prefix");
		acquire(request(job, "node-a"));
		AcquireResult second = other.tryAcquire(request(job, "node-b"));
		assertThat(second.isAcquired()).isTrue();
		assertThat(second.fencingToken()).isEqualTo(1);
		assertThat(this.admin.hasKey("{" + prefix + ":" + job + "}:lease")).isTrue();
		assertThat(other.describe(job)).get().extracting(LeaseInfo::holder).isEqualTo("node-b");
		assertThatIllegalArgumentException().isThrownBy(() -> new RedisLeaseBackend(this.executor, "cs{1}"))
			.withMessageContaining("hash tag");
		assertThatIllegalArgumentException().isThrownBy(() -> new RedisLeaseBackend(this.executor, ""));
	}

	/**
	 * On a server of its own: {@code SCRIPT FLUSH} empties the script cache of every
	 * client of a server, and the other test classes share the local one (the default
	 * build runs them side by side).
	 */
	@Test
	void scriptsAreReloadedAfterScriptFlush() throws Exception {
		try (RedisProcesses servers = new RedisProcesses()) {
			int port = servers.startServer(0);
			CountingRedisScriptExecutor executor = new CountingRedisScriptExecutor(
					createExecutor("127.0.0.1", port, COMMAND_TIMEOUT));
			RedisLeaseBackend backend = new RedisLeaseBackend(executor);
			backend.initialize();
			String job = jobName("flush");
			RedisProcesses.command(port, "SCRIPT", "FLUSH");
			executor.reset();
			LeaseRequest request = request(job, "node-a");
			AcquireResult acquired = backend.tryAcquire(request);
			assertThat(acquired.outcome()).isEqualTo(Outcome.ACQUIRED);
			HeldLease lease = HeldLease.of(request, acquired.fencingToken());
			assertThat(executor.getCount()).as("one call, the reload happening within it").isEqualTo(1);
			RedisProcesses.command(port, "SCRIPT", "FLUSH");
			assertThat(backend.renew(List.of(lease), LONG_TTL)).containsExactly(lease.leaseToken());
			RedisProcesses.command(port, "SCRIPT", "FLUSH");
			assertThat(backend.describe(job)).get().extracting(LeaseInfo::holder).isEqualTo("node-a");
			RedisProcesses.command(port, "SCRIPT", "FLUSH");
			backend.release(lease, Duration.ZERO);
			RedisProcesses.command(port, "SCRIPT", "FLUSH");
			assertThat(backend.forceRelease(job)).isFalse();
			assertThat(backend.describe(job)).get().extracting(LeaseInfo::live).isEqualTo(false);
		}
	}

	/**
	 * On a server of its own, as above: claims sent together in one pipeline after a
	 * {@code SCRIPT FLUSH}, and with one coming in the middle of the pipeline, so that
	 * some calls run and the others meet {@code NOSCRIPT}: each claim is granted once,
	 * none is sent again after it ran (which would answer it as held by this very node).
	 */
	@Test
	void claimsSentTogetherRunOnceEachWhenTheScriptCacheIsFlushed() throws Exception {
		try (RedisProcesses servers = new RedisProcesses()) {
			int port = servers.startServer(0);
			RedisLeaseBackend backend = new RedisLeaseBackend(createExecutor("127.0.0.1", port, COMMAND_TIMEOUT));
			backend.initialize();
			assertThat(backend.acquiresTogether()).isTrue();
			Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
			RedisProcesses.command(port, "SCRIPT", "FLUSH");
			assertThat(backend.tryAcquireAll(requests("flushed", 50, slot))).extracting(AcquireResult::outcome)
				.containsOnly(Outcome.ACQUIRED);
			for (int trial = 0; trial < 10; trial++) {
				List<LeaseRequest> requests = requests("flushing-" + trial, 300, slot);
				long delayNanos = java.util.concurrent.ThreadLocalRandom.current().nextLong(0, 3_000_000);
				Thread flusher = new Thread(() -> {
					java.util.concurrent.locks.LockSupport.parkNanos(delayNanos);
					try {
						RedisProcesses.command(port, "SCRIPT", "FLUSH");
					}
					catch (java.io.IOException ex) {
						throw new java.io.UncheckedIOException(ex);
					}
				});
				flusher.start();
				List<AcquireResult> results = backend.tryAcquireAll(requests);
				flusher.join();
				assertThat(results).as("trial %d", trial)
					.extracting(AcquireResult::outcome)
					.containsOnly(Outcome.ACQUIRED);
			}
		}
	}

	@Test
	void aClaimThatFailsAmongClaimsSentTogetherLeavesTheOthersTheirAnswers() {
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		String broken = jobName("together-broken");
		// a key of the wrong type: this job's script call fails by itself
		this.admin.opsForList().leftPush("{" + RedisLeaseBackend.DEFAULT_KEY_PREFIX + ":" + broken + "}:lease", "x");
		List<LeaseRequest> requests = List.of(request(jobName("together-before"), "node-a", LONG_TTL, slot),
				request(broken, "node-a", LONG_TTL, slot),
				request(jobName("together-after"), "node-a", LONG_TTL, slot));
		assertThatExceptionOfType(PartialAcquisitionException.class)
			.isThrownBy(() -> this.backend.tryAcquireAll(requests))
			.satisfies((ex) -> assertThat(ex.getResults())
				.extracting((result) -> (result != null) ? result.outcome() : null)
				.containsExactly(Outcome.ACQUIRED, null, Outcome.ACQUIRED));
	}

	private List<LeaseRequest> requests(String prefix, int count, Instant slot) {
		List<LeaseRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(request(jobName(prefix + "-" + i), "node-a", LONG_TTL, slot));
		}
		return requests;
	}

	@Test
	void everyOperationIsOneRoundTrip() {
		String job = jobName("one-trip");
		HeldLease lease = acquire(request(job, "node-a"));
		resetRoundTrips();
		this.backend.describe(job);
		assertThat(roundTrips()).as("describe").isEqualTo(1);
		resetRoundTrips();
		this.backend.forceRelease(job);
		assertThat(roundTrips()).as("force-release").isEqualTo(1);
		resetRoundTrips();
		this.backend.probe();
		assertThat(roundTrips()).as("probe").isEqualTo(1);
		resetRoundTrips();
		this.backend.renew(List.of(lease), LONG_TTL);
		assertThat(roundTrips()).as("renewal of a lost lease").isEqualTo(1);
		resetRoundTrips();
		assertThat(this.backend.tryAcquire(request(job, "node-b", LONG_TTL, Instant.EPOCH)).outcome())
			.isEqualTo(Outcome.ACQUIRED);
		assertThat(this.backend.tryAcquire(request(job, "node-c", LONG_TTL, Instant.EPOCH)).outcome())
			.isEqualTo(Outcome.SLOT_DONE);
		assertThat(roundTrips()).as("acquisition, then one refused for its slot").isEqualTo(2);
	}

	@Test
	void initializeWarnsOnceWhenRedisPersistsNothing(CapturedOutput output) {
		String save = this.admin.execute((RedisCallback<String>) (
				connection) -> connection.serverCommands().getConfig("save").getProperty("save"));
		String appendOnly = this.admin.execute((RedisCallback<String>) (
				connection) -> connection.serverCommands().getConfig("appendonly").getProperty("appendonly"));
		boolean persistsNothing = save.isBlank() && "no".equals(appendOnly);
		int before = output.getOut().length();
		new RedisLeaseBackend(this.executor).initialize();
		String logged = output.getOut().substring(before);
		String warning = "persists nothing";
		if (persistsNothing) {
			assertThat(logged).containsOnlyOnce(warning).contains("fencing token");
		}
		else {
			assertThat(logged).doesNotContain(warning);
		}
	}

	@Test
	void initializeDoesNotWarnWhenRedisPersists(CapturedOutput output) {
		int before = output.getOut().length();
		new RedisLeaseBackend(new ConfigOverridingExecutor(this.executor, Map.of("save", "3600 1", "appendonly", "no")))
			.initialize();
		new RedisLeaseBackend(new ConfigOverridingExecutor(this.executor, Map.of("save", "", "appendonly", "yes")))
			.initialize();
		assertThat(output.getOut().substring(before)).doesNotContain("persists nothing");
	}

	@Test
	void initializeWarnsWhenRedisMayEvictLeases(CapturedOutput output) {
		int before = output.getOut().length();
		new RedisLeaseBackend(new ConfigOverridingExecutor(this.executor,
				Map.of("save", "3600 1", "maxmemory", "104857600", "maxmemory-policy", "allkeys-lru")))
			.initialize();
		assertThat(output.getOut().substring(before)).containsOnlyOnce("may evict keys").contains("allkeys-lru");
		before = output.getOut().length();
		new RedisLeaseBackend(new ConfigOverridingExecutor(this.executor,
				Map.of("save", "3600 1", "maxmemory", "104857600", "maxmemory-policy", "noeviction")))
			.initialize();
		new RedisLeaseBackend(new ConfigOverridingExecutor(this.executor,
				Map.of("save", "3600 1", "maxmemory", "0", "maxmemory-policy", "volatile-lru")))
			.initialize();
		assertThat(output.getOut().substring(before)).doesNotContain("may evict keys");
	}

	@Test
	void initializeToleratesDisabledConfigCommand(CapturedOutput output) {
		RedisLeaseBackend backend = new RedisLeaseBackend(new ConfigOverridingExecutor(this.executor, null));
		int before = output.getOut().length();
		assertThatNoException().isThrownBy(backend::initialize);
		assertThat(output.getOut().substring(before)).doesNotContain("persists nothing");
	}

	@Test
	void initializeOfUnreachableRedisWarnsWithoutFailing(CapturedOutput output) {
		int before = output.getOut().length();
		assertThatNoException().isThrownBy(this.unreachableBackend::initialize);
		assertThat(output.getOut().substring(before)).contains("could not reach Redis")
			.contains("runs are skipped until it answers");
	}

	/**
	 * Acquire the leases of three jobs whose keys hash to three different slots.
	 */
	private List<HeldLease> acquireOnThreeSlots(RedisLeaseBackend clustered, String prefix) {
		List<HeldLease> leases = new ArrayList<>();
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; slots.size() < 3; i++) {
			String job = jobName(prefix + "-" + i);
			if (slots.add(SlotHash.getSlot(clustered.leaseKey(job)))) {
				LeaseRequest request = request(job, "node-a");
				AcquireResult result = clustered.tryAcquire(request);
				assertThat(result.isAcquired()).isTrue();
				leases.add(HeldLease.of(request, result.fencingToken()));
			}
		}
		return leases;
	}

	@Test
	void runFieldsAndTheLedgerFollowTheDocumentedLayout() {
		String job = jobName("run-layout");
		Instant slot = Instant.parse("2026-01-01T10:00:00Z");
		ClaimPolicy policy = new ClaimPolicy(true, true, 3, false);
		LeaseRequest request = request(job, "node-a", LONG_TTL, slot).withPolicy(policy, null);
		HeldLease lease = acquire(request);
		String metaKey = "{cluster-singleton:" + job + "}:meta";
		String millis = Long.toString(slot.toEpochMilli());
		assertThat(this.admin.opsForHash().entries(metaKey)).containsExactlyInAnyOrderEntriesOf(
				Map.of("fence", Long.toString(lease.fencingToken()), "last_slot", millis, "run_slot", millis, "attempt",
						"1", "run_state", "running", "run_token", lease.leaseToken()));
		long released = System.currentTimeMillis();
		this.backend.release(lease, Duration.ZERO, RunCompletion.failed(Duration.ofSeconds(60)));
		Map<Object, Object> meta = this.admin.opsForHash().entries(metaKey);
		assertThat(meta).containsEntry("run_state", "failed").containsEntry("attempt", "1");
		assertThat(Long.parseLong((String) meta.get("retry_at"))).isBetween(released + 55_000, released + 65_000);
		RunRecord run = new RunRecord(job, slot, 1, 7, "node-a", RunTrigger.SCHEDULED, RunState.FAILED,
				Instant.ofEpochMilli(1767261600123L), Instant.ofEpochMilli(1767261601456L), "boom");
		this.backend.runLedger().record(run, 10);
		String runsKey = "{cluster-singleton:" + job + "}:runs";
		assertThat(this.backend.runsKey(job)).isEqualTo(runsKey);
		assertThat(this.admin.type(runsKey).code()).isEqualTo("zset");
		assertThat(this.admin.opsForZSet().rangeWithScores(runsKey, 0, -1)).singleElement().satisfies((entry) -> {
			assertThat(entry.getScore()).isEqualTo(7.0);
			assertThat(entry.getValue()).isEqualTo("{\"fencing_token\":7,\"state\":\"failed\",\"slot\":" + millis
					+ ",\"attempt\":1,\"owner\":\"node-a\",\"trigger\":\"SCHEDULED\",\"started_at\":1767261600123,"
					+ "\"finished_at\":1767261601456,\"error\":\"boom\"}");
		});
		assertThat(this.admin.getExpire(runsKey)).as("the ledger has no TTL").isEqualTo(-1L);
	}

	@Test
	void aPolicyFreeClaimOfASlotStartsItsRunAndASlotlessOneLeavesTheRunFieldsAlone() {
		String job = jobName("no-run-fields");
		Instant slot = Instant.parse("2026-01-01T10:00:00Z");
		Instant next = slot.plusSeconds(60);
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
		acquire(request(job, "node-a", SHORT_TTL, slot).withPolicy(policy, null));
		// policy-free: nothing is ever pending, so the dead run of slot does not stay
		AcquireResult result = awaitAcquired(request(job, "node-b", SHORT_TTL, next));
		assertThat(result.run()).isNull();
		assertThat(result.lastSlot()).isNull();
		String metaKey = "{cluster-singleton:" + job + "}:meta";
		assertThat(this.admin.opsForHash().entries(metaKey))
			.containsEntry("run_slot", Long.toString(next.toEpochMilli()))
			.containsEntry("run_state", "running")
			.containsEntry("attempt", "1");
		awaitAcquired(request(job, "node-c", LONG_TTL, null));
		assertThat(this.admin.opsForHash().entries(metaKey))
			.containsEntry("run_slot", Long.toString(next.toEpochMilli()))
			.containsEntry("last_slot", Long.toString(next.toEpochMilli()))
			.containsEntry("run_state", "running")
			.containsEntry("attempt", "1");
	}

	@Test
	void theLedgerKeepsAnyTextExactly() {
		String job = jobName("ledger-text");
		RunLedger ledger = this.backend.runLedger();
		String owner = "node \"a\",\"state\":\"running\" \\ ü ✓ 😀";
		String error = "java.lang.IllegalStateException: \"state\":\"running\"\n\tat x\\y \u0001 ünïcødé";
		Instant started = Instant.parse("2026-01-01T10:00:00.001Z");
		RunRecord ended = new RunRecord(job, null, 2, 1, owner, RunTrigger.DIRECT, RunState.FAILED, started,
				started.plusMillis(5), error);
		RunRecord running = new RunRecord(job, Instant.parse("2026-01-01T10:01:00Z"), 1, 2, owner, RunTrigger.RECOVERY,
				RunState.RUNNING, started, null, null);
		ledger.record(ended, 5);
		ledger.record(running, 5);
		assertThat(ledger.history(job, 5)).containsExactly(running, ended);
		ledger.markLostBefore(job, 2);
		assertThat(ledger.history(job, 5)).as("a run at the given fencing token is not before it")
			.containsExactly(running, ended);
		ledger.markLostBefore(job, 3);
		assertThat(ledger.history(job, 5)).containsExactly(running.finish(RunState.LOST, null, null), ended);
		ledger.record(ended.finish(RunState.SUCCEEDED, started.plusSeconds(1), null), 1);
		assertThat(ledger.history(job, 5)).containsExactly(running.finish(RunState.LOST, null, null));
		assertThat(ledger.history(job, 0)).isEmpty();
		assertThat(ledger.lastSuccess(List.of(job))).isEmpty();
	}

	@Test
	void aRunsFirstRecordIsWrittenOnceAndALedgerIsTrimmedEveryTenthOfItsSize() {
		String job = jobName("ledger-trim");
		RunLedger ledger = this.backend.runLedger();
		String key = "{cluster-singleton:" + job + "}:runs";
		Instant started = Instant.parse("2026-01-01T10:00:00Z");
		RunRecord ended = new RunRecord(job, started, 1, 1, "node-a", RunTrigger.SCHEDULED, RunState.SUCCEEDED, started,
				started.plusMillis(5), null);
		// a write whose answer was lost is sent again: still one record of the run
		ledger.recordAll(List.of(ended), 20, (run) -> true);
		ledger.recordAll(List.of(ended), 20, (run) -> true);
		assertThat(ledger.history(job, 20)).containsExactly(ended);
		// a run's start, then its end: the end replaces the start
		RunRecord running = new RunRecord(job, started.plusSeconds(60), 1, 2, "node-a", RunTrigger.SCHEDULED,
				RunState.RUNNING, started.plusSeconds(60), null, null);
		ledger.recordAll(List.of(running), 20, (run) -> false);
		RunRecord second = running.finish(RunState.FAILED, started.plusSeconds(61), "boom");
		ledger.recordAll(List.of(second), 20, (run) -> false);
		assertThat(ledger.history(job, 20)).containsExactly(second, ended);
		// 20 kept, trimmed every second write of this node: also when no run's fencing
		// token is a multiple of 2 (the tokens in between went to claims that recorded
		// no run)
		for (long fence = 3; fence <= 121; fence += 2) {
			ledger.recordAll(List.of(new RunRecord(job, null, 1, fence, "node-a", RunTrigger.DIRECT, RunState.SUCCEEDED,
					started, started, null)), 20, (run) -> true);
			assertThat(this.admin.opsForZSet().size(key)).isLessThanOrEqualTo(21);
		}
		assertThat(ledger.history(job, 20)).hasSize(20).first().extracting(RunRecord::fencingToken).isEqualTo(121L);
	}

	@Test
	void aLateCompletionLeavesTheLeaseAQuorumMemberGrantedOnTheSameKeys() {
		String job = jobName("late-completion-quorum");
		HeldLease late = acquire(request(job, "node-a", LONG_TTL, Instant.parse("2026-01-01T10:00:00Z")));
		// the lease expired; a quorum acquisition was granted on this server's keys
		this.admin.delete(this.backend.leaseKey(job));
		LeaseRequest quorum = request(job, "node-q", LONG_TTL, Instant.parse("2026-01-01T10:01:00Z"));
		assertThat(new QuorumGrantCall(quorum, LONG_TTL.toMillis())
			.execute(this.executor, new RedisKeys(RedisLeaseBackend.DEFAULT_KEY_PREFIX))
			.granted()).isTrue();
		assertThat(this.backend.completeRun(late, Duration.ZERO, RunCompletion.succeeded())).as("superseded").isFalse();
		assertThat(this.admin.opsForHash().get(this.backend.leaseKey(job), "token")).isEqualTo(quorum.leaseToken());
	}

	@Test
	void aStaleHolderCanNeitherEndNorStartARun() {
		String job = jobName("stale-holder");
		Instant slot = Instant.parse("2026-01-01T10:00:00Z");
		ClaimPolicy policy = new ClaimPolicy(true, true, 3, false);
		LeaseRequest first = request(job, "node-a", SHORT_TTL, slot).withPolicy(policy, null);
		HeldLease stale = acquire(first);
		// the run still recorded as running is marked by a recovery claim (grace 1 ms)
		await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.findPending(Map.of(job, policy)).contains(job));
		assertThat(this.backend
			.tryAcquire(
					LeaseRequest.recovery(job, "node-c", UUID.randomUUID().toString(), Duration.ofMillis(4), policy))
			.isAcquired()).isFalse();
		AcquireResult taken = awaitAcquired(
				request(job, "node-b", LONG_TTL, slot.plusSeconds(60)).withPolicy(policy, slot));
		assertThat(taken.run()).isEqualTo(new SlotRun(slot, 1, RunState.RUNNING));
		this.backend.release(stale, Duration.ZERO, RunCompletion.failed(Duration.ZERO));
		assertThat(this.backend.describe(job)).hasValueSatisfying((info) -> {
			assertThat(info.live()).as("the lease of the claim that took the job over").isTrue();
			assertThat(info.holder()).isEqualTo("node-b");
		});
		assertThat(this.backend.startRun(stale, slot.plusSeconds(120), 1)).isEmpty();
		Map<Object, Object> meta = this.admin.opsForHash().entries(this.backend.metaKey(job));
		assertThat(meta).containsEntry("run_state", "running")
			.containsEntry("last_slot", Long.toString(slot.plusSeconds(60).toEpochMilli()))
			.containsEntry("fence", Long.toString(taken.fencingToken()))
			.doesNotContainKey("retry_at");
	}

	@Test
	void findPendingAgreesWithRecoveryClaimsOnEveryRowState() {
		long now = System.currentTimeMillis();
		long slot = Instant.parse("2026-01-01T10:00:00Z").toEpochMilli();
		List<ClaimPolicy> policies = List.of(new ClaimPolicy(true, false, 2, false),
				new ClaimPolicy(false, true, 3, false), new ClaimPolicy(true, true, 3, true),
				new ClaimPolicy(false, false, 3, true));
		List<Map<String, String>> rows = new ArrayList<>();
		rows.add(Map.of("fence", "1", "last_slot", Long.toString(slot)));
		for (String state : List.of("running", "succeeded", "failed")) {
			for (String attempt : List.of("1", "2", "3")) {
				for (long lastSlot : List.of(slot, slot + 60_000)) {
					for (long retryAt : List.of(now - 60_000, now + 60_000)) {
						Map<String, String> row = new HashMap<>(
								Map.of("fence", "1", "last_slot", Long.toString(lastSlot), "run_slot",
										Long.toString(slot), "attempt", attempt, "run_state", state));
						if (state.equals("failed")) {
							row.put("retry_at", Long.toString(retryAt));
						}
						rows.add(row);
					}
				}
			}
		}
		int pendingRows = 0;
		for (ClaimPolicy policy : policies) {
			for (Map<String, String> row : rows) {
				String looked = jobName("agree-find");
				String claimed = jobName("agree-claim");
				String token = UUID.randomUUID().toString();
				// a run still running that the policy runs again is taken over once
				// marked
				// and the grace has passed: its row carries a mark that is due
				boolean needsMark = row.containsKey("run_slot")
						&& policy.needsRecoveryGrace(new SlotRun(Instant.ofEpochMilli(slot),
								Integer.parseInt(row.get("attempt")), RunState.fromValue(row.get("run_state"))));
				Map<String, String> marked = new HashMap<>(row);
				if (needsMark) {
					marked.put("recover_at", Long.toString(now - 60_000));
				}
				this.admin.opsForHash().putAll(this.backend.metaKey(looked), row);
				this.admin.opsForHash().putAll(this.backend.metaKey(claimed), marked);
				boolean pending = this.backend.findPending(Map.of(looked, policy)).contains(looked);
				AcquireResult result = policy.isActive()
						? this.backend.tryAcquire(LeaseRequest.recovery(claimed, "node-a", token, LONG_TTL, policy))
						: AcquireResult.nothingPending();
				assertThat(result.isAcquired()).as("%s on %s", policy, row).isEqualTo(pending);
				if (pending) {
					pendingRows++;
					assertThat(result.lastSlot()).isEqualTo(Instant.ofEpochMilli(Long.parseLong(row.get("last_slot"))));
					assertThat(result.run()).isEqualTo(new SlotRun(Instant.ofEpochMilli(slot),
							Integer.parseInt(row.get("attempt")), RunState.fromValue(row.get("run_state"))));
					Map<Object, Object> after = new HashMap<>(
							this.admin.opsForHash().entries(this.backend.metaKey(claimed)));
					assertThat(after.remove("fence")).isEqualTo("2");
					Map<String, String> expected = new HashMap<>(row);
					expected.remove("fence");
					expected.put("run_token", token);
					assertThat(after).as("a recovery claim changes nothing but the fence, the run token and the mark")
						.isEqualTo(expected);
				}
			}
		}
		assertThat(pendingRows).as("rows with pending work").isGreaterThan(10);
	}

	@Test
	void findPendingAndLastSuccessMakeOneCallPerSlotInACluster() {
		CrossSlotRefusingExecutor cluster = new CrossSlotRefusingExecutor(this.executor, this::serverError);
		RedisLeaseBackend clustered = new RedisLeaseBackend(cluster);
		ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
		Map<String, ClaimPolicy> jobs = new LinkedHashMap<>();
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; slots.size() < 3; i++) {
			String job = jobName("pending-slot-" + i);
			if (slots.add(SlotHash.getSlot(clustered.leaseKey(job)))) {
				LeaseRequest request = request(job, "node-a", SHORT_TTL, Instant.parse("2026-01-01T10:00:00Z"))
					.withPolicy(policy, null);
				assertThat(clustered.tryAcquire(request).isAcquired()).isTrue();
				jobs.put(job, policy);
				clustered.runLedger()
					.record(new RunRecord(job, null, 1, 1, "node-a", RunTrigger.SCHEDULED, RunState.SUCCEEDED,
							Instant.ofEpochMilli(1000), Instant.ofEpochMilli(2000 + i), null), 5);
			}
		}
		List<String> names = List.copyOf(jobs.keySet());
		await().atMost(Duration.ofSeconds(10)).until(() -> clustered.findPending(jobs).size() == 3);
		assertThat(cluster.refused).as("the first call over several slots").hasValue(1);
		cluster.calls.set(0);
		assertThat(clustered.findPending(jobs)).containsExactlyInAnyOrderElementsOf(names);
		assertThat(cluster.calls).as("one call per slot").hasValue(3);
		cluster.calls.set(0);
		assertThat(clustered.runLedger().lastSuccess(names)).containsOnlyKeys(names);
		assertThat(cluster.calls).hasValue(3);
		cluster.failingSlot = SlotHash.getSlot(clustered.leaseKey(names.get(1)));
		assertThat(clustered.findPending(jobs)).as("the answers of the healthy shards")
			.containsExactlyInAnyOrder(names.get(0), names.get(2));
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> clustered.runLedger().lastSuccess(names))
			.withMessageContaining("shard down");
		cluster.failAll = true;
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> clustered.findPending(jobs))
			.withMessageContaining("shard down");
	}

	@Test
	void renewalFallsBackToOneCallPerSlotWhenTheServerRefusesCrossSlotCalls() {
		CrossSlotRefusingExecutor cluster = new CrossSlotRefusingExecutor(this.executor, this::serverError);
		RedisLeaseBackend clustered = new RedisLeaseBackend(cluster);
		// acquired on a backend of its own: a claim through the emulated cluster would
		// already switch to one call per slot (its pause-of-every-job key is on another
		// slot)
		List<HeldLease> leases = acquireOnThreeSlots((RedisLeaseBackend) backend(), "cluster");
		assertThat(clustered.forceRelease(leases.get(2).jobName())).isTrue();
		Set<String> expected = Set.of(leases.get(0).leaseToken(), leases.get(1).leaseToken());
		cluster.calls.set(0);
		assertThat(clustered.renew(leases, LONG_TTL)).isEqualTo(expected);
		assertThat(cluster.calls).as("one refused call, then one per slot").hasValue(1 + 3);
		assertThat(cluster.refused).hasValue(1);
		cluster.calls.set(0);
		assertThat(clustered.renew(leases, LONG_TTL)).isEqualTo(expected);
		assertThat(cluster.calls).as("straight to one call per slot").hasValue(3);
		assertThat(cluster.refused).hasValue(1);
	}

	@Test
	void inARedisClusterAPauseOfEveryJobRefusesTheClaimsOfKnownAndUnseenJobs() {
		CrossSlotRefusingExecutor cluster = new CrossSlotRefusingExecutor(this.executor, this::serverError);
		String prefix = "cs-test-" + UUID.randomUUID().toString().substring(0, 8);
		this.keyPrefixes.add(prefix);
		RedisLeaseBackend clustered = new RedisLeaseBackend(cluster, prefix);
		JobControls controls = clustered.controls().orElseThrow();
		String known = jobName("cluster-known");
		String unseen = jobName("cluster-unseen");
		LeaseRequest first = request(known, "node-a");
		AcquireResult acquired = clustered.tryAcquire(first);
		assertThat(acquired.isAcquired()).isTrue();
		assertThat(cluster.refused).as("the claim with the pause-all key on another slot").hasValue(1);
		clustered.release(HeldLease.of(first, acquired.fencingToken()), Duration.ZERO);
		try {
			controls.pause(null, "ops", "maintenance");
			assertThat(clustered.tryAcquire(request(known, "node-b")).outcome())
				.isEqualTo(AcquireResult.Outcome.PAUSED);
			// a job never claimed: its first claim reads the pause of every job
			assertThat(clustered.tryAcquire(request(unseen, "node-b")).outcome())
				.isEqualTo(AcquireResult.Outcome.PAUSED);
			assertThat(clustered.describe(unseen)).isEmpty();
			assertThat(controls.read(List.of(known, unseen)).values()).allMatch(JobControl::paused);
		}
		finally {
			controls.resume(null, false);
			this.admin.delete(prefix + ":controls");
		}
		assertThat(clustered.tryAcquire(request(unseen, "node-b")).isAcquired()).isTrue();
		assertThat(clustered.tryAcquire(request(known, "node-b")).isAcquired()).isTrue();
		assertThat(cluster.refused).as("no call over several slots after the first").hasValue(1);
	}

	@Test
	void oneFailingShardLeavesTheOthersRenewedOrLostAtOnce() {
		CrossSlotRefusingExecutor cluster = new CrossSlotRefusingExecutor(this.executor, this::serverError);
		RedisLeaseBackend clustered = new RedisLeaseBackend(cluster);
		List<HeldLease> leases = acquireOnThreeSlots(clustered, "shard");
		// the first lease is on a healthy shard, the second on one that stops answering,
		// the third on a healthy shard that no longer holds it
		assertThat(clustered.forceRelease(leases.get(2).jobName())).isTrue();
		assertThat(clustered.renew(leases, LONG_TTL)).hasSize(2);
		cluster.failingSlot = SlotHash.getSlot(clustered.leaseKey(leases.get(1).jobName()));
		assertThatExceptionOfType(PartialRenewalException.class).isThrownBy(() -> clustered.renew(leases, LONG_TTL))
			.satisfies((ex) -> {
				assertThat(ex.getRenewed()).containsExactly(leases.get(0).leaseToken());
				assertThat(ex.getLost()).containsExactly(leases.get(2).leaseToken());
				assertThat(ex.getCause()).hasMessageContaining("shard down");
			});
		// every shard down: nothing is known, so the whole renewal fails
		cluster.failAll = true;
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> clustered.renew(leases, LONG_TTL))
			.isNotInstanceOf(PartialRenewalException.class);
	}

	@Test
	void connectionCutWhileAJobRunsLosesTheLeaseOnlyAtTheLocalDeadline() throws Throwable {
		Duration ttl = Duration.ofSeconds(2);
		String job = jobName("cut");
		ExecutorService threads = Executors.newCachedThreadPool();
		try (TcpProxy proxy = TcpProxy.start(this.host, this.port)) {
			RedisLeaseBackend proxied = new RedisLeaseBackend(
					createExecutor(LOOPBACK, proxy.getPort(), CLIENT_TIMEOUT));
			proxied.initialize();
			RecordingListener listener = new RecordingListener();
			ClusterSingletonExecutor node = new ClusterSingletonExecutor(proxied,
					new ClusterSingletonExecutor.Settings("node-a", ttl, Duration.ofSeconds(1), true),
					Clock.systemUTC(), listener);
			try {
				CountDownLatch started = new CountDownLatch(1);
				AtomicLong interruptedAt = new AtomicLong();
				AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
				Future<Boolean> run = threads
					.submit(() -> execute(node, JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), () -> {
						context.set(ClusterSingletonContext.current());
						started.countDown();
						try {
							Thread.sleep(30_000);
						}
						catch (InterruptedException ex) {
							interruptedAt.set(System.nanoTime());
						}
						return null;
					}));
				assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
				await().atMost(Duration.ofSeconds(10)).until(() -> listener.renewals.get() >= 2);
				long cut = System.nanoTime();
				proxy.cut();

				// another node, which still reaches Redis, tries all along
				AcquireResult taken = null;
				long takenAt = 0;
				List<AcquireResult> refused = new ArrayList<>();
				while (taken == null && System.nanoTime() - cut < TimeUnit.SECONDS.toNanos(10)) {
					AcquireResult attempt = this.backend.tryAcquire(request(job, "node-b"));
					if (attempt.isAcquired()) {
						taken = attempt;
						takenAt = System.nanoTime();
					}
					else {
						refused.add(attempt);
						Thread.sleep(20);
					}
				}
				assertThat(taken).as("node-b takes over once the lease expired in Redis").isNotNull();
				assertThat(run.get(10, TimeUnit.SECONDS)).isTrue();
				assertThat(refused).isNotEmpty()
					.allSatisfy((attempt) -> assertThat(attempt.holder()).isEqualTo("node-a"));
				long lostAfter = TimeUnit.NANOSECONDS.toMillis(interruptedAt.get() - cut);
				// the last good renewal left at most one tick (a third of the TTL) before
				// the cut: the local deadline falls between two thirds of a TTL and one
				// TTL after it
				assertThat(lostAfter).isBetween(ttl.toMillis() * 2 / 3 - 100, ttl.toMillis() + 500);
				assertThat(listener.renewalErrors.get()).as("renewal errors reported").isGreaterThanOrEqualTo(1);
				assertThat(listener.lost).singleElement().asString().contains("no renewal succeeded");
				assertThat(listener.outcomes).containsExactly(ClusterSingletonListener.RunOutcome.LEASE_LOST);
				// node-a gave up its run no later than Redis let node-b in: the local
				// deadline counts from when a renewal was sent, Redis's expiry from
				// when it ran (a few ms of thread scheduling allowed)
				assertThat(TimeUnit.NANOSECONDS.toMillis(takenAt - interruptedAt.get())).isGreaterThanOrEqualTo(-50);
				assertThat(context.get().isLeaseValid()).isFalse();
				assertThat(taken.fencingToken()).isGreaterThan(context.get().fencingToken());

				// Redis unreachable at a trigger: the run is skipped, nothing is thrown
				String other = jobName("cut-trigger");
				AtomicBoolean ran = new AtomicBoolean();
				assertThat(execute(node, JobDefinition.of(other, Duration.ofMinutes(1), Duration.ZERO), () -> {
					ran.set(true);
					return null;
				})).isFalse();
				assertThat(ran).isFalse();
				assertThat(listener.acquireErrors).hasValue(1);

				// Redis reachable again: runs resume
				proxy.restore();
				await().atMost(Duration.ofSeconds(15))
					.pollInterval(Duration.ofMillis(200))
					.until(() -> execute(node, JobDefinition.of(other, Duration.ofMinutes(1), Duration.ZERO),
							() -> null));
				assertThat(this.backend.describe(other)).get().extracting(LeaseInfo::live).isEqualTo(false);
			}
			finally {
				node.close();
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static boolean execute(ClusterSingletonExecutor node, JobDefinition job,
			ClusterSingletonExecutor.Invocation invocation) throws Exception {
		try {
			return node.execute(job, (Instant) null, invocation);
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The real executor, with {@code CONFIG GET} answered from a map (or refused, as
	 * managed services do, when the map is {@code null}).
	 */
	private static final class ConfigOverridingExecutor implements RedisScriptExecutor {

		private final RedisScriptExecutor delegate;

		private final @Nullable Map<String, String> config;

		ConfigOverridingExecutor(RedisScriptExecutor delegate, @Nullable Map<String, String> config) {
			this.delegate = delegate;
			this.config = config;
		}

		@Override
		public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
			return this.delegate.execute(script, keys, args);
		}

		@Override
		public void load(RedisLeaseScript script) {
			this.delegate.load(script);
		}

		@Override
		public void ping(String key) {
			this.delegate.ping(key);
		}

		@Override
		public Map<String, String> getConfig(String parameter) {
			if (this.config == null) {
				throw new IllegalStateException("ERR unknown command 'CONFIG'");
			}
			String value = this.config.get(parameter);
			return (value != null) ? Map.of(parameter, value) : this.delegate.getConfig(parameter);
		}

	}

}
