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

package io.github.clustersingleton.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.LeaderElection;

/**
 * Measures what leader mode saves: store calls per tick for 3 nodes that each fire 50
 * cron jobs at the same instant, in per-job mode and in leader mode, and how long
 * leadership takes to move when the leader dies. Nodes are executors in this JVM sharing
 * one store, each through its own counting view of the backend; a killed node's view
 * fails every call from then on, as a dead process would stop talking. Run with
 * {@code java -cp ... LeaderModeCost [output.md] [stores...]}.
 *
 * @author cluster-singleton contributors
 */
public final class LeaderModeCost {

	private static final int NODES = 3;

	private static final int JOBS = 50;

	private static final int TICKS = 20;

	private static final Duration TTL = Duration.ofSeconds(3);

	private static final int TAKEOVERS = 5;

	private LeaderModeCost() {
	}

	public static void main(String[] args) throws Exception {
		Path output = Path.of((args.length > 0) ? args[0] : "docs/benchmarks/leader-mode.md");
		List<String> stores = (args.length > 1) ? Arrays.asList(args).subList(1, args.length)
				: List.of("postgresql", "redis");
		StringBuilder report = new StringBuilder();
		report.append("| store | mode | store calls per tick (3 nodes, 50 jobs) | of which acquisitions | "
				+ "releases | renewals |\n|---|---|---|---|---|---|\n");
		StringBuilder takeovers = new StringBuilder();
		for (String name : stores) {
			try (Store store = Store.open(name)) {
				for (boolean leaderMode : new boolean[] { false, true }) {
					Counts counts = measureTicks(store.backend(), leaderMode);
					report.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f | %.1f | %.1f |%n", name,
							leaderMode ? "leader" : "per-job", counts.total() / (double) TICKS,
							counts.acquires / (double) TICKS, counts.releases / (double) TICKS,
							counts.renewals / (double) TICKS));
				}
				List<Long> times = measureTakeovers(store.backend());
				takeovers.append(String.format(Locale.ROOT, "| %s | %s | %d | %d |%n", name, times, median(times),
						times.stream().mapToLong(Long::longValue).max().orElse(0)));
			}
		}
		String text = "Store calls per tick: " + NODES + " nodes, " + JOBS + " cron jobs firing at the same instant, "
				+ TICKS + " ticks, lease TTL " + TTL.toSeconds() + " s.\n\n" + report
				+ "\nLeader takeover after the leader died (its store calls fail from then on), lease TTL "
				+ TTL.toSeconds() + " s, " + TAKEOVERS + " samples, milliseconds:\n\n"
				+ "| store | samples | median | max |\n|---|---|---|---|\n" + takeovers;
		System.out.println(text);
		Files.createDirectories(output.toAbsolutePath().getParent());
		Files.writeString(output, text);
	}

	private static Counts measureTicks(LeaseBackend backend, boolean leaderMode) throws Exception {
		String run = UUID.randomUUID().toString().substring(0, 8);
		Counts counts = new Counts();
		List<ClusterSingletonExecutor> nodes = new ArrayList<>();
		for (int i = 0; i < NODES; i++) {
			ClusterSingletonExecutor node = new ClusterSingletonExecutor(new Counting(backend, counts),
					new ClusterSingletonExecutor.Settings("node-" + i, TTL, Duration.ofSeconds(1), true),
					Clock.systemUTC(), new ClusterSingletonListener() {
					});
			if (leaderMode) {
				node.enableLeaderMode("leader-" + run, LeaderElection.Listener.NONE);
				node.startLeaderElection();
			}
			nodes.add(node);
		}
		ExecutorService threads = Executors.newFixedThreadPool(NODES);
		try {
			if (leaderMode) {
				awaitLeader(nodes);
			}
			List<JobDefinition> jobs = new ArrayList<>();
			for (int j = 0; j < JOBS; j++) {
				jobs.add(JobDefinition.of("lm-" + run + "-" + j, Duration.ofMinutes(1), Duration.ZERO)
					.withSchedule(CronSlotSchedule.of("* * * * * *", ZoneOffset.UTC)));
			}
			Instant base = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(TICKS + 5);
			counts.reset();
			long started = System.nanoTime();
			for (int tick = 1; tick <= TICKS; tick++) {
				Instant slot = base.plusSeconds(tick);
				List<Future<?>> fired = new ArrayList<>();
				for (ClusterSingletonExecutor node : nodes) {
					fired.add(threads.submit(() -> {
						for (JobDefinition job : jobs) {
							try {
								node.execute(job, slot, RunTrigger.SCHEDULED, () -> null);
							}
							catch (Throwable ex) {
								throw new IllegalStateException(ex);
							}
						}
						return null;
					}));
				}
				for (Future<?> future : fired) {
					future.get();
				}
			}
			// the watchdog renews the leader lease in the background: count what it sent
			// while the ticks ran, per second of wall time, as one tick per second would
			double seconds = Math.max(1, (System.nanoTime() - started) / 1e9);
			counts.renewals = Math.round(counts.renewCalls.get() * (TICKS / seconds));
		}
		finally {
			threads.shutdownNow();
			nodes.forEach(ClusterSingletonExecutor::close);
		}
		return counts;
	}

	private static List<Long> measureTakeovers(LeaseBackend backend) throws Exception {
		List<Long> times = new ArrayList<>();
		for (int sample = 0; sample < TAKEOVERS; sample++) {
			String run = UUID.randomUUID().toString().substring(0, 8);
			List<ClusterSingletonExecutor> nodes = new ArrayList<>();
			List<Counting> views = new ArrayList<>();
			for (int i = 0; i < NODES; i++) {
				Counting view = new Counting(backend, new Counts());
				ClusterSingletonExecutor node = new ClusterSingletonExecutor(view,
						new ClusterSingletonExecutor.Settings("node-" + i, TTL, Duration.ofSeconds(1), true),
						Clock.systemUTC(), new ClusterSingletonListener() {
						});
				node.enableLeaderMode("takeover-" + run, LeaderElection.Listener.NONE);
				node.startLeaderElection();
				nodes.add(node);
				views.add(view);
			}
			try {
				int leader = awaitLeader(nodes);
				views.get(leader).kill();
				long killed = System.nanoTime();
				while (true) {
					boolean moved = false;
					for (int i = 0; i < NODES; i++) {
						if (i != leader && nodes.get(i).leadership().orElseThrow().isLeader()) {
							moved = true;
						}
					}
					if (moved) {
						break;
					}
					if (System.nanoTime() - killed > TTL.multipliedBy(10).toNanos()) {
						throw new IllegalStateException("leadership did not move");
					}
					Thread.sleep(10);
				}
				times.add((System.nanoTime() - killed) / 1_000_000);
			}
			finally {
				nodes.forEach(ClusterSingletonExecutor::close);
			}
		}
		return times;
	}

	private static int awaitLeader(List<ClusterSingletonExecutor> nodes) throws InterruptedException {
		long deadline = System.nanoTime() + TTL.multipliedBy(10).toNanos();
		while (System.nanoTime() < deadline) {
			for (int i = 0; i < nodes.size(); i++) {
				if (nodes.get(i).leadership().orElseThrow().isLeader()) {
					return i;
				}
			}
			Thread.sleep(10);
		}
		throw new IllegalStateException("no leader was elected");
	}

	private static long median(List<Long> values) {
		List<Long> sorted = values.stream().sorted().toList();
		return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
	}

	private static final class Counts {

		private final AtomicLong acquireCalls = new AtomicLong();

		private final AtomicLong releaseCalls = new AtomicLong();

		private final AtomicLong renewCalls = new AtomicLong();

		private final AtomicLong otherCalls = new AtomicLong();

		long acquires;

		long releases;

		long renewals;

		void reset() {
			this.acquireCalls.set(0);
			this.releaseCalls.set(0);
			this.renewCalls.set(0);
			this.otherCalls.set(0);
		}

		long total() {
			this.acquires = this.acquireCalls.get();
			this.releases = this.releaseCalls.get();
			return this.acquires + this.releases + this.renewals + this.otherCalls.get();
		}

	}

	/**
	 * A node's view of the shared backend: counts its calls, and fails every call once
	 * the node is killed.
	 */
	private static final class Counting extends ForwardingLeaseBackend {

		private final Counts counts;

		private volatile boolean dead;

		Counting(LeaseBackend delegate, Counts counts) {
			super(delegate);
			this.counts = counts;
		}

		void kill() {
			this.dead = true;
		}

		private void check() {
			if (this.dead) {
				throw new IllegalStateException("this node is dead");
			}
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			check();
			this.counts.acquireCalls.incrementAndGet();
			return super.tryAcquire(request);
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			check();
			this.counts.renewCalls.incrementAndGet();
			return super.renew(leases, ttl);
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
			check();
			this.counts.releaseCalls.incrementAndGet();
			super.release(lease, lockAtLeastFor);
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
			check();
			this.counts.releaseCalls.incrementAndGet();
			super.release(lease, lockAtLeastFor, completion);
		}

		@Override
		public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
			check();
			this.counts.releaseCalls.incrementAndGet();
			return super.completeRun(lease, lockAtLeastFor, completion);
		}

		@Override
		public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
			check();
			this.counts.otherCalls.incrementAndGet();
			return super.startRun(lease, slot, attempt);
		}

		@Override
		public Set<String> findPending(Map<String, ClaimPolicy> policies) {
			check();
			this.counts.otherCalls.incrementAndGet();
			return super.findPending(policies);
		}

		@Override
		public RunLedger runLedger() {
			return RunLedger.NONE;
		}

		@Override
		public Optional<LeaseInfo> describe(String jobName) {
			check();
			return super.describe(jobName);
		}

		@Override
		public boolean forceRelease(String jobName) {
			check();
			return super.forceRelease(jobName);
		}

		@Override
		public void probe() {
			check();
			super.probe();
		}

	}

}
