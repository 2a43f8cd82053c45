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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.NodePresence;
import io.github.clustersingleton.RunCompletion;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claims index {@code <prefix>:claims} that a first claim of a slot updates and the
 * preferred-node sweep reads, through both clients, on a Redis server of this class's own
 * (so that {@code INFO commandstats} counts only this class's commands): what a claim
 * writes into it and what a refused claim does not, the sweep's answers from it, its
 * fallbacks (a server without {@code ZMSCORE}, a Redis Cluster), and the commands one
 * claim and one release run inside their scripts.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisClaimsIndexTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private LocalRedisServers server;

	private LettuceConnectionFactory lettuce;

	private RedissonClient redisson;

	private StringRedisTemplate admin;

	private String prefix;

	@BeforeAll
	void startServer() throws Exception {
		this.server = new LocalRedisServers(1);
		int port = this.server.port(0);
		this.lettuce = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		this.lettuce.afterPropertiesSet();
		this.lettuce.start();
		this.admin = new StringRedisTemplate(this.lettuce);
		Config config = new Config();
		config.setNettyThreads(4);
		config.useSingleServer()
			.setAddress("redis://127.0.0.1:" + port)
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(4)
			.setSubscriptionConnectionMinimumIdleSize(0);
		this.redisson = Redisson.create(config);
	}

	@AfterAll
	void stopServer() {
		if (this.redisson != null) {
			this.redisson.shutdown();
		}
		if (this.lettuce != null) {
			this.lettuce.destroy();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

	@BeforeEach
	void newPrefix() {
		this.prefix = "cs-index-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private RedisScriptExecutor executor(String client) {
		return switch (client) {
			case "lettuce" -> new SpringDataRedisScriptExecutor(this.lettuce);
			case "redisson" -> new RedissonScriptExecutor(this.redisson);
			default -> throw new IllegalArgumentException(client);
		};
	}

	private RedisLeaseBackend backend(String client) {
		RedisLeaseBackend backend = new RedisLeaseBackend(executor(client), this.prefix);
		backend.initialize();
		return backend;
	}

	private static NodePresence presence(RedisLeaseBackend backend) {
		return backend.presence().orElseThrow();
	}

	private static Instant slot(int minutesAgo) {
		return Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(minutesAgo));
	}

	private static LeaseRequest request(String job, String owner, Instant slot) {
		return new LeaseRequest(job, owner, UUID.randomUUID().toString(), TTL, slot);
	}

	private static HeldLease acquire(RedisLeaseBackend backend, LeaseRequest request) {
		AcquireResult result = backend.tryAcquire(request);
		assertThat(result.outcome()).isEqualTo(Outcome.ACQUIRED);
		return HeldLease.of(request, result.fencingToken());
	}

	private String claims() {
		return this.prefix + ":claims";
	}

	private Long score(String job) {
		Double score = this.admin.opsForZSet().score(claims(), job);
		return (score != null) ? score.longValue() : null;
	}

	private String lastSlot(String job) {
		return (String) this.admin.opsForHash().get("{" + this.prefix + ":" + job + "}:meta", "last_slot");
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "redisson" })
	void aFirstClaimOfASlotScoresTheJobWithTheSlotItWroteIntoLastSlot(String client) {
		RedisLeaseBackend backend = backend(client);
		Instant s1 = slot(3);
		Instant s2 = slot(2);
		HeldLease first = acquire(backend, request("job", "node-a", s1));
		assertThat(score("job")).isEqualTo(s1.toEpochMilli());
		assertThat(lastSlot("job")).isEqualTo(Long.toString(s1.toEpochMilli()));
		backend.release(first, Duration.ZERO, RunCompletion.succeeded());
		assertThat(score("job")).as("a release leaves it").isEqualTo(s1.toEpochMilli());
		HeldLease second = acquire(backend,
				request("job", "node-b", s2).withPolicy(new ClaimPolicy(true, true, 3, true), s1));
		assertThat(score("job")).isEqualTo(s2.toEpochMilli());
		backend.release(second, Duration.ZERO, RunCompletion.succeeded());
		// a claim without a slot (a direct run) does not move last_slot, nor the index
		HeldLease direct = acquire(backend, request("job", "node-c", null));
		assertThat(score("job")).isEqualTo(s2.toEpochMilli());
		backend.release(direct, Duration.ZERO);
		// an index that lags behind (a claim by a version that did not write it) is set
		// to the slot of the next claim
		this.admin.opsForZSet().add(claims(), "job", 0);
		Instant s3 = slot(1);
		acquire(backend, request("job", "node-d", s3));
		assertThat(score("job")).isEqualTo(s3.toEpochMilli());
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "redisson" })
	void aRefusedClaimWritesNothingToTheIndex(String client) {
		RedisLeaseBackend backend = backend(client);
		Instant s1 = slot(3);
		HeldLease held = acquire(backend, request("job", "node-a", s1));
		// held: the live lease refuses the claim of a later slot
		assertThat(backend.tryAcquire(request("job", "node-b", slot(2))).outcome()).isEqualTo(Outcome.HELD);
		assertThat(score("job")).isEqualTo(s1.toEpochMilli());
		backend.release(held, Duration.ZERO, RunCompletion.succeeded());
		// an index lagging behind last_slot: a claim of a done slot leaves it as it is
		this.admin.opsForZSet().add(claims(), "job", 7);
		assertThat(backend.tryAcquire(request("job", "node-b", s1)).outcome()).isEqualTo(Outcome.SLOT_DONE);
		assertThat(backend.tryAcquire(request("job", "node-b", s1.minusSeconds(60))).outcome())
			.isEqualTo(Outcome.SLOT_DONE);
		// a slot ahead of the server's clock
		assertThat(backend.tryAcquire(request("job", "node-b", Instant.now().plus(Duration.ofHours(1)))).outcome())
			.isEqualTo(Outcome.CLOCK_SKEW);
		// a recovery claim with nothing pending
		AcquireResult recovery = backend.tryAcquire(LeaseRequest.recovery("job", "node-b", UUID.randomUUID().toString(),
				TTL, new ClaimPolicy(true, true, 3, false)));
		assertThat(recovery.isAcquired()).isFalse();
		assertThat(score("job")).isEqualTo(7);
		// paused, the job and every job
		JobControls controls = backend.controls().orElseThrow();
		controls.pause("job", "ops", null);
		assertThat(backend.tryAcquire(request("job", "node-b", slot(2))).outcome()).isEqualTo(Outcome.PAUSED);
		controls.resume("job", true);
		controls.pause(null, "ops", null);
		assertThat(backend.tryAcquire(request("job", "node-b", slot(2))).outcome()).isEqualTo(Outcome.PAUSED);
		assertThat(backend.tryAcquire(request("unseen", "node-b", slot(2))).outcome()).isEqualTo(Outcome.PAUSED);
		controls.resume(null, true);
		assertThat(score("job")).isEqualTo(7);
		assertThat(score("unseen")).isNull();
		Instant s2 = slot(2);
		assertThat(backend.tryAcquire(request("job", "node-b", s2)).isAcquired()).isTrue();
		assertThat(score("job")).isEqualTo(s2.toEpochMilli());
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "redisson" })
	void theSweepReadsTheIndexWithOneZmscoreForAllJobs(String client) {
		RedisLeaseBackend backend = backend(client);
		Instant s1 = slot(3);
		Instant s2 = slot(2);
		List<String> jobs = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			String job = "job-" + i;
			jobs.add(job);
			Instant claimed = (i % 3 == 0) ? s1 : (i % 3 == 1) ? s2 : null;
			if (claimed != null) {
				backend.release(acquire(backend, request(job, "node-a", claimed)), Duration.ZERO,
						RunCompletion.succeeded());
			}
		}
		jobs.add("never-seen");
		Set<String> atS1 = new HashSet<>();
		Set<String> atS2 = new HashSet<>();
		for (int i = 0; i < 50; i++) {
			if (i % 3 != 2) {
				atS1.add("job-" + i);
			}
			if (i % 3 == 1) {
				atS2.add("job-" + i);
			}
		}
		Map<String, Long> before = commandStats();
		assertThat(presence(backend).claimedSince(jobs, s1)).isEqualTo(atS1);
		Map<String, Long> used = sinceBefore(before);
		assertThat(used).containsEntry("zmscore", 1L).doesNotContainKey("hget");
		// more jobs than one call carries: one call per 1000 jobs
		List<String> many = new ArrayList<>(jobs);
		for (int i = 0; i < 1500; i++) {
			many.add("unclaimed-" + i);
		}
		before = commandStats();
		assertThat(presence(backend).claimedSince(many, s1)).isEqualTo(atS1);
		assertThat(sinceBefore(before)).containsEntry("zmscore", 2L).doesNotContainKey("hget");
		assertThat(presence(backend).claimedSince(jobs, s2)).isEqualTo(atS2);
		assertThat(presence(backend).claimedSince(jobs, s2.plusSeconds(60))).isEmpty();
		// the answer is the index's, not the meta hashes': a job whose last_slot was
		// raised without the index (by another script), or that is left out of it, is
		// claimed again, and that claim is refused
		this.admin.opsForHash().put("{" + this.prefix + ":job-2}:meta", "last_slot", Long.toString(s2.toEpochMilli()));
		this.admin.opsForZSet().remove(claims(), "job-0");
		assertThat(presence(backend).claimedSince(List.of("job-0", "job-1", "job-2"), s1)).containsExactly("job-1");
		assertThat(backend.tryAcquire(request("job-2", "node-b", s2)).outcome()).isEqualTo(Outcome.SLOT_DONE);
		assertThat(backend.tryAcquire(request("job-0", "node-b", s1)).outcome()).isEqualTo(Outcome.SLOT_DONE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "redisson" })
	void whateverRunsTheIndexNeverSaysClaimedForASlotAfterLastSlot(String client) {
		RedisLeaseBackend backend = backend(client);
		NodePresence presence = presence(backend);
		JobControls controls = backend.controls().orElseThrow();
		long seed = System.nanoTime();
		Random random = new Random(seed);
		List<String> jobs = List.of("a", "b", "c");
		Map<String, HeldLease> held = new HashMap<>();
		ClaimPolicy active = new ClaimPolicy(true, true, 3, true);
		for (int step = 0; step < 150; step++) {
			String job = jobs.get(random.nextInt(jobs.size()));
			Instant slot = slot(random.nextInt(8));
			HeldLease lease = held.get(job);
			switch (random.nextInt(6)) {
				case 0, 1 -> {
					LeaseRequest request = request(job, "node-" + step, slot);
					if (random.nextBoolean()) {
						request = request.withPolicy(active, slot.minus(Duration.ofMinutes(1)));
					}
					AcquireResult result = backend.tryAcquire(request);
					if (result.isAcquired()) {
						held.put(job, HeldLease.of(request, result.fencingToken()));
						assertThat(presence.claimedSince(List.of(job), slot)).containsExactly(job);
					}
				}
				case 2 -> {
					if (lease != null) {
						backend.release(held.remove(job), Duration.ZERO,
								random.nextBoolean() ? RunCompletion.succeeded() : RunCompletion.failed(Duration.ZERO));
					}
				}
				case 3 -> {
					if (lease != null) {
						backend.startRun(lease, slot, 1 + random.nextInt(3));
					}
				}
				case 4 -> backend
					.tryAcquire(LeaseRequest.recovery(job, "node-" + step, UUID.randomUUID().toString(), TTL, active));
				default -> {
					controls.pause(job, "ops", null);
					controls.resume(job, random.nextBoolean());
					if (random.nextBoolean() && backend.forceRelease(job)) {
						held.remove(job);
					}
				}
			}
			for (String each : jobs) {
				String last = lastSlot(each);
				Long score = score(each);
				assertThat(score == null || (last != null && score <= Long.parseLong(last)))
					.as("seed %d, step %d, job %s: score %s, last_slot %s", seed, step, each, score, last)
					.isTrue();
			}
			Instant swept = slot(random.nextInt(8));
			for (String claimed : presence.claimedSince(jobs, swept)) {
				assertThat(Long.parseLong(lastSlot(claimed))).as("seed %d, step %d", seed, step)
					.isGreaterThanOrEqualTo(swept.toEpochMilli());
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "redisson" })
	void withoutZmscoreTheSweepReadsTheMetaHashes(String client) {
		RedisLeaseBackend backend = backend(client);
		Instant s1 = slot(3);
		Instant s2 = slot(2);
		// a claims key ZMSCORE refuses, as a server before Redis 6.2 refuses the command
		this.admin.opsForValue().set(claims(), "not a sorted set");
		HeldLease lease = acquire(backend, request("job", "node-a", s1));
		assertThat(this.admin.opsForValue().get(claims())).as("the index write is skipped")
			.isEqualTo("not a sorted set");
		backend.release(lease, Duration.ZERO, RunCompletion.succeeded());
		Map<String, Long> before = commandStats();
		assertThat(presence(backend).claimedSince(List.of("job", "other"), s1)).containsExactly("job");
		assertThat(sinceBefore(before)).containsEntry("hget", 2L);
		assertThat(presence(backend).claimedSince(List.of("job", "other"), s2)).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "redisson" })
	void inARedisClusterClaimsWriteNoIndexAndTheSweepReadsTheMetaHashesPerSlot(String client) {
		CrossSlotRefusingExecutor cluster = new CrossSlotRefusingExecutor(executor(client));
		RedisLeaseBackend clustered = new RedisLeaseBackend(cluster, this.prefix);
		Instant s1 = slot(3);
		List<String> jobs = new ArrayList<>();
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; slots.size() < 3; i++) {
			String job = "cluster-" + i;
			if (slots.add(SlotHash.getSlot(clustered.metaKey(job)))) {
				jobs.add(job);
			}
		}
		// the sweep is the first call over several keys: refused once, then per slot
		assertThat(presence(clustered).claimedSince(jobs, s1)).isEmpty();
		assertThat(cluster.refused).hasValue(1);
		clustered.release(acquire(clustered, request(jobs.get(0), "node-a", s1)), Duration.ZERO,
				RunCompletion.succeeded());
		clustered.release(acquire(clustered, request(jobs.get(1), "node-a", s1.plusSeconds(60))), Duration.ZERO,
				RunCompletion.succeeded());
		assertThat(cluster.refused).as("no call over several slots after the first").hasValue(1);
		assertThat(this.admin.hasKey(claims())).isFalse();
		cluster.calls.set(0);
		assertThat(presence(clustered).claimedSince(jobs, s1)).containsExactlyInAnyOrder(jobs.get(0), jobs.get(1));
		assertThat(cluster.calls).as("one call per slot").hasValue(3);
		assertThat(presence(clustered).claimedSince(jobs, s1.plusSeconds(60))).containsExactly(jobs.get(1));
		// a backend whose first call over several keys is a claim: the claim is sent
		// again without the index
		CrossSlotRefusingExecutor other = new CrossSlotRefusingExecutor(executor(client));
		RedisLeaseBackend claiming = new RedisLeaseBackend(other, this.prefix);
		claiming.release(acquire(claiming, request(jobs.get(2), "node-b", s1)), Duration.ZERO,
				RunCompletion.succeeded());
		assertThat(other.refused).hasValue(1);
		assertThat(this.admin.hasKey(claims())).isFalse();
		assertThat(presence(claiming).claimedSince(jobs, s1)).containsExactlyInAnyOrderElementsOf(jobs);
		assertThat(other.refused).hasValue(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "redisson" })
	void oneClaimAndOneReleaseRunTheseCommandsInsideTheirScripts(String client) {
		RedisLeaseBackend backend = backend(client);
		// a job claimed and run before, as in every tick after the first
		backend.release(acquire(backend, request("job", "node-a", slot(3))), Duration.ZERO, RunCompletion.succeeded());
		Map<String, Long> before = commandStats();
		HeldLease lease = acquire(backend, request("job", "node-a", slot(2)));
		Map<String, Long> claim = sinceBefore(before);
		assertThat(insideScripts(claim)).isEqualTo(
				Map.of("time", 1L, "hmget", 1L, "hexists", 1L, "exists", 1L, "hset", 2L, "pexpireat", 1L, "zadd", 1L));
		before = commandStats();
		backend.release(lease, Duration.ZERO, RunCompletion.succeeded());
		Map<String, Long> release = sinceBefore(before);
		// the lease is not read: the meta hash says no claim has taken the job since
		assertThat(insideScripts(release)).isEqualTo(Map.of("hmget", 1L, "hset", 1L, "del", 1L));
		// a job never claimed: the same
		before = commandStats();
		lease = acquire(backend, request("fresh", "node-a", slot(2)));
		assertThat(insideScriptsSince(before)).isEqualTo(insideScripts(claim));
		before = commandStats();
		backend.release(lease, Duration.ZERO, RunCompletion.succeeded());
		assertThat(insideScriptsSince(before)).isEqualTo(insideScripts(release));
		// the fields a claim or a release removes, when there are some
		String meta = "{" + this.prefix + ":job}:meta";
		this.admin.opsForHash().put(meta, "retry_at", "1");
		this.admin.opsForHash().put(meta, "recover_at", "1");
		before = commandStats();
		lease = acquire(backend, request("job", "node-a", slot(1)));
		assertThat(insideScriptsSince(before)).containsEntry("hdel", 1L);
		assertThat(this.admin.opsForHash().hasKey(meta, "retry_at")).isFalse();
		assertThat(this.admin.opsForHash().hasKey(meta, "recover_at")).isFalse();
		this.admin.opsForHash().put(meta, "recover_at", "1");
		before = commandStats();
		backend.release(lease, Duration.ZERO, RunCompletion.succeeded());
		assertThat(insideScriptsSince(before)).containsEntry("hdel", 1L);
		assertThat(this.admin.opsForHash().hasKey(meta, "recover_at")).isFalse();
		assertThat(this.admin.opsForHash().get(meta, "run_state")).isEqualTo("succeeded");
		// a lease kept for lockAtLeastFor is read by a completion sent again without it,
		// and stays
		lease = acquire(backend, request("job", "node-a", slot(0)));
		backend.release(lease, Duration.ofMinutes(1), RunCompletion.succeeded());
		before = commandStats();
		backend.release(lease, Duration.ZERO, RunCompletion.succeeded());
		assertThat(insideScriptsSince(before)).containsEntry("hmget", 2L).doesNotContainKey("del");
		assertThat(this.admin.hasKey("{" + this.prefix + ":job}:lease")).isTrue();
	}

	private Map<String, Long> commandStats() {
		return RedisCommandStats.read(this.admin);
	}

	private Map<String, Long> sinceBefore(Map<String, Long> before) {
		return RedisCommandStats.difference(before, commandStats());
	}

	private Map<String, Long> insideScriptsSince(Map<String, Long> before) {
		return insideScripts(sinceBefore(before));
	}

	private static Map<String, Long> insideScripts(Map<String, Long> used) {
		return RedisCommandStats.insideScripts(used);
	}

}
