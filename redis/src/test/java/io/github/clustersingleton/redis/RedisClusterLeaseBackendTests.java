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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.contract.AbstractLeaseBackendContractTests;
import io.github.clustersingleton.contract.EngineContractScope;
import io.github.clustersingleton.contract.StoreTimeTravel;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The backend contract on a real Redis Cluster of three masters that this class starts
 * once, through Redisson's cluster mode and through Spring Data Redis's Lettuce cluster
 * connection. The suite's job names hash to slots of every master, so every call over
 * several jobs (renewal, pending work, last successes) crosses slots and masters. The
 * engine contract, which the backend contract inherits, is left out (see
 * {@link WithoutEngineContract}) but for the watchdog renewing runs on every master.
 *
 * @author cluster-singleton contributors
 */
class RedisClusterLeaseBackendTests {

	/**
	 * Command and connect timeout: well above a busy build machine's scheduling delays.
	 */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Command and connect timeout of the clients on a cluster that does not exist.
	 */
	private static final Duration UNREACHABLE_TIMEOUT = Duration.ofMillis(400);

	private static RedisProcesses processes;

	private static List<Integer> masters;

	@BeforeAll
	static void startCluster() throws Exception {
		processes = new RedisProcesses();
		try {
			masters = processes.startCluster(3, 0);
		}
		catch (Exception | Error ex) {
			processes.close();
			throw ex;
		}
	}

	@AfterAll
	static void stopCluster() {
		if (processes != null) {
			processes.close();
		}
	}

	/**
	 * The master that serves a hash slot: the cluster's slots are split evenly between
	 * the masters, in order, and never move in this test.
	 */
	private static int masterOf(int slot) {
		return masters.get(slot * masters.size() / RedisClusterSlots.SLOTS);
	}

	private static boolean execute(ClusterSingletonExecutor node, String job,
			ClusterSingletonExecutor.Invocation invocation) throws Exception {
		try {
			return node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null,
					invocation);
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Nested
	class ThroughRedisson extends ClusterContract {

		@Override
		RedisScriptExecutor createExecutor(List<Integer> ports, Duration timeout) {
			Config config = new Config();
			config.setLazyInitialization(true);
			config.setNettyThreads(4);
			ClusterServersConfig cluster = config.useClusterServers();
			ports.forEach((port) -> cluster.addNodeAddress("redis://127.0.0.1:" + port));
			cluster.setConnectTimeout((int) timeout.toMillis())
				.setTimeout((int) timeout.toMillis())
				.setRetryAttempts(0)
				.setMasterConnectionMinimumIdleSize(1)
				.setMasterConnectionPoolSize(16)
				.setSlaveConnectionMinimumIdleSize(0)
				.setSubscriptionConnectionMinimumIdleSize(0);
			RedissonClient redisson = Redisson.create(config);
			closeAfterAll(() -> redisson.shutdown(0, 2, TimeUnit.SECONDS));
			return new RedissonScriptExecutor(redisson);
		}

	}

	@Nested
	class ThroughLettuce extends ClusterContract {

		@Override
		RedisScriptExecutor createExecutor(List<Integer> ports, Duration timeout) {
			RedisClusterConfiguration cluster = new RedisClusterConfiguration(
					ports.stream().map((port) -> "127.0.0.1:" + port).toList());
			LettuceClientConfiguration client = LettuceClientConfiguration.builder()
				.commandTimeout(timeout)
				.clientOptions(ClusterClientOptions.builder()
					.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
					.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
					.build())
				.build();
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(cluster, client);
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			closeAfterAll(connectionFactory::destroy);
			return new SpringDataRedisScriptExecutor(connectionFactory);
		}

	}

	/**
	 * Leaves out the engine contract that the backend contract inherits: it takes about
	 * 85 s per client, and runs on a standalone Redis through both clients
	 * ({@link RedissonRedisLeaseBackendTests}, {@link LettuceRedisLeaseBackendTests});
	 * what the engine does differently on a cluster, renewing leases on several masters
	 * in one watchdog tick, is tested here.
	 */
	static final class WithoutEngineContract implements ExecutionCondition {

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			boolean engine = context.getTestMethod().map(EngineContractScope::isEngineContractTest).orElse(false);
			return engine ? ConditionEvaluationResult.disabled("the engine contract runs on standalone Redis")
					: ConditionEvaluationResult.enabled("backend contract or cluster test");
		}

	}

	/**
	 * The contract on the cluster through one client, plus what only a cluster shows.
	 */
	@ExtendWith(WithoutEngineContract.class)
	abstract class ClusterContract extends AbstractLeaseBackendContractTests {

		private final Deque<AutoCloseable> resources = new ArrayDeque<>();

		/** The last job name {@link #jobName} made of each readable name. */
		private final Map<String, String> jobNames = new ConcurrentHashMap<>();

