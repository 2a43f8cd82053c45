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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import io.lettuce.core.cluster.SlotHash;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis lease backend while Redis Sentinel fails the master over, again and again: a
 * master, a replica and three Sentinels started by the test on loopback ports; three
 * nodes (two through Redisson's Sentinel configuration, one through Lettuce's
 * {@link RedisSentinelConfiguration}), each with its own client and owner, claim three
 * every-second cron jobs (runs of 300 ms) and hold one lease without a slot (held 5 s at
 * a time, renewed every TTL/3) while a fault loop kills the master with SIGKILL every few
 * seconds and brings it back as a replica of the new one. A ledger in this JVM records
 * every run (job, slot, node, fencing token, start, end) and every hold, and the test
 * reports duplicates (a slot run twice, or two nodes holding the slot-less lease at
 * once), repeated fencing tokens, slots nobody ran, and the takeover time (from the kill
 * to the next run of any job).
 * <p>
 * By default 5 failovers per setting of {@code min-replicas} (0 and 1); with
 * {@code -Dcluster-singleton.failover.count=50} that many, and the report is also written
 * to {@code docs/reliability/failover-redis-sentinel-<date>.txt} (or the file
 * {@code -Dcluster-singleton.failover.report} names).
 *
 * @author cluster-singleton contributors
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.MethodName.class)
@Tag("failover")
class RedisSentinelFailoverTests {

	private static final int FAILOVERS = Integer.getInteger("cluster-singleton.failover.count", 5);

	private static final Duration TTL = Duration.ofSeconds(3);

	private static final List<String> SLOT_JOBS = List.of("every-second-1", "every-second-2", "every-second-3");

	private static final String HOLDER_JOB = "holder";

	private final StringBuilder report = new StringBuilder();

	private final List<String> summaries = new ArrayList<>();

	@Test
	void failoversWithAndWithoutMinReplicas() throws Exception {
		for (int minReplicas : new int[] { 0, 1 }) {
			scenario(minReplicas);
		}
	}

	@Test
	void clusterFailover() throws Exception {
		clusterScenario();
	}

	@AfterAll
	void writeReport() throws IOException {
		StringBuilder header = new StringBuilder();
		header.append("Redis failover proof, ").append(Instant.now()).append('\n');
		header.append("Topology: 1 master + 1 replica (no persistence), 3 Sentinels (quorum 2, "
				+ "down-after-milliseconds 1000, failover-timeout 3000); 3 nodes: redisson-1, redisson-2 (Redisson "
				+ "Sentinel config), lettuce-3 (Spring Data Redis RedisSentinelConfiguration); lease TTL "
				+ TTL.toMillis() + " ms; jobs " + SLOT_JOBS + " (every second, runs of 300 ms) and '" + HOLDER_JOB
				+ "' (no slot, held 5 s at a time, renewed every TTL/3); fault: SIGKILL of the master every few "
				+ "seconds, restarted as a replica of the new master once all Sentinels name the new master.\n");
		header.append("Redis Cluster: 3 masters + 3 replicas (cluster-node-timeout 1000 ms, no persistence), the same "
				+ "jobs and nodes (redisson-1, redisson-2 Redisson cluster config, lettuce-3 Spring Data Redis "
				+ "RedisClusterConfiguration), min-replicas 0; fault: SIGKILL of the master of one job's shard after "
				+ "the other, its replica promoted by the cluster, the killed node restarted (rejoins as a replica).\n\n");
		this.report.insert(0, header);
		this.summaries.forEach((line) -> this.report.append(line).append('\n'));
		String text = this.report.toString();
		System.out.println(text);
		String reportFile = System.getProperty("cluster-singleton.failover.report");
		if (reportFile == null && FAILOVERS >= 50) {
			reportFile = "../docs/reliability/failover-redis-sentinel-" + LocalDate.now(ZoneOffset.UTC) + ".txt";
		}
		if (reportFile != null) {
			Path path = Path.of(reportFile);
			Files.createDirectories(path.toAbsolutePath().getParent());
			Files.writeString(path, text);
		}
	}

