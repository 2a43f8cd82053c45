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

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis backend's {@link JobControls} on a real Redis server, through both script
 * executors: what each control stores, and that the claim script checks the pause
 * atomically. Each run uses a key prefix of its own, so a pause of every job touches no
 * other test's keys.
 *
 * @author cluster-singleton contributors
 */
class RedisJobControlsTests {

	private static final Duration TTL = Duration.ofMinutes(1);

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class Redisson extends Scenarios {

		private RedissonClient redisson;

		@Override
		RedisScriptExecutor createExecutor(String host, int port) {
			Config config = new Config();
			config.setNettyThreads(4);
			config.useSingleServer().setAddress("redis://" + host + ":" + port).setConnectionMinimumIdleSize(1);
			this.redisson = org.redisson.Redisson.create(config);
			return new RedissonScriptExecutor(this.redisson);
		}

		@Override
		void closeExecutor() {
			this.redisson.shutdown();
		}

	}

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class Lettuce extends Scenarios {

		private LettuceConnectionFactory factory;

		@Override
		RedisScriptExecutor createExecutor(String host, int port) {
			this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
			this.factory.afterPropertiesSet();
			this.factory.start();
			return new SpringDataRedisScriptExecutor(this.factory);
		}

		@Override
		void closeExecutor() {
			this.factory.destroy();
		}

	}

	abstract static class Scenarios {

		private final String prefix = "cs-controls-" + UUID.randomUUID();

		private CountingRedisScriptExecutor executor;

		private RedisLeaseBackend backend;

		private JobControls controls;

		private StringRedisTemplate admin;

		private LettuceConnectionFactory adminFactory;

		abstract RedisScriptExecutor createExecutor(String host, int port);

		abstract void closeExecutor();

		@BeforeAll
		void createBackend() {
			URI url = URI.create(TestStores.redisUrl());
			this.executor = new CountingRedisScriptExecutor(createExecutor(url.getHost(), url.getPort()));
			this.backend = new RedisLeaseBackend(this.executor, this.prefix);
			this.controls = this.backend.controls().orElseThrow();
			this.adminFactory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(url.getHost(), url.getPort()));
			this.adminFactory.afterPropertiesSet();
			this.adminFactory.start();
			this.admin = new StringRedisTemplate(this.adminFactory);
		}

		@AfterAll
		void removeKeys() {
			Set<String> keys = new HashSet<>(this.executor.scan("*" + this.prefix + "*"));
			if (!keys.isEmpty()) {
				this.admin.delete(keys);
			}
			this.adminFactory.destroy();
			closeExecutor();
		}

		private String job() {
			return "job-" + UUID.randomUUID();
		}

		private Instant storeNow() {
			return Instant.ofEpochMilli(Long.parseLong(this.admin
				.execute((org.springframework.data.redis.core.RedisCallback<Long>) (c) -> c.serverCommands().time())
				.toString()));
		}

		private static Instant slotAt(Instant instant) {
			return instant.truncatedTo(ChronoUnit.SECONDS);
		}

