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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialRenewalException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A real Redis Cluster of three masters with one replica each. With
 * {@code cluster-singleton.redis.min-replicas} the {@code WAIT} runs on the master of the
 * job's slot, so grants are acknowledged on every shard, and with one shard's replica
 * stopped (SIGSTOP) only that shard's grants and renewals are refused (Redisson only:
 * Spring Data Redis has no pipelines on a cluster connection, which the backend says). A
 * stopped replica does not keep its master from loading the scripts.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("failover")
class RedisClusterReplicasTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	private RedisProcesses processes;

	private List<Integer> masters;

	private RedissonClient redisson;

	private LettuceConnectionFactory lettuce;

	@BeforeAll
	void startCluster() throws Exception {
		this.processes = new RedisProcesses();
		try {
			this.masters = this.processes.startCluster(3, 1);
			Config config = new Config();
			config.setNettyThreads(4);
			ClusterServersConfig cluster = config.useClusterServers();
			this.masters.forEach((port) -> cluster.addNodeAddress("redis://127.0.0.1:" + port));
			cluster.setTimeout(3000).setRetryAttempts(0).setSlaveConnectionMinimumIdleSize(0);
			this.redisson = Redisson.create(config);
			this.lettuce = new LettuceConnectionFactory(
					new RedisClusterConfiguration(this.masters.stream().map((port) -> "127.0.0.1:" + port).toList()));
			this.lettuce.afterPropertiesSet();
			this.lettuce.start();
		}
		catch (Exception ex) {
			stopCluster();
			throw ex;
		}
	}

	@AfterAll
	void stopCluster() {
		if (this.redisson != null) {
			this.redisson.shutdown(0, 2, TimeUnit.SECONDS);
		}
		if (this.lettuce != null) {
			this.lettuce.destroy();
		}
		this.processes.close();
	}

	private RedisLeaseBackend backend(Duration replicaWait) {
		RedisLeaseBackend backend = new RedisLeaseBackend(new RedissonScriptExecutor(this.redisson),
				"min-replicas-" + UUID.randomUUID());
		backend.setMinReplicas(1, replicaWait);
		return backend;
	}

	private int masterOf(RedisLeaseBackend backend, String job) {
		return this.masters.get(RedisClusterSlots.slot(backend.leaseKey(job)) * 3 / RedisClusterSlots.SLOTS);
	}

	private int replicaOf(int master) {
		return this.processes.serverPorts().get(3 + this.masters.indexOf(master));
	}

	/**
	 * One job name per master, keyed by the master's port.
	 */
	private Map<Integer, String> jobOnEveryMaster(RedisLeaseBackend backend, String name) {
		Map<Integer, String> jobs = new LinkedHashMap<>();
		for (int i = 0; jobs.size() < 3; i++) {
			jobs.putIfAbsent(masterOf(backend, name + "-" + i), name + "-" + i);
		}
		return jobs;
	}

	private static LeaseRequest request(String job) {
		return new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), TTL,
				Instant.now().truncatedTo(ChronoUnit.SECONDS), LeaseRequest.DEFAULT_SLOT_TOLERANCE);
	}

	private static HeldLease acquire(RedisLeaseBackend backend, String job) {
		LeaseRequest request = request(job);
		AcquireResult result = backend.tryAcquire(request);
		assertThat(result.isAcquired()).as(job).isTrue();
		return HeldLease.of(request, result.fencingToken());
	}

	@Test
	void grantsAndRenewalsOnEveryShardAreAcknowledgedByItsReplica() throws Exception {
		for (int master : this.masters) {
			RedisProcesses.waitForReplicas(master, 1, Duration.ofSeconds(20));
		}
		// a generous wait: this case is about the grant, not about a slow machine
		RedisLeaseBackend backend = backend(Duration.ofSeconds(2));
		List<HeldLease> leases = new ArrayList<>();
		for (String job : jobOnEveryMaster(backend, "granted").values()) {
			leases.add(acquire(backend, job));
		}
		assertThat(backend.renew(leases, TTL)).hasSize(3);
		HeldLease first = leases.get(0);
		assertThat(backend.startRun(first, first.slot().plusSeconds(1), 1)).hasValue(first.fencingToken() + 1);
		leases.forEach((lease) -> backend.release(lease, Duration.ZERO));
	}

	@Test
	void aStoppedReplicaRefusesOnlyItsShardsGrantsAndRenewals() throws Exception {
		RedisLeaseBackend backend = backend(Duration.ofMillis(500));
		Map<Integer, String> held = jobOnEveryMaster(backend, "held");
		Map<Integer, HeldLease> leases = new LinkedHashMap<>();
		held.forEach((master, job) -> leases.put(master, acquire(backend, job)));
		Map<Integer, String> jobs = jobOnEveryMaster(backend, "job");
		int stoppedShard = this.masters.get(1);
		int replica = replicaOf(stoppedShard);
		this.processes.signal(replica, "STOP");
		try {
			assertThatIllegalStateException().isThrownBy(() -> backend.tryAcquire(request(jobs.get(stoppedShard))))
				.withMessageContaining("min-replicas is 1");
			assertThat(backend.describe(jobs.get(stoppedShard)))
				.hasValueSatisfying((info) -> assertThat(info.live()).isFalse());
			List<String> renewable = new ArrayList<>();
			for (int master : this.masters) {
				if (master != stoppedShard) {
					// the other shards still grant
					acquire(backend, jobs.get(master));
					renewable.add(leases.get(master).leaseToken());
				}
			}
			assertThatExceptionOfType(PartialRenewalException.class)
				.isThrownBy(() -> backend.renew(leases.values(), TTL))
				.satisfies((ex) -> {
					assertThat(ex.getRenewed()).containsExactlyInAnyOrderElementsOf(renewable);
					assertThat(ex.getLost()).isEmpty();
					assertThat(ex.getCause()).hasMessageContaining("min-replicas is 1");
				});
		}
		finally {
			this.processes.signal(replica, "CONT");
		}
		RedisProcesses.waitForReplicas(stoppedShard, 1, Duration.ofSeconds(20));
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptions()
			.until(() -> backend.tryAcquire(request(jobs.get(stoppedShard))).isAcquired());
	}

	@Test
	void aStoppedReplicaDoesNotKeepItsMasterFromLoadingTheScripts() throws Exception {
		RedisLeaseBackend backend = new RedisLeaseBackend(new RedissonScriptExecutor(this.redisson),
				"noscript-" + UUID.randomUUID());
		int master = this.masters.get(2);
		String job = jobOnEveryMaster(backend, "noscript").get(master);
		int replica = replicaOf(master);
		// the master lost its scripts (a restart, a failover to a replica that never had
		// them, SCRIPT FLUSH) while its replica does not answer
		assertThat(RedisProcesses.command(master, "SCRIPT", "FLUSH")).isEqualTo("OK");
		this.processes.signal(replica, "STOP");
		try {
			HeldLease lease = acquire(backend, job);
			assertThat(backend.describe(job)).hasValueSatisfying((info) -> assertThat(info.live()).isTrue());
			backend.release(lease, Duration.ZERO);
		}
		finally {
			this.processes.signal(replica, "CONT");
		}
		RedisProcesses.waitForReplicas(master, 1, Duration.ofSeconds(20));
	}

	@Test
	void springDataRedisOnAClusterSaysItCannotWaitForReplicas() {
		RedisLeaseBackend backend = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(this.lettuce),
				"min-replicas-" + UUID.randomUUID());
		backend.setMinReplicas(1, Duration.ofMillis(500));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> backend.tryAcquire(request("lettuce")))
			.withMessageContaining("use a RedissonClient");
	}

}