	private void scenario(int minReplicas) throws Exception {
		String scenario = "redis-sentinel-min-replicas-" + minReplicas;
		try (RedisProcesses processes = new RedisProcesses()) {
			int master = processes.startServer(0);
			int replica = processes.startServer(master);
			RedisProcesses.waitForReplicas(master, 1, Duration.ofSeconds(20));
			for (int i = 0; i < 3; i++) {
				processes.startSentinel(master, 2);
			}
			Ledger ledger = new Ledger();
			List<Node> nodes = new ArrayList<>();
			List<Runnable> closers = new ArrayList<>();
			try {
				for (int i = 1; i <= 3; i++) {
					RedisScriptExecutor executor = (i < 3) ? redisson(processes, closers) : lettuce(processes, closers);
					RedisLeaseBackend backend = new RedisLeaseBackend(executor, "failover");
					backend.setMinReplicas(minReplicas, Duration.ofSeconds(1));
					nodes.add(new Node(((i < 3) ? "redisson-" : "lettuce-") + i, backend, ledger));
				}
				RoleMonitor monitor = new RoleMonitor(List.of(master, replica));
				closers.add(monitor::stop);
				nodes.forEach(Node::start);
				Thread.sleep(3000);
				List<Long> kills = new ArrayList<>();
				List<String> faultLog = new ArrayList<>();
				for (int failover = 0; failover < FAILOVERS; failover++) {
					int current = processes.sentinelMaster();
					long killedAt = System.currentTimeMillis();
					processes.kill(current);
					kills.add(killedAt);
					int promoted = awaitNewMaster(processes, current);
					long promotedAt = System.currentTimeMillis();
					processes.start(current, promoted);
					RedisProcesses.waitForReplicas(promoted, 1, Duration.ofSeconds(30));
					faultLog.add("failover " + (failover + 1) + " at " + Instant.ofEpochMilli(killedAt) + ": killed "
							+ current + ", promoted " + promoted + " after " + (promotedAt - killedAt) + " ms");
					Thread.sleep(2000 + ThreadLocalRandom.current().nextInt(1000));
				}
				awaitRunAfter(ledger, kills.get(kills.size() - 1), null);
				Thread.sleep(3000);
				nodes.forEach(Node::stop);
				for (Node node : nodes) {
					node.join();
				}
				monitor.stop();
				faultLog.addAll(monitor.twoMasters);
				analyse(scenario, minReplicas, ledger, kills, faultLog, nodes, null);
			}
			finally {
				nodes.forEach(Node::stop);
				closers.forEach(Runnable::run);
			}
		}
	}

