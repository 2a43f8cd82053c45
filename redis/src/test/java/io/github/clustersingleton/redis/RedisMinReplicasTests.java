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
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@code cluster-singleton.redis.min-replicas} against a real master and replica, through
 * Redisson and through Lettuce: with the replica up, grants work; with the replica
 * stopped (SIGSTOP), acquisitions, new runs and renewals fail cleanly and no lease is
 * left behind.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisMinReplicasTests {

	private static final Duration TTL = Duration.ofSeconds(4);

	private RedisProcesses processes;

	private int master;

	private int replica;

	private RedissonClient redisson;

	private LettuceConnectionFactory lettuce;

	@BeforeAll
	void startServers() throws Exception {
		this.processes = new RedisProcesses();
		try {
			this.master = this.processes.startServer(0);
			this.replica = this.processes.startServer(this.master);
			RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
			Config config = new Config();
			config.useSingleServer().setAddress("redis://127.0.0.1:" + this.master).setTimeout(3000);
			this.redisson = Redisson.create(config);
			this.lettuce = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", this.master));
			this.lettuce.afterPropertiesSet();
			this.lettuce.start();
		}
		catch (Exception ex) {
			stopServers();
			throw ex;
		}
	}

	@AfterAll
	void stopServers() {
		if (this.redisson != null) {
			this.redisson.shutdown();
		}
		if (this.lettuce != null) {
			this.lettuce.destroy();
		}
		this.processes.close();
	}

	Stream<String> clients() {
		return Stream.of("redisson", "lettuce");
	}

	private RedisLeaseBackend backend(String client) {
		return backend(client, Duration.ofMillis(500));
	}

	private RedisLeaseBackend backend(String client, Duration replicaTimeout) {
		RedisScriptExecutor executor = client.equals("redisson") ? new RedissonScriptExecutor(this.redisson)
				: new SpringDataRedisScriptExecutor(this.lettuce);
		RedisLeaseBackend backend = new RedisLeaseBackend(executor, "min-replicas-" + UUID.randomUUID());
		backend.setMinReplicas(1, replicaTimeout);
		return backend;
	}

	private static LeaseRequest request(String job) {
		return new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), TTL,
				Instant.now().truncatedTo(ChronoUnit.SECONDS), LeaseRequest.DEFAULT_SLOT_TOLERANCE);
	}

	@ParameterizedTest
	@MethodSource("clients")
	void grantsWhileTheReplicaAcknowledges(String client) throws Exception {
		// A generous wait: on a loaded machine a healthy replica can take longer than the
		// 500 ms the refusal cases use to acknowledge, and this case is about the grant.
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
		RedisLeaseBackend backend = backend(client, Duration.ofSeconds(2));
		LeaseRequest request = request("job");
		AcquireResult result = backend.tryAcquire(request);
		assertThat(result.isAcquired()).isTrue();
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		assertThat(backend.renew(List.of(lease), TTL)).containsExactly(lease.leaseToken());
		assertThat(backend.startRun(lease, request.slot().plusSeconds(1), 1)).hasValue(result.fencingToken() + 1);
		// the replica has the lease
		assertThat(RedisProcesses.cli(this.replica, "HGET", backend.leaseKey("job"), "token").trim())
			.isEqualTo(lease.leaseToken());
		backend.release(lease, Duration.ZERO);
	}

	@ParameterizedTest
	@MethodSource("clients")
	void refusesAndReleasesWhileTheReplicaIsStopped(String client) throws Exception {
		RedisLeaseBackend backend = backend(client);
		LeaseRequest held = request("held");
		AcquireResult heldResult = backend.tryAcquire(held);
		assertThat(heldResult.isAcquired()).isTrue();
		HeldLease heldLease = HeldLease.of(held, heldResult.fencingToken());
		this.processes.signal(this.replica, "STOP");
		try {
			long start = System.nanoTime();
			assertThatIllegalStateException().isThrownBy(() -> backend.tryAcquire(request("job")))
				.withMessageContaining("min-replicas is 1");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
			assertThat(backend.describe("job")).hasValueSatisfying((info) -> assertThat(info.live()).isFalse());
			assertThatIllegalStateException()
				.isThrownBy(() -> backend.startRun(heldLease, held.slot().plusSeconds(1), 1));
			assertThat(backend.describe("held")).hasValueSatisfying((info) -> assertThat(info.live()).isFalse());
		}
		finally {
			this.processes.signal(this.replica, "CONT");
		}
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
		LeaseRequest again = request("job");
		awaitAcquired(() -> backend.tryAcquire(again));
	}

	@ParameterizedTest
	@MethodSource("clients")
	void renewalNotAcknowledgedIsNotARenewal(String client) throws Exception {
		RedisLeaseBackend backend = backend(client);
		LeaseRequest request = request("renewed");
		AcquireResult result = backend.tryAcquire(request);
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		this.processes.signal(this.replica, "STOP");
		try {
			assertThatIllegalStateException().isThrownBy(() -> backend.renew(Set.of(lease), TTL))
				.withMessageContaining("renewal");
		}
		finally {
			this.processes.signal(this.replica, "CONT");
		}
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
		backend.release(lease, Duration.ZERO);
	}

	@ParameterizedTest
	@MethodSource("clients")
	void completionNotAcknowledgedIsNotRecorded(String client) throws Exception {
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
		RedisLeaseBackend backend = backend(client, Duration.ofSeconds(2));
		LeaseRequest request = request("completed").withPolicy(new ClaimPolicy(true, false, 3, false), null);
		AcquireResult result = backend.tryAcquire(request);
		assertThat(result.isAcquired()).isTrue();
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		String metaKey = backend.metaKey("completed");
		assertThat(RedisProcesses.cli(this.replica, "HGET", metaKey, "run_state").trim()).isEqualTo("running");
		this.processes.signal(this.replica, "STOP");
		try {
			// the master alone has the end of the run: a failover now would bring it back
			// as running, so the completion must not count as recorded
			assertThatIllegalStateException()
				.isThrownBy(() -> backend.completeRun(lease, Duration.ZERO, RunCompletion.succeeded()))
				.withMessageContaining("min-replicas is 1");
		}
		finally {
			this.processes.signal(this.replica, "CONT");
		}
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
		// sent again once the replica is back: recorded, and the replica has it
		assertThat(backend.completeRun(lease, Duration.ZERO, RunCompletion.succeeded())).isTrue();
		assertThat(RedisProcesses.cli(this.replica, "HGET", metaKey, "run_state").trim()).isEqualTo("succeeded");
	}

	@ParameterizedTest
	@MethodSource("clients")
	void completionAcknowledgedIsOnTheReplicaWhenReported(String client) throws Exception {
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
		RedisLeaseBackend backend = backend(client, Duration.ofSeconds(2));
		LeaseRequest request = request("failed").withPolicy(new ClaimPolicy(true, true, 3, false), null);
		AcquireResult result = backend.tryAcquire(request);
		assertThat(result.isAcquired()).isTrue();
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		assertThat(backend.completeRun(lease, Duration.ZERO, RunCompletion.failed(Duration.ofMinutes(1)))).isTrue();
		// read on the replica right after the answer, with no wait: WAIT covered it
		assertThat(RedisProcesses.cli(this.replica, "HGET", backend.metaKey("failed"), "run_state").trim())
			.isEqualTo("failed");
		// a plain release waits for no replica: it still answers with the replica stopped
		LeaseRequest plain = request("plain");
		HeldLease plainLease = HeldLease.of(plain, backend.tryAcquire(plain).fencingToken());
		this.processes.signal(this.replica, "STOP");
		try {
			backend.release(plainLease, Duration.ZERO);
			assertThat(backend.describe("plain")).hasValueSatisfying((info) -> assertThat(info.live()).isFalse());
		}
		finally {
			this.processes.signal(this.replica, "CONT");
		}
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
	}

	/**
	 * Through the engine: a run whose end too few replicas acknowledged is not taken as
	 * recorded; the engine keeps its completion and sends it again until the replica has
	 * it.
	 */
	@ParameterizedTest
	@MethodSource("clients")
	void engineSendsAgainACompletionTheReplicaDidNotAcknowledge(String client) throws Throwable {
		RedisProcesses.waitForReplicas(this.master, 1, Duration.ofSeconds(20));
		RedisLeaseBackend backend = backend(client);
		JobDefinition job = JobDefinition.of("engine", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC))
			.withPolicies(new JobPolicies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO, null));
		Instant slot = Instant.now().truncatedTo(ChronoUnit.MINUTES);
		try (ClusterSingletonExecutor executor = new ClusterSingletonExecutor(backend,
				new ClusterSingletonExecutor.Settings("node-a", TTL, Duration.ofSeconds(1), true), Clock.systemUTC(),
				new ClusterSingletonListener() {
				})) {
			try {
				// the replica stops while the run is on: its end reaches the master only
				assertThat(executor.execute(job, slot, RunTrigger.SCHEDULED, () -> {
					this.processes.signal(this.replica, "STOP");
					return null;
				})).isTrue();
				assertThat(executor.undeliveredCompletions()).isEqualTo(1);
			}
			finally {
				this.processes.signal(this.replica, "CONT");
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> executor.undeliveredCompletions() == 0);
		}
		assertThat(RedisProcesses.cli(this.replica, "HGET", backend.metaKey("engine"), "run_state").trim())
			.isEqualTo("succeeded");
	}

	private static void awaitAcquired(Supplier<AcquireResult> acquire) throws InterruptedException {
		RuntimeException last = null;
		for (int i = 0; i < 50; i++) {
			try {
				if (acquire.get().isAcquired()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			Thread.sleep(100);
		}
		throw new AssertionError("not acquired after the replica came back", last);
	}

}
