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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.contract.AbstractLeaseBackendContractTests;
import io.github.clustersingleton.contract.StoreTimeTravel;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The backend contract, and the failures a quorum is for, against a quorum of three Redis
 * servers this test starts itself ({@code redis-server}, no persistence), each behind a
 * {@link TcpProxy} so that a member can be cut off, or killed and started again empty.
 *
 * @author cluster-singleton contributors
 */
class RedisQuorumLeaseBackendTests extends AbstractLeaseBackendContractTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	private final Deque<AutoCloseable> resources = new ArrayDeque<>();

	private LocalRedisServers servers;

	private final List<Switchable> switches = new ArrayList<>();

	private final List<RedisLeaseBackend> members = new ArrayList<>();

	private CountingRedisScriptExecutor first;

	private RedisQuorumLeaseBackend backend;

	private RedisQuorumLeaseBackend unreachable;

	@BeforeAll
	void startQuorum() throws IOException {
		this.servers = new LocalRedisServers(3);
		this.resources.push(this.servers);
		List<RedisScriptExecutor> executors = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RedisScriptExecutor direct = executor(this.servers.port(i));
			this.members.add(new RedisLeaseBackend(direct));
			Switchable switchable = new Switchable(direct);
			this.switches.add(switchable);
			RedisScriptExecutor executor = switchable;
			if (i == 0) {
				this.first = new CountingRedisScriptExecutor(executor);
				executor = this.first;
			}
			executors.add(executor);
		}
		this.backend = new RedisQuorumLeaseBackend(executors, RedisLeaseBackend.DEFAULT_KEY_PREFIX);
		// the round-trip counts assume every member answers within the round: on a loaded
		// machine one may answer a few milliseconds after the majority
		this.backend.setMinimumGrace(Duration.ofMillis(250));
		this.resources.push(this.backend);
		this.backend.initialize();
		this.unreachable = new RedisQuorumLeaseBackend(List.of(executor(1), executor(2), executor(3)),
				RedisLeaseBackend.DEFAULT_KEY_PREFIX);
		this.resources.push(this.unreachable);
	}

	private RedisScriptExecutor executor(int port) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(TIMEOUT)
			.clientOptions(ClientOptions.builder()
				.socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port), client);
		factory.afterPropertiesSet();
		factory.start();
		this.resources.push(factory::destroy);
		return new SpringDataRedisScriptExecutor(factory);
	}

	@AfterEach
	void restoreMembers() throws IOException {
		this.backend.setBetweenPhases(() -> {
		});
		for (Switchable member : this.switches) {
			member.down = false;
		}
		// a test that failed between a member's kill and its restart left it down
		this.servers.startKilled();
		for (int i = 0; i < 3; i++) {
			awaitMember(i);
		}
	}

	@AfterAll
	void stopQuorum() {
		while (!this.resources.isEmpty()) {
			try {
				this.resources.pop().close();
			}
			catch (Exception ex) {
				// closing what is left
			}
		}
	}

	private void awaitMember(int member) {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
			this.members.get(member).probe();
			return true;
		});
	}

	@Override
	protected LeaseBackend backend() {
		return this.backend;
	}

	@Override
	protected LeaseBackend unreachableBackend() {
		return this.unreachable;
	}

	/**
	 * The calls to the first member, once every call sent to it has ended: a call that a
	 * majority answered returns without waiting for the last member.
	 */
	@Override
	protected long roundTrips() {
		awaitPendingCalls();
		return this.first.getCount();
	}

	@Override
	protected void resetRoundTrips() {
		awaitPendingCalls();
		this.first.reset();
	}

	/**
	 * Every member's keys move back by the same time.
	 */
	@Override
	protected StoreTimeTravel timeTravel() {
		return new RedisStoreTimeTravel(this.members.get(0),
				(key) -> List.of(this.servers.port(0), this.servers.port(1), this.servers.port(2)));
	}

	private void awaitPendingCalls() {
		try {
			this.backend.awaitPendingCalls(Duration.ofSeconds(10));
		}
		catch (Exception ex) {
			throw new IllegalStateException("The quorum members' calls did not end", ex);
		}
	}

	@Override
	protected boolean supportsRecovery() {
		return false;
	}

	@Override
	protected boolean reportsStoreTimeOnRenewal() {
		return false;
	}

	/**
	 * Each member keeps a lease for the TTL plus the clock-drift allowance.
	 */
	@Override
	protected Duration storedTtl(Duration ttl) {
		return ttl.plusMillis(RedisQuorumLeaseBackend.drift(ttl.toMillis()));
	}

	/**
	 * Grant, then commit: two rounds (each one call to every member, in parallel).
	 */
	@Override
	protected int expectedAcquireRoundTrips() {
		return 2;
	}

	/**
	 * The holder counts on its lease until the TTL after it sent the acquisition or
	 * renewal (the engine's local deadline). Every member must keep it at least the drift
	 * allowance longer, so that the holder's deadline is no later than the send time plus
	 * the members' time to live minus the allowance.
	 */
	@Test
	void holdersDeadlineLeavesTheDriftAllowanceOnEveryMember() {
		Duration ttl = Duration.ofSeconds(10);
		long drift = RedisQuorumLeaseBackend.drift(ttl.toMillis());
		String job = jobName("drift");
		LeaseRequest request = request(job, "node-a", ttl, null);
		// wall-clock milliseconds, as the members' own clocks on this machine count them
		long sent = System.currentTimeMillis();
		AcquireResult result = this.backend.tryAcquire(request);
		assertThat(result.isAcquired()).isTrue();
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		assertDeadlineWithinDrift(job, sent + ttl.toMillis(), drift);
		long renewed = System.currentTimeMillis();
		assertThat(this.backend.renew(List.of(lease), ttl)).containsExactly(lease.leaseToken());
		assertDeadlineWithinDrift(job, renewed + ttl.toMillis(), drift);
		this.backend.release(lease, Duration.ZERO);
	}

	private void assertDeadlineWithinDrift(String job, long holderDeadline, long drift) {
		awaitPendingCalls();
		for (int i = 0; i < 3; i++) {
			LeaseInfo info = this.members.get(i).describe(job).orElseThrow();
			assertThat(info.live()).as("member %d holds the lease", i).isTrue();
			assertThat(holderDeadline).as("holder's deadline against member %d's expiry minus the drift allowance", i)
				.isLessThanOrEqualTo(info.expiresAt().toEpochMilli() - drift);
		}
	}

	@Test
	void oneMemberDownStillWorks() throws IOException {
		String job = jobName("one-down");
		this.switches.get(2).down = true;
		HeldLease a = acquire(request(job, "node-a"));
		assertThat(this.backend.tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
		assertThat(this.backend.renew(List.of(a), LONG_TTL)).containsExactly(a.leaseToken());
		assertThat(this.backend.describe(job)).get().extracting(LeaseInfo::holder).isEqualTo("node-a");
		this.backend.release(a, Duration.ZERO);
		HeldLease b = acquire(request(job, "node-b"));
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		this.backend.probe();
	}

	@Test
	void twoMembersDownAcquisitionFailsAndLeavesNoLease() throws IOException {
		String job = jobName("two-down");
		this.switches.get(1).down = true;
		this.switches.get(2).down = true;
		assertThatExceptionOfType(RedisQuorumException.class)
			.isThrownBy(() -> this.backend.tryAcquire(request(job, "node-a")))
			.withMessageContaining("only 1 of 3 Redis quorum members answered, 2 needed");
		assertThatExceptionOfType(RedisQuorumException.class).isThrownBy(this.backend::probe);
		// the member that granted released its grant at once: nothing waits for the TTL
		Optional<LeaseInfo> onFirst = this.members.get(0).describe(job);
		assertThat(onFirst.map(LeaseInfo::live)).isNotEqualTo(Optional.of(true));
		this.switches.get(1).down = false;
		this.switches.get(2).down = false;
		HeldLease b = acquire(request(job, "node-b"));
		assertThat(b.fencingToken()).isPositive();
	}

	@Test
	void renewalByAMinorityLosesTheLease() throws IOException {
		String job = jobName("renew-minority");
		HeldLease a = acquire(request(job, "node-a"));
		this.members.get(1).forceRelease(job);
		this.switches.get(2).down = true;
		assertThat(this.backend.renew(List.of(a), LONG_TTL)).isEmpty();
	}

	/**
	 * Three nodes contend for one job while, between the two phases of an acquisition, a
	 * member is cut off (and the one cut before comes back): at most one holder at a
	 * time, and each acquisition's fencing token is greater than the one before.
	 */
	@Test
	void membersCutBetweenPhasesKeepOneHolderAndIncreasingFences() throws Exception {
		String job = jobName("cut-between-phases");
		AtomicInteger cut = new AtomicInteger(-1);
		AtomicInteger cuts = new AtomicInteger();
		ThreadLocal<Boolean> cutter = ThreadLocal.withInitial(() -> false);
		this.backend.setBetweenPhases(() -> {
			int victim = ThreadLocalRandom.current().nextInt(3);
			if (ThreadLocalRandom.current().nextInt(3) == 0 && cut.compareAndSet(-1, victim)) {
				this.switches.get(victim).down = true;
				cutter.set(true);
				cuts.incrementAndGet();
			}
		});
		AtomicInteger holders = new AtomicInteger();
		AtomicInteger maxHolders = new AtomicInteger();
		AtomicLong lastFence = new AtomicLong();
		ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService threads = Executors.newFixedThreadPool(3);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < 3; t++) {
				String owner = "node-" + t;
				futures.add(threads.submit(() -> {
					start.await();
					long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
					while (System.nanoTime() - end < 0) {
						// a grant that could not be released on a member cut off
						// meanwhile stays
						// there for the TTL: contenders back off a little, as triggers do
						Thread.sleep(ThreadLocalRandom.current().nextInt(1, 10));
						LeaseRequest request = request(job, owner, Duration.ofSeconds(1), null);
						AcquireResult result;
						try {
							result = this.backend.tryAcquire(request);
						}
						catch (RuntimeException ex) {
							errors.incrementAndGet();
							continue;
						}
						finally {
							if (cutter.get()) {
								// the member that this acquisition cut comes back once it
								// ended
								this.switches.get(cut.get()).down = false;
								cutter.set(false);
								cut.set(-1);
							}
						}
						if (result.isAcquired()) {
							maxHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
							long previous = lastFence.getAndSet(result.fencingToken());
							if (result.fencingToken() <= previous) {
								violations.add(result.fencingToken() + " after " + previous);
							}
							acquired.incrementAndGet();
							Thread.sleep(2);
							holders.decrementAndGet();
							try {
								this.backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
							}
							catch (RuntimeException ex) {
								errors.incrementAndGet();
							}
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		System.out.println("quorum cut between phases: acquired=" + acquired + " cuts=" + cuts + " errors=" + errors
				+ " maxHolders=" + maxHolders + " fenceViolations=" + violations.size());
		assertThat(maxHolders).hasValue(1);
		assertThat(violations).isEmpty();
		assertThat(cuts.get()).isPositive();
		assertThat(acquired.get()).isGreaterThan(10);
	}

	/**
	 * Between the phases of every other acquisition, one member is killed
	 * ({@code SIGKILL}, no persistence: it loses everything), and started again empty a
	 * lease TTL later (a delayed restart): the fencing tokens keep increasing and a
	 * claimed slot is never granted again.
	 */
	@Test
	void membersKilledMidAcquireAndRestartedEmptyAfterATtl() throws Exception {
		String job = jobName("killed");
		Duration ttl = Duration.ofSeconds(1);
		long lastFence = 0;
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);
		for (int round = 0; round < 6; round++) {
			int victim = round % 3;
			boolean kill = round % 2 == 0;
			if (kill) {
				this.backend.setBetweenPhases(() -> this.servers.kill(victim));
			}
			slot = slot.plusSeconds(1);
			AcquireResult result = awaitAcquired(request(job, "node-" + round, ttl, slot));
			this.backend.setBetweenPhases(() -> {
			});
			assertThat(result.fencingToken()).as("round %d", round).isGreaterThan(lastFence);
			lastFence = result.fencingToken();
			assertThat(this.backend.tryAcquire(request(job, "node-x", ttl, slot)).outcome()).isIn(Outcome.HELD,
					Outcome.SLOT_DONE);
			if (kill) {
				Thread.sleep(ttl.toMillis() + 100);
				this.servers.start(victim);
				awaitMember(victim);
				assertThat(this.members.get(victim).describe(job)).as("restarted empty").isEmpty();
				// a slot the quorum already claimed stays claimed
				assertThat(this.backend.tryAcquire(request(job, "node-y", ttl, slot)).outcome())
					.isEqualTo(Outcome.SLOT_DONE);
			}
		}
	}

	@Test
	void commitRaisesTheFenceOnEveryMemberThatAnswers() {
		String job = jobName("commit-all");
		HeldLease a = acquire(request(job, "node-a"));
		// the commit went to every member; the acquisition waited for a majority, and for
		// the others only as long again, so a loaded member's may land just after
		for (RedisLeaseBackend member : this.members) {
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(member.describe(job)).get()
					.extracting(LeaseInfo::fencingToken)
					.isEqualTo(a.fencingToken()));
		}
		assertThat(Set.of(a.fencingToken())).containsExactly(1L);
	}

	/**
	 * A member's client that fails every call while {@link #down} is set.
	 */
	private static final class Switchable implements RedisScriptExecutor {

		private final RedisScriptExecutor delegate;

		private volatile boolean down;

		Switchable(RedisScriptExecutor delegate) {
			this.delegate = delegate;
		}

		private void check() {
			if (this.down) {
				throw new IllegalStateException("quorum member cut off (test)");
			}
		}

		@Override
		public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
			check();
			return this.delegate.execute(script, keys, args);
		}

		@Override
		public void load(RedisLeaseScript script) {
			check();
			this.delegate.load(script);
		}

		@Override
		public void ping(String key) {
			check();
			this.delegate.ping(key);
		}

		@Override
		public Map<String, String> getConfig(String parameter) {
			check();
			return this.delegate.getConfig(parameter);
		}

	}

}