	/**
	 * A Redis Cluster of 3 masters and 3 replicas (cluster-node-timeout 1000 ms): the
	 * master of one job's shard after the other is killed, its replica promoted by the
	 * cluster, and the killed node restarted (it rejoins as a replica).
	 */
	private void clusterScenario() throws Exception {
		String scenario = "redis-cluster-failover";
		int failovers = Math.max(3, FAILOVERS / 5);
		try (RedisProcesses processes = new RedisProcesses()) {
			processes.startCluster(3, 1);
			List<Integer> ports = processes.serverPorts();
			Ledger ledger = new Ledger();
			List<Node> nodes = new ArrayList<>();
			List<Runnable> closers = new ArrayList<>();
			try {
				for (int i = 1; i <= 3; i++) {
					RedisScriptExecutor executor = (i < 3) ? redissonCluster(ports, closers)
							: lettuceCluster(ports, closers);
					RedisLeaseBackend backend = new RedisLeaseBackend(executor, "failover");
					nodes.add(new Node(((i < 3) ? "redisson-" : "lettuce-") + i, backend, ledger));
				}
				nodes.forEach(Node::start);
				Thread.sleep(3000);
				RedisLeaseBackend keys = nodes.get(0).backend;
				List<Long> kills = new ArrayList<>();
				List<String> killedJobs = new ArrayList<>();
				List<String> faultLog = new ArrayList<>();
				for (int failover = 0; failover < failovers; failover++) {
					String job = SLOT_JOBS.get(failover % SLOT_JOBS.size());
					killedJobs.add(job);
					int slot = SlotHash.getSlot(keys.leaseKey(job));
					int ask = processes.serverPorts().get(0);
					int current = RedisProcesses.clusterMaster(ask, slot);
					int ask2 = processes.serverPorts().stream().filter((port) -> port != current).findFirst().get();
					long killedAt = System.currentTimeMillis();
					processes.kill(current);
					kills.add(killedAt);
					int promoted = -1;
					long deadline = killedAt + 60_000;
					while (System.currentTimeMillis() < deadline) {
						promoted = RedisProcesses.clusterMaster(ask2, slot);
						if (promoted != -1 && promoted != current
								&& RedisProcesses.cli(ask2, "CLUSTER", "INFO").contains("cluster_state:ok")) {
							break;
						}
						Thread.sleep(100);
					}
					long promotedAt = System.currentTimeMillis();
					processes.startClusterNode(current);
					RedisProcesses.waitForReplicas(promoted, 1, Duration.ofSeconds(30));
					faultLog.add("failover " + (failover + 1) + " at " + Instant.ofEpochMilli(killedAt)
							+ ": killed master " + current + " of " + job + "'s shard, replica " + promoted
							+ " promoted after " + (promotedAt - killedAt) + " ms");
					Thread.sleep(3000);
				}
				awaitRunAfter(ledger, kills.get(kills.size() - 1), killedJobs.get(killedJobs.size() - 1));
				Thread.sleep(3000);
				nodes.forEach(Node::stop);
				for (Node node : nodes) {
					node.join();
				}
				analyse(scenario, 0, ledger, kills, faultLog, nodes, killedJobs);
			}
			finally {
				nodes.forEach(Node::stop);
				closers.forEach(Runnable::run);
			}
		}
	}

	private RedisScriptExecutor redissonCluster(List<Integer> ports, List<Runnable> closers) {
		Config config = new Config();
		var cluster = config.useClusterServers()
			.setScanInterval(500)
			.setTimeout(1000)
			.setConnectTimeout(1000)
			.setRetryAttempts(1);
		ports.forEach((port) -> cluster.addNodeAddress("redis://127.0.0.1:" + port));
		RedissonClient client = Redisson.create(config);
		closers.add(client::shutdown);
		return new RedissonScriptExecutor(client);
	}