		private AcquireResult claim(String job, Instant slot) {
			return this.backend.tryAcquire(new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), TTL, slot));
		}

		private AcquireResult claimAndRelease(String job, Instant slot) {
			String token = UUID.randomUUID().toString();
			LeaseRequest request = new LeaseRequest(job, "node-a", token, TTL, slot);
			AcquireResult result = this.backend.tryAcquire(request);
			if (result.isAcquired()) {
				this.backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
			}
			return result;
		}

		@Test
		void claimOfPausedJobIsRefusedAndWritesNothing() {
			String job = job();
			Instant now = storeNow();
			assertThat(claimAndRelease(job, slotAt(now).minusSeconds(60)).isAcquired()).isTrue();
			LeaseInfo before = this.backend.describe(job).orElseThrow();
			this.controls.pause(job, "alice", "incident 42");
			AcquireResult refused = claim(job, slotAt(now));
			assertThat(refused.outcome()).isEqualTo(AcquireResult.Outcome.PAUSED);
			assertThat(refused.lastSlot()).isEqualTo(slotAt(now).minusSeconds(60));
			assertThat(this.backend.describe(job).orElseThrow()).isEqualTo(before);
			JobControl control = this.controls.read(List.of(job)).get(job);
			assertThat(control.paused()).isTrue();
			assertThat(control.pausedBy()).isEqualTo("alice");
			assertThat(control.pauseReason()).isEqualTo("incident 42");
			assertThat(control.pausedAt()).isBetween(now.minusSeconds(5), now.plusSeconds(5));
		}

		@Test
		void claimWithoutSlotAndRecoveryClaimOfPausedJobAreRefused() {
			String job = job();
			Instant now = storeNow();
			ClaimPolicy policy = new ClaimPolicy(true, false, 3, false);
			LeaseRequest first = new LeaseRequest(job, "node-a", "t1", Duration.ofMillis(200), slotAt(now))
				.withPolicy(policy, null);
			assertThat(this.backend.tryAcquire(first).isAcquired()).isTrue();
			// the run is left running; its lease expires
			this.admin.delete(this.backend.leaseKey(job));
			this.controls.pause(job, "alice", null);
			AcquireResult recovery = this.backend.tryAcquire(LeaseRequest.recovery(job, "node-b", "t2", TTL, policy));
			assertThat(recovery.outcome()).isEqualTo(AcquireResult.Outcome.PAUSED);
			assertThat(this.admin.opsForHash().hasKey(this.backend.metaKey(job), "recover_at")).isFalse();
			assertThat(this.backend.tryAcquire(new LeaseRequest(job, "node-b", "t3", TTL, null)).outcome())
				.isEqualTo(AcquireResult.Outcome.PAUSED);
			assertThat(this.backend.findPending(Map.of(job, policy))).containsExactly(job);
		}

		@Test
		void resumeWithoutCatchUpSkipsTheSlotsThatPassed() {
			String job = job();
			Instant now = storeNow();
			Instant old = slotAt(now).minusSeconds(600);
			assertThat(claimAndRelease(job, old).isAcquired()).isTrue();
			this.controls.pause(job, "alice", null);
			this.controls.resume(job, false);
			LeaseInfo info = this.backend.describe(job).orElseThrow();
			assertThat(info.lastSlot()).isAfterOrEqualTo(now);
			// no live lease: the current run is gone, so nothing is left to recover
			assertThat(this.admin.opsForHash().hasKey(this.backend.metaKey(job), "run_slot")).isFalse();
			assertThat(claim(job, slotAt(now).minusSeconds(1)).outcome()).isEqualTo(AcquireResult.Outcome.SLOT_DONE);
			assertThat(this.controls.read(List.of(job)).get(job).paused()).isFalse();
			assertThat(claim(job, slotAt(storeNow()).plusSeconds(1)).isAcquired()).isTrue();
		}

		@Test
		void resumeWithCatchUpLeavesTheLastSlot() {
			String job = job();
			Instant old = slotAt(storeNow()).minusSeconds(600);
			assertThat(claimAndRelease(job, old).isAcquired()).isTrue();
			this.controls.pause(job, "alice", null);
			this.controls.resume(job, true);
			assertThat(this.backend.describe(job).orElseThrow().lastSlot()).isEqualTo(old);
			assertThat(claim(job, old.plusSeconds(60)).isAcquired()).isTrue();
		}

		@Test
		void resumeOfJobNotPausedChangesNothing() {
			String job = job();
			Instant old = slotAt(storeNow()).minusSeconds(600);
			assertThat(claimAndRelease(job, old).isAcquired()).isTrue();
			this.controls.resume(job, false);
			assertThat(this.backend.describe(job).orElseThrow().lastSlot()).isEqualTo(old);
		}

		@Test
		void pauseAllRefusesExistingAndUnseenJobsAndResumeAllClearsEveryPause() {
			String existing = job();
			String pausedAlone = job();
			String unseen = job();
			Instant now = storeNow();
			Instant old = slotAt(now).minusSeconds(600);
			assertThat(claimAndRelease(existing, old).isAcquired()).isTrue();
			assertThat(claimAndRelease(pausedAlone, old).isAcquired()).isTrue();
			this.controls.pause(pausedAlone, "bob", "alone");
			this.controls.pause(null, "alice", "maintenance");
			try {
				assertThat(claim(existing, slotAt(now)).outcome()).isEqualTo(AcquireResult.Outcome.PAUSED);
				assertThat(claim(unseen, slotAt(now)).outcome()).isEqualTo(AcquireResult.Outcome.PAUSED);
				assertThat(this.backend.describe(unseen)).isEmpty();
				Map<String, JobControl> read = this.controls.read(List.of(existing, pausedAlone, unseen));
				assertThat(read.get(existing).paused()).isTrue();
				assertThat(read.get(existing).pausedBy()).isEqualTo("alice");
				assertThat(read.get(existing).pauseReason()).isEqualTo("maintenance");
				assertThat(read.get(unseen).paused()).isTrue();
				assertThat(read.get(pausedAlone).pausedBy()).isEqualTo("bob");
				// resuming one job while every job is paused leaves it paused
				this.controls.resume(existing, false);
				assertThat(claim(existing, slotAt(now)).outcome()).isEqualTo(AcquireResult.Outcome.PAUSED);
				assertThat(this.backend.describe(existing).orElseThrow().lastSlot()).isEqualTo(old);
			}
			finally {
				this.controls.resume(null, false);
			}
			Map<String, JobControl> read = this.controls.read(List.of(existing, pausedAlone, unseen));
			assertThat(read.values()).noneMatch(JobControl::paused);
			assertThat(this.backend.describe(existing).orElseThrow().lastSlot()).isAfterOrEqualTo(now);
			assertThat(this.backend.describe(pausedAlone).orElseThrow().lastSlot()).isAfterOrEqualTo(now);
			assertThat(claim(unseen, slotAt(now)).isAcquired()).isTrue();
			assertThat(claim(existing, slotAt(storeNow()).plusSeconds(1)).isAcquired()).isTrue();
		}

		@Test
		void startRunUnderAHeldLeaseIsRefusedWhileTheJobIsPaused() {
			String job = job();
			Instant old = slotAt(storeNow()).minusSeconds(600);
			LeaseRequest request = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), TTL, old)
				.withPolicy(new ClaimPolicy(false, true, 3, true), null);
			AcquireResult acquired = this.backend.tryAcquire(request);
			assertThat(acquired.isAcquired()).isTrue();
			HeldLease lease = HeldLease.of(request, acquired.fencingToken());
			// the retry of the current slot and a later slot start while not paused
			assertThat(this.backend.startRun(lease, old, 2)).isPresent();
			assertThat(this.backend.startRun(lease, old.plusSeconds(60), 1)).isPresent();
			this.controls.pause(job, "alice", null);
			LeaseInfo paused = this.backend.describe(job).orElseThrow();
			assertThat(this.backend.startRun(lease, old.plusSeconds(120), 1)).isEmpty();
			assertThat(this.backend.describe(job).orElseThrow()).isEqualTo(paused);
			this.controls.resume(job, true);
			assertThat(this.backend.startRun(lease, old.plusSeconds(120), 1)).isPresent();
			this.controls.pause(null, "alice", null);
			try {
				assertThat(this.backend.startRun(lease, old.plusSeconds(180), 1)).isEmpty();
				// the mark that the pause of every job left on the job refuses it too
				new ControlResumeCall(new RedisKeys(this.prefix).controls(), null, false, true).send(this.executor,
						new RedisKeys(this.prefix));
				assertThat(this.backend.startRun(lease, old.plusSeconds(180), 1)).isEmpty();
			}
			finally {
				this.controls.resume(null, true);
			}
			assertThat(this.backend.startRun(lease, old.plusSeconds(180), 1)).isPresent();
			this.backend.release(lease, Duration.ZERO, RunCompletion.none());
		}

		@Test
		void startRunOfASlotBeforeAResumeWithoutCatchUpIsRefused() {
			String job = job();
			Instant now = storeNow();
			Instant old = slotAt(now).minusSeconds(600);
			LeaseRequest request = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), TTL, old)
				.withPolicy(new ClaimPolicy(false, true, 3, true), null);
			AcquireResult acquired = this.backend.tryAcquire(request);
			assertThat(acquired.isAcquired()).isTrue();
			HeldLease lease = HeldLease.of(request, acquired.fencingToken());
			this.controls.pause(job, "alice", null);
			this.controls.resume(job, false);
			assertThat(this.backend.describe(job).orElseThrow().lastSlot()).isAfterOrEqualTo(now);
			// the current run's retry and a slot that passed while paused are refused
			assertThat(this.backend.startRun(lease, old, 2)).isEmpty();
			assertThat(this.backend.startRun(lease, old.plusSeconds(60), 1)).isEmpty();
			Instant next = slotAt(storeNow()).plusSeconds(1);
			OptionalLong started = this.backend.startRun(lease, next, 1);
			assertThat(started).isPresent();
			// the retry of the slot now current still starts
			assertThat(this.backend.startRun(lease, next, 2).getAsLong()).isGreaterThan(started.getAsLong());
			this.backend.release(lease, Duration.ZERO, RunCompletion.none());
		}

		@Test
		void resumeAllWithoutCatchUpLeavesNothingToCatchUpInThePauseWindow() {
			String job = job();
			Instant old = slotAt(storeNow()).minusSeconds(600);
			assertThat(claimAndRelease(job, old).isAcquired()).isTrue();
			this.controls.pause(null, "alice", null);
			Instant inPause = slotAt(storeNow());
			this.controls.resume(null, false);
			Instant slot = slotAt(storeNow()).plusSeconds(1);
			LeaseRequest request = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), TTL, slot)
				.withPolicy(new ClaimPolicy(false, false, 1, true), inPause);
			AcquireResult acquired = this.backend.tryAcquire(request);
			assertThat(acquired.isAcquired()).isTrue();
			// nothing pending: the claim made its own slot the current run
			assertThat(acquired.run().slot()).isEqualTo(slot);
			assertThat(acquired.run().attempt()).isEqualTo(1);
			this.backend.release(HeldLease.of(request, acquired.fencingToken()), Duration.ZERO, RunCompletion.none());
		}

		@Test
		void resumeAllTriedAgainAfterFailingHalfWayMovesNoJobPastTheFirstResumeTime() {
			RedisKeys keys = new RedisKeys(this.prefix);
			String resumedFirst = job();
			String resumedLater = job();
			Instant old = slotAt(storeNow()).minusSeconds(600);
			assertThat(claimAndRelease(resumedFirst, old).isAcquired()).isTrue();
			assertThat(claimAndRelease(resumedLater, old).isAcquired()).isTrue();
			this.controls.pause(null, "alice", null);
			// the first try clears the pause-all key and resumes one job, then fails
			String resumeTime = new ControlResumeCall(keys.controls(), null, false, true).execute(this.executor, keys)
				.time();
			assertThat(resumeTime).isNotNull();
			new ControlResumeCall(keys.meta(resumedFirst), keys.lease(resumedFirst), true, true, resumeTime)
				.send(this.executor, keys);
			Instant first = this.backend.describe(resumedFirst).orElseThrow().lastSlot();
			assertThat(first).isAfterOrEqualTo(Instant.ofEpochMilli(Long.parseLong(resumeTime)));
			assertThat(claim(resumedLater, slotAt(storeNow()).plusSeconds(1)).outcome())
				.isEqualTo(AcquireResult.Outcome.PAUSED);
			Instant ran = slotAt(storeNow()).plusSeconds(1);
			assertThat(claimAndRelease(resumedFirst, ran).isAcquired()).isTrue();
			this.controls.resume(null, false);
			assertThat(this.backend.describe(resumedFirst).orElseThrow().lastSlot()).isEqualTo(ran);
			assertThat(this.backend.describe(resumedLater).orElseThrow().lastSlot())
				.isAfterOrEqualTo(Instant.ofEpochMilli(Long.parseLong(resumeTime)));
			assertThat(this.controls.read(List.of(resumedLater)).get(resumedLater).paused()).isFalse();
		}

		@Test
		void withoutThePauseAllKeyAFirstClaimThatReadNoPauseIsRefusedOnceThePauseMarkedItsMarker() {
			RedisKeys keys = new RedisKeys(this.prefix);
			String unseen = job();
			LeaseRequest request = new LeaseRequest(unseen, "node-a", UUID.randomUUID().toString(), TTL,
					slotAt(storeNow()));
			// as in a Redis Cluster: the claim is told to read the pause of every job,
			// and
			// first leaves its marker
			AcquireCall.Reply ask = new AcquireCall(request, TTL.toMillis(), false, false).execute(this.executor, keys);
			assertThat(ask.checkPauseAll()).isTrue();
			assertThat(this.admin.opsForHash().hasKey(keys.meta(unseen), "claim_seen_at")).isTrue();
			assertThat(this.backend.describe(unseen)).isEmpty();
			// the claimer read no pause; the pause of every job is written and scans now
			this.controls.pause(null, "alice", null);
			try {
				AcquireCall.Reply claimed = new AcquireCall(request, TTL.toMillis(), false, true).execute(this.executor,
						keys);
				assertThat(claimed.paused()).isTrue();
				assertThat(this.backend.describe(unseen)).isEmpty();
			}
			finally {
				this.controls.resume(null, true);
			}
			assertThat(new AcquireCall(request, TTL.toMillis(), false, true).execute(this.executor, keys).acquired())
				.isTrue();
		}

		@Test
		void rescheduleStoresAndClearsTheOverride() {
			String job = job();
			this.controls.reschedule(job, "0 */5 * * * *");
			assertThat(this.controls.read(List.of(job)).get(job).cronOverride()).isEqualTo("0 */5 * * * *");
			this.controls.reschedule(job, null);
			assertThat(this.controls.read(List.of(job)).get(job)).isEqualTo(JobControl.none(job));
		}

		@Test
		void readOfSeveralJobsIsOneRoundTrip() {
			List<String> jobs = List.of(job(), job(), job());
			this.controls.reschedule(jobs.get(1), "0 0 * * * *");
			this.controls.read(jobs);
			this.executor.reset();
			Map<String, JobControl> read = this.controls.read(jobs);
			assertThat(this.executor.getCount()).isEqualTo(1);
			assertThat(read.keySet()).containsExactlyElementsOf(jobs);
			assertThat(read.get(jobs.get(1)).cronOverride()).isEqualTo("0 0 * * * *");
		}

		@Test
		void runNowRequestStartsOnceForTheLeaseHolderAndEnds() {
			String job = job();
			ManualRun requested = this.controls.requestRun(job, "alice");
			assertThat(requested.state()).isEqualTo(ManualRun.State.PENDING);
			assertThat(this.controls.read(List.of(job)).get(job).pendingRuns()).extracting(ManualRun::id)
				.containsExactly(requested.id());
			// no lease: refused
			assertThat(this.controls.startManualRun(job, requested.id(), "node-a", 1)).isFalse();
			LeaseRequest request = new LeaseRequest(job, "node-a", "t1", TTL, null);
			AcquireResult acquired = this.backend.tryAcquire(request);
			assertThat(acquired.isAcquired()).isTrue();
			// another node, or a stale fencing token: refused
			assertThat(this.controls.startManualRun(job, requested.id(), "node-b", acquired.fencingToken())).isFalse();
			assertThat(this.controls.startManualRun(job, requested.id(), "node-a", acquired.fencingToken() - 1))
				.isFalse();
			// finishing a pending request changes nothing
			this.controls.finishManualRun(job, requested.id(), ManualRun.State.SUCCEEDED, null);
			assertThat(this.controls.manualRun(job, requested.id()).orElseThrow().state())
				.isEqualTo(ManualRun.State.PENDING);
			assertThat(this.controls.startManualRun(job, requested.id(), "node-a", acquired.fencingToken())).isTrue();
			assertThat(this.controls.startManualRun(job, requested.id(), "node-a", acquired.fencingToken())).isFalse();
			ManualRun running = this.controls.manualRun(job, requested.id()).orElseThrow();
			assertThat(running.state()).isEqualTo(ManualRun.State.RUNNING);
			assertThat(running.owner()).isEqualTo("node-a");
			assertThat(running.fencingToken()).isEqualTo(acquired.fencingToken());
			assertThat(this.controls.read(List.of(job)).get(job).pendingRuns()).isEmpty();
			this.controls.finishManualRun(job, requested.id(), ManualRun.State.FAILED, "boom");
			this.controls.finishManualRun(job, requested.id(), ManualRun.State.SUCCEEDED, null);
			ManualRun ended = this.controls.manualRun(job, requested.id()).orElseThrow();
			assertThat(ended.state()).isEqualTo(ManualRun.State.FAILED);
			assertThat(ended.error()).isEqualTo("boom");
			assertThat(ended.finishedAt()).isAfterOrEqualTo(ended.requestedAt());
			this.backend.release(HeldLease.of(request, acquired.fencingToken()), Duration.ZERO, RunCompletion.none());
		}

		@Test
		void runNowRequestStartsWhilePausedAndAfterAnExpiredLeaseOnlyForTheNewHolder() {
			String job = job();
			ManualRun requested = this.controls.requestRun(job, "alice");
			AcquireResult first = this.backend.tryAcquire(new LeaseRequest(job, "node-a", "t1", TTL, null));
			this.admin.delete(this.backend.leaseKey(job));
			AcquireResult second = this.backend.tryAcquire(new LeaseRequest(job, "node-a", "t2", TTL, null));
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
			this.controls.pause(job, "alice", null);
			// the same node with its old lease's fencing token is refused
			assertThat(this.controls.startManualRun(job, requested.id(), "node-a", first.fencingToken())).isFalse();
			assertThat(this.controls.startManualRun(job, requested.id(), "node-a", second.fencingToken())).isTrue();
		}

		@Test
		void concurrentStartsOfOneRequestStartItOnce() throws Exception {
			String job = job();
			ManualRun requested = this.controls.requestRun(job, "alice");
			AcquireResult acquired = this.backend.tryAcquire(new LeaseRequest(job, "node-a", "t1", TTL, null));
			int threads = 8;
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			try {
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Boolean>> starts = new ArrayList<>();
				for (int i = 0; i < threads; i++) {
					starts.add(pool.submit(() -> {
						start.await();
						return this.controls.startManualRun(job, requested.id(), "node-a", acquired.fencingToken());
					}));
				}
				start.countDown();
				int started = 0;
				for (Future<Boolean> future : starts) {
					started += future.get() ? 1 : 0;
				}
				assertThat(started).isEqualTo(1);
			}
			finally {
				pool.shutdownNow();
			}
		}

		@Test
		void requestIdsAreUniqueAndOnlyTheNewestEndedRequestsAreKept() {
			String job = job();
			AcquireResult acquired = this.backend.tryAcquire(new LeaseRequest(job, "node-a", "t1", TTL, null));
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < RedisJobControls.KEEP_ENDED + 5; i++) {
				String id = this.controls.requestRun(job, "alice").id();
				ids.add(id);
				assertThat(this.controls.startManualRun(job, id, "node-a", acquired.fencingToken())).isTrue();
				this.controls.finishManualRun(job, id, ManualRun.State.SUCCEEDED, null);
			}
			String pending = this.controls.requestRun(job, "bob").id();
			ids.add(pending);
			assertThat(new HashSet<>(ids)).hasSize(ids.size());
			List<ManualRun> runs = this.controls.manualRuns(job, 100);
			assertThat(runs).hasSize(RedisJobControls.KEEP_ENDED + 1);
			assertThat(runs.get(0).id()).isEqualTo(pending);
			assertThat(runs.get(1).id()).isEqualTo(ids.get(ids.size() - 2));
			assertThat(this.controls.manualRun(job, ids.get(0))).isEmpty();
			assertThat(this.controls.manualRuns(job, 3)).extracting(ManualRun::id)
				.containsExactly(pending, ids.get(ids.size() - 2), ids.get(ids.size() - 3));
		}

		@Test
		void everyClaimAfterAPauseReturnedIsRefused() throws Exception {
			List<String> jobs = List.of(job(), job(), job(), job());
			Instant base = slotAt(storeNow()).minusSeconds(3600);
			int threads = jobs.size();
			ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
			try {
				CountDownLatch paused = new CountDownLatch(1);
				List<Future<Integer>> claimers = new ArrayList<>();
				for (String job : jobs) {
					claimers.add(pool.submit(claimUntilPausedThenCount(job, base, paused)));
				}
				Thread.onSpinWait();
				this.controls.pause(null, "alice", null);
				paused.countDown();
				for (Future<Integer> claimer : claimers) {
					assertThat(claimer.get()).as("claims acquired after the pause returned").isZero();
				}
			}
			finally {
				pool.shutdownNow();
				this.controls.resume(null, true);
			}
		}

		private Callable<Integer> claimUntilPausedThenCount(String job, Instant base, CountDownLatch paused) {
			return () -> {
				int slot = 0;
				while (paused.getCount() > 0) {
					claimAndRelease(job, base.plusSeconds(++slot));
				}
				int acquiredAfterPause = 0;
				for (int i = 0; i < 20; i++) {
					AcquireResult result = claimAndRelease(job, base.plusSeconds(++slot));
					acquiredAfterPause += result.isAcquired() ? 1 : 0;
				}
				return acquiredAfterPause;
			};
		}

	}

}