		private CountingRedisScriptExecutor executor;

		private RedisLeaseBackend backend;

		private RedisLeaseBackend unreachable;

		private final String isolatedPrefix = "cs-isolated-" + UUID.randomUUID().toString().substring(0, 8);

		/**
		 * Return a new executor on the cluster whose seed nodes are given, registering
		 * what must be closed with {@link #closeAfterAll}.
		 */
		abstract RedisScriptExecutor createExecutor(List<Integer> ports, Duration timeout);

		final void closeAfterAll(AutoCloseable resource) {
			this.resources.push(resource);
		}

		@BeforeAll
		void createBackend() {
			this.executor = new CountingRedisScriptExecutor(createExecutor(masters, COMMAND_TIMEOUT));
			this.backend = new RedisLeaseBackend(this.executor);
			this.backend.initialize();
			// The backend learns that it talks to a cluster from the first CROSSSLOT
			// answer; learn it here, so that the contract's round trip counts do not
			// depend on which test happens to make the first call over several jobs
			List<HeldLease> leases = onEveryMaster("warm-up");
			assertThat(this.backend.renew(leases, LONG_TTL)).hasSize(masters.size());
			leases.forEach((lease) -> this.backend.release(lease, Duration.ZERO));
			this.unreachable = new RedisLeaseBackend(createExecutor(List.of(1), UNREACHABLE_TIMEOUT));
		}

		@AfterAll
		void closeClients() throws Exception {
			while (!this.resources.isEmpty()) {
				this.resources.pop().close();
			}
		}

		@Override
		protected LeaseBackend backend() {
			return this.backend;
		}

		@Override
		protected LeaseBackend unreachableBackend() {
			return this.unreachable;
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
			return new RedisStoreTimeTravel(this.backend, (key) -> List.of(masterOf(RedisClusterSlots.slot(key))));
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
		 * A backend on a key prefix of this test class's own, on the same cluster.
		 */
		@Override
		protected LeaseBackend isolatedBackend() {
			return new RedisLeaseBackend(this.executor, this.isolatedPrefix);
		}

		@Override
		protected String jobName(String name) {
			String jobName = super.jobName(name);
			this.jobNames.put(name, jobName);
			return jobName;
		}

		/**
		 * One call per hash slot: a script's keys must all live in one slot.
		 */
		@Override
		protected int expectedRenewRoundTrips(int leases) {
			Set<Integer> slots = slotsOf(IntStream.range(0, leases).mapToObj((i) -> "batch-" + i).toList());
			if (leases >= 10) {
				assertThat(slots.stream().map(RedisClusterLeaseBackendTests::masterOf).distinct())
					.as("masters of the renewed leases")
					.hasSize(masters.size());
			}
			return slots.size();
		}

		/**
		 * A job's very first claim is three calls: the claim script, which leaves its
		 * marker in the job's meta hash and asks for the pause of every job (that key
		 * lives on another slot), the read of that key, and the claim script again.
		 */
		@Override
		protected int expectedFirstAcquireRoundTrips() {
			return 3;
		}

		@Override
		protected int expectedFindPendingRoundTrips() {
			List<String> names = new ArrayList<>(IntStream.range(0, 5).mapToObj((i) -> "pending-" + i).toList());
			names.add("never-claimed");
			return slotsOf(names).size();
		}

		private Set<Integer> slotsOf(List<String> readableNames) {
			Set<Integer> slots = new TreeSet<>();
			for (String name : readableNames) {
				slots.add(RedisClusterSlots.slot(this.backend.leaseKey(this.jobNames.get(name))));
			}
			return slots;
		}

		/**
		 * Acquire one lease on each master, with a job of its own.
		 */
		private List<HeldLease> onEveryMaster(String name) {
			Map<Integer, HeldLease> byMaster = new LinkedHashMap<>();
			for (int i = 0; byMaster.size() < masters.size(); i++) {
				String job = jobName(name + "-" + i);
				int master = masterOf(RedisClusterSlots.slot(this.backend.leaseKey(job)));
				if (!byMaster.containsKey(master)) {
					byMaster.put(master, acquire(request(job, "node-a")));
				}
			}
			return List.copyOf(byMaster.values());
		}

		@Test
		void jobNamesSpreadOverEveryMaster() {
			Set<Integer> used = new TreeSet<>();
			for (int i = 0; i < 50; i++) {
				used.add(masterOf(RedisClusterSlots.slot(this.backend.leaseKey(jobName("spread-" + i)))));
			}
			assertThat(used).containsExactlyInAnyOrderElementsOf(masters);
		}

		@Test
		void eachJobsKeysLiveOnTheMasterOfItsSlot() throws Exception {
			for (HeldLease lease : onEveryMaster("keys")) {
				String job = lease.jobName();
				this.backend.runLedger()
					.record(new RunRecord(job, null, 1, lease.fencingToken(), "node-a", RunTrigger.SCHEDULED,
							RunState.SUCCEEDED, Instant.ofEpochMilli(1000), Instant.ofEpochMilli(2000), null), 5);
				int owner = masterOf(RedisClusterSlots.slot(this.backend.leaseKey(job)));
				for (String key : List.of(this.backend.leaseKey(job), this.backend.metaKey(job),
						this.backend.runsKey(job))) {
					assertThat(RedisProcesses.command(owner, "EXISTS", key)).as(key).isEqualTo("1");
				}
			}
		}

		@Test
		void callsOverJobsOnEveryMasterAnswerForAllOfThem() {
			ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
			Map<String, ClaimPolicy> pendingJobs = new LinkedHashMap<>();
			Map<Integer, String> byMaster = new LinkedHashMap<>();
			for (int i = 0; byMaster.size() < masters.size(); i++) {
				String job = jobName("cross-" + i);
				int master = masterOf(RedisClusterSlots.slot(this.backend.leaseKey(job)));
				if (byMaster.putIfAbsent(master, job) == null) {
					LeaseRequest request = request(job, "node-a", SHORT_TTL, Instant.parse("2026-01-01T10:00:00Z"))
						.withPolicy(policy, null);
					assertThat(this.backend.tryAcquire(request).isAcquired()).isTrue();
					pendingJobs.put(job, policy);
					this.backend.runLedger()
						.record(new RunRecord(job, null, 1, 1, "node-a", RunTrigger.SCHEDULED, RunState.SUCCEEDED,
								Instant.ofEpochMilli(1000), Instant.ofEpochMilli(2000 + i), null), 5);
				}
			}
			List<String> names = List.copyOf(pendingJobs.keySet());
			assertThat(this.backend.runLedger().lastSuccess(names)).containsOnlyKeys(names);
			// the runs die with their short leases: each is pending on its own master
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.backend.findPending(pendingJobs).containsAll(names));
		}