	private RedisScriptExecutor lettuceCluster(List<Integer> ports, List<Runnable> closers) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		ports.forEach((port) -> configuration.clusterNode("127.0.0.1", port));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
		factory.afterPropertiesSet();
		factory.start();
		closers.add(factory::destroy);
		return new SpringDataRedisScriptExecutor(factory);
	}

	/**
	 * Wait until a run of the given job (of any job when {@code null}) started after the
	 * last kill, so that the last failover's takeover is measured however long it took; a
	 * failover that no run ever follows still fails the test, at the takeover check.
	 */
	private static void awaitRunAfter(Ledger ledger, long kill, @Nullable String job) {
		try {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> ledger.runs.stream()
					.anyMatch((run) -> run.start > kill && (job == null || job.equals(run.job))));
		}
		catch (ConditionTimeoutException ex) {
			// reported by the takeover check, with the rest of the scenario
		}
	}

	private static int awaitNewMaster(RedisProcesses processes, int old) throws Exception {
		long deadline = System.currentTimeMillis() + 60_000;
		while (System.currentTimeMillis() < deadline) {
			try {
				// all Sentinels must agree before the old master comes back: restarted
				// earlier, a Sentinel that still names it master turns it back into one
				int current = processes.sentinelMaster(true);
				if (current != old && RedisProcesses.cli(current, "ROLE").startsWith("master")) {
					return current;
				}
			}
			catch (RuntimeException ex) {
				// a Sentinel between states
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("Sentinel did not promote a new master within 60s");
	}

	private RedisScriptExecutor redisson(RedisProcesses processes, List<Runnable> closers) {
		Config config = new Config();
		var sentinel = config.useSentinelServers()
			.setMasterName(RedisProcesses.MASTER_NAME)
			.setCheckSentinelsList(false)
			.setScanInterval(500)
			.setTimeout(1000)
			.setConnectTimeout(1000)
			.setRetryAttempts(1);
		processes.sentinelPorts().forEach((port) -> sentinel.addSentinelAddress("redis://127.0.0.1:" + port));
		RedissonClient client = Redisson.create(config);
		closers.add(client::shutdown);
		return new RedissonScriptExecutor(client);
	}

	private RedisScriptExecutor lettuce(RedisProcesses processes, List<Runnable> closers) {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master(RedisProcesses.MASTER_NAME);
		processes.sentinelPorts().forEach((port) -> configuration.sentinel("127.0.0.1", port));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
		factory.afterPropertiesSet();
		factory.start();
		closers.add(factory::destroy);
		return new SpringDataRedisScriptExecutor(factory);
	}

	private void analyse(String scenario, int minReplicas, Ledger ledger, List<Long> kills, List<String> faultLog,
			List<Node> nodes, List<String> killedJobs) {
		List<Run> runs = new ArrayList<>(ledger.runs);
		runs.sort((a, b) -> Long.compare(a.start, b.start));
		// duplicates: a slot run twice, or two holders of the slot-less lease at once
		Map<String, List<Run>> bySlot = new HashMap<>();
		Map<String, List<Run>> byFence = new HashMap<>();
		for (Run run : runs) {
			if (run.slot != null) {
				bySlot.computeIfAbsent(run.job + "@" + run.slot, (key) -> new ArrayList<>()).add(run);
			}
			byFence.computeIfAbsent(run.job + "#" + run.fence, (key) -> new ArrayList<>()).add(run);
		}
		List<String> details = new ArrayList<>();
		int duplicates = 0;
		for (List<Run> same : bySlot.values()) {
			if (same.size() > 1) {
				duplicates += same.size() - 1;
				details.add("duplicate slot run: " + same);
			}
		}
		List<Run> holds = runs.stream().filter((run) -> run.slot == null).toList();
		for (int i = 0; i < holds.size(); i++) {
			for (int j = i + 1; j < holds.size(); j++) {
				Run a = holds.get(i);
				Run b = holds.get(j);
				if (!a.node.equals(b.node) && a.start < b.end && b.start < a.end) {
					duplicates++;
					details.add("overlapping holders of '" + HOLDER_JOB + "': " + a + " and " + b);
				}
			}
		}
		int fenceRepeats = 0;
		for (List<Run> same : byFence.values()) {
			if (same.size() > 1) {
				fenceRepeats += same.size() - 1;
				details.add("repeated fencing token: " + same);
			}
		}
		// lost slots: seconds between each job's first and last run that no node ran
		int lostSlots = 0;
		for (String job : SLOT_JOBS) {
			TreeSet<Instant> slots = new TreeSet<>();
			runs.stream().filter((run) -> job.equals(run.job)).forEach((run) -> slots.add(run.slot));
			if (slots.size() > 1) {
				long span = Duration.between(slots.first(), slots.last()).toSeconds() + 1;
				lostSlots += (int) (span - slots.size());
				details.add("lost slots of " + job + ": " + (span - slots.size()));
			}
		}
		// takeover: from each kill to the next run (of any job) that started after it
		List<Long> takeovers = new ArrayList<>();
		for (int k = 0; k < kills.size(); k++) {
			long kill = kills.get(k);
			String killedJob = (killedJobs != null) ? killedJobs.get(k) : null;
			runs.stream()
				.filter((run) -> run.start > kill && (killedJob == null || killedJob.equals(run.job)))
				.mapToLong((run) -> run.start - kill)
				.min()
				.ifPresent(takeovers::add);
		}
		Collections.sort(takeovers);
		long median = takeovers.isEmpty() ? -1 : takeovers.get(takeovers.size() / 2);
		long max = takeovers.isEmpty() ? -1 : takeovers.get(takeovers.size() - 1);
		this.report.append("== ")
			.append(scenario)
			.append(" (min-replicas ")
			.append(minReplicas)
			.append(", ")
			.append(kills.size())
			.append(" failovers)\n");
		faultLog.forEach((line) -> this.report.append("  ").append(line).append('\n'));
		for (Node node : nodes) {
			this.report.append("  node ")
				.append(node.name)
				.append(": runs ")
				.append(node.runs.get())
				.append(", acquisition errors ")
				.append(node.errors.get())
				.append(", renewal errors ")
				.append(node.renewalErrors.get())
				.append(", holds lost ")
				.append(node.holdsLost.get())
				.append(node.firstErrors.isEmpty() ? "" : ", first errors " + node.firstErrors)
				.append('\n');
		}
		this.report
			.append((killedJobs != null) ? "  takeover ms per failover (the failed shard's job): "
					: "  takeover ms per failover: ")
			.append(takeovers)
			.append('\n');
		details.forEach((line) -> this.report.append("  ").append(line).append('\n'));
		this.report.append('\n');
		this.summaries.add("failover " + scenario + ": runs=" + runs.size() + " duplicates=" + duplicates
				+ " fence-repeats=" + fenceRepeats + " lost-slots=" + lostSlots + " takeover-median-ms=" + median
				+ " takeover-max-ms=" + max);
		assertThat(runs).as("runs of " + scenario).isNotEmpty();
		assertThat(takeovers).as("takeovers of " + scenario).hasSize(kills.size());
	}

	/**
	 * Asks every server for its ROLE every 100 ms and records the times when two of them
	 * answer "master" at once.
	 */
	static final class RoleMonitor {

		final List<String> twoMasters = new CopyOnWriteArrayList<>();

		private volatile boolean running = true;

		private final Thread thread;

		RoleMonitor(List<Integer> ports) {
			this.thread = new Thread(() -> {
				long since = 0;
				while (this.running) {
					int masters = 0;
					for (int port : ports) {
						try {
							if (RedisProcesses.cli(port, "ROLE").startsWith("master")) {
								masters++;
							}
						}
						catch (Exception ex) {
							// down
						}
					}
					long now = System.currentTimeMillis();
					if (masters > 1 && since == 0) {
						since = now;
					}
					else if (masters <= 1 && since != 0) {
						this.twoMasters.add("two servers answered ROLE master from " + Instant.ofEpochMilli(since)
								+ " for " + (now - since) + " ms");
						since = 0;
					}
					Node.sleep(100);
				}
			}, "role-monitor");
			this.thread.setDaemon(true);
			this.thread.start();
		}

		void stop() {
			this.running = false;
			try {
				this.thread.join(5000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	record Run(String job, Instant slot, String node, long fence, long start, long end) {

		@Override
		public String toString() {
			return this.node + " " + this.job + ((this.slot != null) ? " slot " + this.slot : "") + " fence "
					+ this.fence + " [" + Instant.ofEpochMilli(this.start) + ", " + Instant.ofEpochMilli(this.end)
					+ "]";
		}

	}

	static final class Ledger {

		final List<Run> runs = new CopyOnWriteArrayList<>();

	}

	static final class Node {

		final String name;

		final RedisLeaseBackend backend;

		final Ledger ledger;

		final AtomicLong runs = new AtomicLong();

		final AtomicLong errors = new AtomicLong();

		final AtomicLong renewalErrors = new AtomicLong();

		final AtomicLong holdsLost = new AtomicLong();

		final Set<String> firstErrors = ConcurrentHashMap.newKeySet();

		private final List<Thread> threads = new ArrayList<>();

		private volatile boolean running = true;

		Node(String name, RedisLeaseBackend backend, Ledger ledger) {
			this.name = name;
			this.backend = backend;
			this.ledger = ledger;
		}

		void start() {
			for (String job : SLOT_JOBS) {
				this.threads.add(daemon(this.name + "-" + job, () -> cron(job)));
			}
			this.threads.add(daemon(this.name + "-" + HOLDER_JOB, this::hold));
		}

		private static Thread daemon(String name, Runnable task) {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			thread.start();
			return thread;
		}

		void stop() {
			this.running = false;
		}

		void join() throws InterruptedException {
			for (Thread thread : this.threads) {
				thread.join(30_000);
			}
		}

		private void error(RuntimeException ex) {
			if (this.firstErrors.size() < 5) {
				String message = String.valueOf(ex.getMessage());
				this.firstErrors
					.add(ex.getClass().getSimpleName() + ": " + message.substring(0, Math.min(120, message.length())));
			}
		}

		private void cron(String job) {
			while (this.running) {
				long now = System.currentTimeMillis();
				long next = (now / 1000 + 1) * 1000;
				sleep(next - now + ThreadLocalRandom.current().nextInt(30));
				Instant slot = Instant.ofEpochMilli(next);
				LeaseRequest request = new LeaseRequest(job, this.name, UUID.randomUUID().toString(), TTL, slot,
						LeaseRequest.DEFAULT_SLOT_TOLERANCE);
				AcquireResult result;
				try {
					result = this.backend.tryAcquire(request);
				}
				catch (RuntimeException ex) {
					this.errors.incrementAndGet();
					error(ex);
					continue;
				}
				if (!result.isAcquired()) {
					continue;
				}
				long start = System.currentTimeMillis();
				this.runs.incrementAndGet();
				sleep(300);
				long end = System.currentTimeMillis();
				this.ledger.runs.add(new Run(job, slot, this.name, result.fencingToken(), start, end));
				try {
					this.backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
				}
				catch (RuntimeException ex) {
					// expires at the end of its TTL
				}
			}
		}

		private void hold() {
			while (this.running) {
				sleep(200 + ThreadLocalRandom.current().nextInt(300));
				LeaseRequest request = new LeaseRequest(HOLDER_JOB, this.name, UUID.randomUUID().toString(), TTL, null,
						LeaseRequest.DEFAULT_SLOT_TOLERANCE);
				long sentAt = System.currentTimeMillis();
				AcquireResult result;
				try {
					result = this.backend.tryAcquire(request);
				}
				catch (RuntimeException ex) {
					this.errors.incrementAndGet();
					error(ex);
					continue;
				}
				if (!result.isAcquired()) {
					continue;
				}
				long start = System.currentTimeMillis();
				HeldLease lease = HeldLease.of(request, result.fencingToken());
				// the local deadline: the last acknowledged renewal's send time + TTL
				long deadline = sentAt + TTL.toMillis();
				long end = start + 5000;
				boolean lost = false;
				while (System.currentTimeMillis() < end) {
					sleep(TTL.toMillis() / 3);
					long renewSent = System.currentTimeMillis();
					if (renewSent >= deadline) {
						lost = true;
						break;
					}
					try {
						if (this.backend.renew(List.of(lease), TTL).contains(lease.leaseToken())) {
							deadline = renewSent + TTL.toMillis();
						}
						else {
							lost = true;
							break;
						}
					}
					catch (RuntimeException ex) {
						this.renewalErrors.incrementAndGet();
					}
				}
				long stop = lost ? Math.min(System.currentTimeMillis(), deadline) : System.currentTimeMillis();
				if (lost) {
					this.holdsLost.incrementAndGet();
				}
				this.runs.incrementAndGet();
				this.ledger.runs.add(new Run(HOLDER_JOB, null, this.name, result.fencingToken(), start, stop));
				if (!lost) {
					try {
						this.backend.release(lease, Duration.ZERO);
					}
					catch (RuntimeException ex) {
						// expires at the end of its TTL
					}
				}
			}
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(Math.max(0, millis));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
