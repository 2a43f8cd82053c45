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
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialRenewalException;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.test.TestStores;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Renewal on a real Redis Cluster of three masters that this test starts from the
 * {@code redis-server} binary (the one on the PATH, else the one of the
 * {@code embedded-redis} artifact): when one master dies, the leases on the other two are
 * renewed or reported lost at once, and only the dead master's are left for the retry.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterRenewalTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private final List<Process> servers = new ArrayList<>();

	private final List<Integer> ports = new ArrayList<>();

	private Path directory;

	private RedissonClient redisson;

	@BeforeAll
	void startCluster() throws Exception {
		this.directory = Files.createTempDirectory("cluster-singleton-redis-cluster");
		for (int i = 0; i < 3; i++) {
			int port = freePort();
			Path data = Files.createDirectories(this.directory.resolve(Integer.toString(port)));
			this.ports.add(port);
			this.servers
				.add(new ProcessBuilder(TestStores.redisServerBinary().toString(), "--port", Integer.toString(port),
						"--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--dir", data.toString(), "--save", "", "--appendonly", "no")
					.redirectErrorStream(true)
					.redirectOutput(data.resolve("server.log").toFile())
					.start());
		}
		for (int port : this.ports) {
			await().atMost(Duration.ofSeconds(20)).until(() -> cli(port, "ping").contains("PONG"));
		}
		// what redis-cli --cluster create does for three masters, without redis-cli (the
		// redis-server of the embedded-redis artifact comes without it): distinct config
		// epochs, a third of the hash slots each, and the first node meets the others
		int[] firstSlots = { 0, 5461, 10923, 16384 };
		for (int i = 0; i < 3; i++) {
			int port = this.ports.get(i);
			assertThat(cli(port, "cluster", "set-config-epoch", Integer.toString(i + 1))).isEqualTo("OK");
			List<String> addSlots = new ArrayList<>(List.of("cluster", "addslots"));
			for (int slot = firstSlots[i]; slot < firstSlots[i + 1]; slot++) {
				addSlots.add(Integer.toString(slot));
			}
			assertThat(cli(port, addSlots.toArray(String[]::new))).isEqualTo("OK");
		}
		for (int i = 1; i < 3; i++) {
			assertThat(cli(this.ports.get(0), "cluster", "meet", "127.0.0.1", Integer.toString(this.ports.get(i))))
				.isEqualTo("OK");
		}
		for (int port : this.ports) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> cli(port, "cluster", "info").contains("cluster_state:ok")
						&& cli(port, "cluster", "info").contains("cluster_known_nodes:3"));
		}
		Config config = new Config();
		config.setNettyThreads(4);
		config.useClusterServers()
			.addNodeAddress("redis://127.0.0.1:" + this.ports.get(0))
			.setTimeout(1000)
			.setConnectTimeout(1000)
			.setRetryAttempts(0)
			.setScanInterval(1000);
		this.redisson = Redisson.create(config);
	}

	@AfterAll
	void stopCluster() throws IOException {
		if (this.redisson != null) {
			this.redisson.shutdown(0, 2, TimeUnit.SECONDS);
		}
		this.servers.forEach(Process::destroyForcibly);
		for (Process server : this.servers) {
			try {
				server.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (this.directory != null) {
			try (Stream<Path> paths = Files.walk(this.directory)) {
				paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
	}

	@Test
	@Order(1)
	void recoveryAndTheLedgerWorkAcrossMasters() throws Exception {
		RedisLeaseBackend backend = new RedisLeaseBackend(new RedissonScriptExecutor(this.redisson));
		backend.initialize();
		ClaimPolicy policy = new ClaimPolicy(true, true, 3, false);
		Instant slot = Instant.parse("2026-01-01T10:00:00Z");
		String prefix = "recovery-" + UUID.randomUUID().toString().substring(0, 8) + "-";
		Map<String, ClaimPolicy> jobs = new LinkedHashMap<>();
		Set<Integer> masters = new HashSet<>();
		for (int i = 0; masters.size() < 3; i++) {
			String job = prefix + i;
			if (masters.add(masterPort(SlotHash.getSlot(backend.leaseKey(job))))) {
				LeaseRequest request = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(),
						Duration.ofSeconds(1), slot)
					.withPolicy(policy, null);
				AcquireResult result = backend.tryAcquire(request);
				assertThat(result.run()).isEqualTo(new SlotRun(slot, 1, RunState.RUNNING));
				jobs.put(job, policy);
			}
		}
		List<String> names = List.copyOf(jobs.keySet());
		await().atMost(Duration.ofSeconds(10)).until(() -> backend.findPending(jobs).size() == 3);
		for (String job : names) {
			LeaseRequest recovery = LeaseRequest.recovery(job, "node-b", UUID.randomUUID().toString(), TTL, policy);
			assertThat(backend.tryAcquire(recovery).isAcquired())
				.as("the first recovery claim of a run still recorded as running only marks it")
				.isFalse();
			AtomicReference<AcquireResult> taken = new AtomicReference<>();
			// the recovery grace is a quarter of the TTL (7.5 s) after the mark
			await().atMost(TTL).until(() -> {
				taken.set(backend.tryAcquire(recovery));
				return taken.get().isAcquired();
			});
			AcquireResult result = taken.get();
			assertThat(result.run()).isEqualTo(new SlotRun(slot, 1, RunState.RUNNING));
			HeldLease lease = HeldLease.of(recovery, result.fencingToken());
			OptionalLong fence = backend.startRun(lease, slot, 2);
			assertThat(fence).isPresent();
			// the completion carries the fencing token of the run it ends
			backend.release(new HeldLease(job, "node-b", recovery.leaseToken(), fence.getAsLong(), slot), Duration.ZERO,
					RunCompletion.succeeded());
			RunRecord run = new RunRecord(job, slot, 2, fence.getAsLong(), "node-b", RunTrigger.RECOVERY,
					RunState.SUCCEEDED, Instant.ofEpochMilli(1000), Instant.ofEpochMilli(2000), null);
			backend.runLedger().record(run, 10);
			assertThat(backend.runLedger().history(job, 10)).containsExactly(run);
		}
		assertThat(backend.findPending(jobs)).isEmpty();
		assertThat(backend.runLedger().lastSuccess(names)).containsOnlyKeys(names);
	}

	@Test
	@Order(2)
	void oneDeadMasterLeavesTheOtherMastersLeasesRenewedOrLost() throws Exception {
		RedisLeaseBackend backend = new RedisLeaseBackend(new RedissonScriptExecutor(this.redisson));
		Map<Integer, Integer> portBySlotOwner = new HashMap<>();
		masterPort(0);
		String prefix = "cluster-" + UUID.randomUUID().toString().substring(0, 8) + "-";
		// one lease on each master, and a second one on the first master that another
		// node takes over
		List<HeldLease> leases = new ArrayList<>();
		HeldLease takenOver = null;
		for (int i = 0; portBySlotOwner.size() < 3 || takenOver == null; i++) {
			String job = prefix + i;
			int port = masterPort(SlotHash.getSlot(backend.leaseKey(job)));
			boolean second = portBySlotOwner.containsKey(port);
			if (second && (takenOver != null || port != this.ports.get(0))) {
				continue;
			}
			LeaseRequest request = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), TTL, null);
			AcquireResult result = backend.tryAcquire(request);
			assertThat(result.isAcquired()).isTrue();
			HeldLease lease = HeldLease.of(request, result.fencingToken());
			leases.add(lease);
			if (second) {
				takenOver = lease;
			}
			portBySlotOwner.put(port, portBySlotOwner.getOrDefault(port, 0) + 1);
		}
		assertThat(backend.renew(leases, TTL)).hasSize(4);
		assertThat(backend.forceRelease(takenOver.jobName())).isTrue();
		int dead = this.ports.get(2);
		this.servers.get(2).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		List<String> onDead = leases.stream()
			.filter((lease) -> masterPortOrMinusOne(backend, lease) == dead)
			.map(HeldLease::leaseToken)
			.toList();
		List<String> onLive = new ArrayList<>();
		for (HeldLease lease : leases) {
			if (!onDead.contains(lease.leaseToken()) && lease != takenOver) {
				onLive.add(lease.leaseToken());
			}
		}
		HeldLease lost = takenOver;
		assertThat(onDead).hasSize(1);
		assertThatExceptionOfType(PartialRenewalException.class).isThrownBy(() -> backend.renew(leases, TTL))
			.satisfies((ex) -> {
				assertThat(ex.getRenewed()).containsExactlyInAnyOrderElementsOf(onLive);
				assertThat(ex.getLost()).containsExactly(lost.leaseToken());
			});
	}

	private int masterPortOrMinusOne(RedisLeaseBackend backend, HeldLease lease) {
		try {
			return masterPort(SlotHash.getSlot(backend.leaseKey(lease.jobName())));
		}
		catch (Exception ex) {
			return -1;
		}
	}

	/**
	 * The port of the master that serves a hash slot, as the first node's CLUSTER SLOTS
	 * tells it (read before any master is stopped, and cached).
	 */
	private final Map<Integer, Integer> slotOwners = new HashMap<>();

	private int masterPort(int slot) throws Exception {
		if (this.slotOwners.isEmpty()) {
			for (int port : this.ports) {
				for (String line : cli(port, "cluster", "nodes").split("\n")) {
					String[] fields = line.split(" ");
					if (fields.length > 8 && fields[2].contains("myself") && fields[2].contains("master")) {
						for (int f = 8; f < fields.length; f++) {
							String[] range = fields[f].split("-");
							int from = Integer.parseInt(range[0]);
							int to = (range.length > 1) ? Integer.parseInt(range[1]) : from;
							this.slotOwners.put(from * 100000 + to, port);
						}
					}
				}
			}
		}
		for (Map.Entry<Integer, Integer> entry : this.slotOwners.entrySet()) {
			int from = entry.getKey() / 100000;
			int to = entry.getKey() % 100000;
			if (slot >= from && slot <= to) {
				return entry.getValue();
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	/**
	 * Send one command to a node and return its reply as text, as {@code redis-cli} would
	 * print it ({@code ""} when the node does not answer).
	 */
	private static String cli(int port, String... args) {
		return RedisProcesses.cli(port, args);
	}

	/**
	 * A free port whose cluster bus port (the port plus 10000) is free too.
	 */
	private int freePort() throws IOException {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port;
			try (ServerSocket socket = new ServerSocket(0)) {
				port = socket.getLocalPort();
			}
			if (port + 10000 <= 65535 && !this.ports.contains(port) && isFree(port + 10000)) {
				return port;
			}
		}
		throw new IllegalStateException("No free port pair for a Redis Cluster node");
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port)) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