		@Test
		void theWatchdogRenewsRunsOnEveryMasterTogether() throws Exception {
			Duration ttl = Duration.ofSeconds(1);
			RecordingListener listener = new RecordingListener();
			ClusterSingletonExecutor node = new ClusterSingletonExecutor(this.backend,
					new ClusterSingletonExecutor.Settings("node-a", ttl, Duration.ofSeconds(1), true),
					Clock.systemUTC(), listener);
			ExecutorService threads = Executors.newCachedThreadPool();
			try {
				List<String> jobs = onEveryMaster("watchdog").stream().map(HeldLease::jobName).toList();
				jobs.forEach(this.backend::forceRelease);
				CountDownLatch started = new CountDownLatch(jobs.size());
				CountDownLatch finish = new CountDownLatch(1);
				List<ClusterSingletonContext> contexts = new CopyOnWriteArrayList<>();
				List<Future<Boolean>> runs = new ArrayList<>();
				for (String job : jobs) {
					runs.add(threads.submit(() -> execute(node, job, () -> {
						contexts.add(ClusterSingletonContext.current());
						started.countDown();
						return finish.await(30, TimeUnit.SECONDS);
					})));
				}
				assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
				long renewalsBefore = listener.renewals.get();
				// four TTLs: without renewals on all three masters the leases would have
				// expired three times over
				await().during(Duration.ofMillis(4 * ttl.toMillis()))
					.atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> jobs.stream()
						.noneMatch((job) -> this.backend.tryAcquire(request(job, "node-b")).isAcquired())
							&& contexts.stream().allMatch(ClusterSingletonContext::isLeaseValid));
				assertThat(listener.renewals.get() - renewalsBefore).isGreaterThanOrEqualTo(3);
				assertThat(listener.renewalErrors).hasValue(0);
				finish.countDown();
				for (Future<Boolean> run : runs) {
					assertThat(run.get(10, TimeUnit.SECONDS)).isTrue();
				}
				assertThat(listener.outcomes).hasSize(jobs.size())
					.containsOnly(ClusterSingletonListener.RunOutcome.SUCCESS);
			}
			finally {
				node.close();
				threads.shutdownNow();
			}
		}

		@Test
		void aNewBackendOnTheClusterSwitchesToOneCallPerSlotAtItsFirstCallOverSeveralJobs() {
			RedisLeaseBackend fresh = new RedisLeaseBackend(this.executor);
			List<HeldLease> leases = onEveryMaster("fresh");
			resetRoundTrips();
			assertThat(fresh.renew(leases, LONG_TTL)).hasSize(leases.size());
			assertThat(roundTrips()).as("the refused call over all slots, then one per slot")
				.isEqualTo(1 + leases.size());
			resetRoundTrips();
			assertThat(fresh.renew(leases, LONG_TTL)).hasSize(leases.size());
			assertThat(roundTrips()).as("one per slot").isEqualTo(leases.size());
		}

	}

}
