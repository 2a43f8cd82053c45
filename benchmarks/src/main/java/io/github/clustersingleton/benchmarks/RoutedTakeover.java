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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.NodePresence;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.ScheduledFireTime;

/**
 * Crash takeover through the engine, with preferred-node routing on as by default: three
 * nodes on one store, each an engine with the job registered, cron triggers every
 * {@link #PERIOD} at the fire time, and the default sweep delay. A node "crashes" by
 * going silent: every store call of it fails from that instant and its triggers stop, so
 * that the others see what they would see after a kill -9. Two cases, each with nodes of
 * its own:
 * <ul>
 * <li><b>idle</b>: the job's preferred node crashes between two of its runs; the sample
 * is the next slot's start delay, from its fire time, on the node that took it over (a
 * sweep, since the others still see the dead node as live);</li>
 * <li><b>running</b>: the preferred node crashes while it runs the job, right after its
 * watchdog renewed the lease (the worst case); the samples are the time from the crash
 * until another node starts the job, and that run's start delay from its fire time.</li>
 * </ul>
 * Every slot runs at most once; the run fails otherwise, or if no node takes over.
 *
 * @author cluster-singleton
 */
final class RoutedTakeover {

	/** The default {@code cluster-singleton.preferred-node.sweep-delay}. */
	static final Duration SWEEP_DELAY = Duration.ofMillis(250);

	/** The job's cron period: routing needs at least 2.5 s with the defaults. */
	static final Duration PERIOD = Duration.ofSeconds(5);

	private static final Duration SLOT_TOLERANCE = Duration.ofSeconds(1);

	private static final int NODES = 3;

	private RoutedTakeover() {
	}

	/**
	 * The start delay of the first slot after an idle preferred node crashed.
	 * @param store the store
	 * @param ttl the lease TTL
	 * @return milliseconds from the slot's fire time to its run on another node
	 */
	static long idle(Store store, Duration ttl) {
		try (Cluster cluster = new Cluster(store, ttl)) {
			Run first = cluster.awaitRun((run) -> true, PERIOD.multipliedBy(3));
			// between its release and the next fire time
			sleepUntil(first.slot().plus(PERIOD.dividedBy(2)));
			Node preferred = cluster.nodes.get(first.node());
			preferred.crash();
			Run next = cluster.awaitRun((run) -> run.slot().isAfter(first.slot()), PERIOD.multipliedBy(2));
			cluster.checkOnce(next);
			return next.delayMillis();
		}
	}

	/**
	 * The takeover of a job whose node crashed during its run, right after a renewal.
	 * @param store the store
	 * @param ttl the lease TTL
	 * @return milliseconds from the crash to the run on another node, then that run's
	 * start delay from its fire time
	 */
	static long[] running(Store store, Duration ttl) {
		try (Cluster cluster = new Cluster(store, ttl)) {
			cluster.block.set(true);
			Run blocked = cluster.awaitRun((run) -> true, PERIOD.multipliedBy(3));
			Node owner = cluster.nodes.get(blocked.node());
			owner.crashAfterRenewal.set(true);
			long crashed = owner.awaitCrash(ttl);
			Run next = cluster.awaitRun((run) -> run.node() != blocked.node(), ttl.plus(PERIOD.multipliedBy(2)));
			cluster.checkOnce(next);
			return new long[] { (next.nanos() - crashed) / 1_000_000, next.delayMillis() };
		}
	}

	/** A run's start: the node, its slot, and when it began. */
	private record Run(int node, Instant slot, Instant at, long nanos) {

		long delayMillis() {
			return Duration.between(this.slot, this.at).toMillis();
		}

	}

	private interface RunFilter {

		boolean test(Run run);

	}

	private static final class Cluster implements AutoCloseable {

		private final String job = "bench-routed-" + UUID.randomUUID().toString().substring(0, 8);

		private final List<Node> nodes = new ArrayList<>();

		private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

		/** Whether the next run blocks until it is interrupted (its lease lost). */
		private final AtomicBoolean block = new AtomicBoolean();

		private final CountDownLatch released = new CountDownLatch(1);

		Cluster(Store store, Duration ttl) {
			JobDefinition definition = JobDefinition.of(this.job, Duration.ofMinutes(30), Duration.ZERO)
				.withSchedule(CronSlotSchedule.of("*/" + PERIOD.toSeconds() + " * * * * *", ZoneOffset.UTC));
			for (int i = 0; i < NODES; i++) {
				this.nodes.add(new Node(i, store.newBackend(), ttl, definition, this::body));
			}
			// two heartbeats: every node has seen every other one
			TakeoverLatency.sleep(2 * ttl.toMillis() / 3 + 1100);
		}

		private void body(int node) {
			Instant now = Instant.now();
			long seconds = PERIOD.toSeconds();
			Instant slot = Instant.ofEpochSecond(Math.floorDiv(now.getEpochSecond(), seconds) * seconds);
			this.runs.add(new Run(node, slot, now, System.nanoTime()));
			if (this.block.compareAndSet(true, false)) {
				try {
					// the watchdog interrupts the run when the crashed node's lease is
					// lost
					this.released.await(10, TimeUnit.MINUTES);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		Run awaitRun(RunFilter filter, Duration timeout) {
			long deadline = System.nanoTime() + timeout.toNanos();
			while (System.nanoTime() < deadline) {
				for (Run run : this.runs) {
					if (filter.test(run)) {
						return run;
					}
				}
				TakeoverLatency.sleep(10);
			}
			throw new IllegalStateException(this.job + ": no run came within " + timeout + "; runs " + this.runs);
		}

		/** Wait past the sweeps of {@code run}'s slot, then check it ran once. */
		void checkOnce(Run run) {
			sleepUntil(run.slot().plus(SWEEP_DELAY.multipliedBy(12)));
			Map<Instant, AtomicInteger> perSlot = new ConcurrentHashMap<>();
			this.runs.forEach((r) -> perSlot.computeIfAbsent(r.slot(), (s) -> new AtomicInteger()).incrementAndGet());
			perSlot.forEach((slot, count) -> {
				if (count.get() != 1) {
					throw new IllegalStateException(
							this.job + ": slot " + slot + " ran " + count + " times: " + this.runs);
				}
			});
		}

		@Override
		public void close() {
			this.released.countDown();
			this.nodes.forEach(Node::close);
		}

	}

	private interface Body {

		void run(int node);

	}

	/** An engine with its own cron triggers, which can crash. */
	private static final class Node {

		private final ClusterSingletonExecutor executor;

		private final ScheduledExecutorService triggers = Executors.newSingleThreadScheduledExecutor();

		private final AtomicBoolean dead = new AtomicBoolean();

		private final AtomicBoolean crashAfterRenewal = new AtomicBoolean();

		private final AtomicLong crashedAt = new AtomicLong();

		private final CountDownLatch crash = new CountDownLatch(1);

		private final JobDefinition job;

		private final ClusterSingletonExecutor.Invocation invocation;

		Node(int index, LeaseBackend backend, Duration ttl, JobDefinition job, Body body) {
			this.job = job;
			this.invocation = () -> {
				body.run(index);
				return null;
			};
			String owner = "bench-routed-node-" + index + "-" + UUID.randomUUID().toString().substring(0, 8);
			this.executor = new ClusterSingletonExecutor(new Crashing(backend),
					new ClusterSingletonExecutor.Settings(owner, ttl, SLOT_TOLERANCE, true), Clock.systemUTC(),
					new ClusterSingletonListener() {
					});
			this.executor.registerJob(job, this.invocation);
			if (!this.executor.enablePreferredNodes(SWEEP_DELAY)) {
				throw new IllegalStateException("The store keeps no presence entries");
			}
			this.executor.startBackgroundWork();
			scheduleNext();
		}

		/** The next fire time's trigger, as a single-threaded scheduler makes it. */
		private void scheduleNext() {
			long seconds = PERIOD.toSeconds();
			Instant fire = Instant.ofEpochSecond((Instant.now().getEpochSecond() / seconds + 1) * seconds);
			this.triggers.schedule(() -> {
				if (this.dead.get()) {
					return;
				}
				scheduleNext();
				ScheduledFireTime.runAt(fire, () -> {
					try {
						this.executor.execute(this.job, true, this.invocation);
					}
					catch (Throwable ex) {
						// a failed claim is a skipped run, as under the scheduler
					}
				});
			}, Duration.between(Instant.now(), fire).toMillis(), TimeUnit.MILLISECONDS);
		}

		void crash() {
			this.crashedAt.set(System.nanoTime());
			this.dead.set(true);
			this.crash.countDown();
		}

		long awaitCrash(Duration ttl) {
			try {
				if (!this.crash.await(ttl.toMillis(), TimeUnit.MILLISECONDS)) {
					throw new IllegalStateException("The running node renewed no lease within " + ttl);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			return this.crashedAt.get();
		}

		void close() {
			this.triggers.shutdownNow();
			this.executor.close();
		}

		/** The node's store calls: all fail once the node crashed. */
		private final class Crashing extends ForwardingLeaseBackend {

			Crashing(LeaseBackend delegate) {
				super(delegate);
			}

			private void alive() {
				if (Node.this.dead.get()) {
					throw new IllegalStateException("crashed");
				}
			}

			@Override
			public AcquireResult tryAcquire(LeaseRequest request) {
				alive();
				return super.tryAcquire(request);
			}

			@Override
			public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
				alive();
				Set<String> renewed = super.renew(leases, ttl);
				if (!renewed.isEmpty() && Node.this.crashAfterRenewal.compareAndSet(true, false)) {
					crash();
				}
				return renewed;
			}

			@Override
			public void release(HeldLease lease, Duration lockAtLeastFor) {
				alive();
				super.release(lease, lockAtLeastFor);
			}

			@Override
			public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
				alive();
				super.release(lease, lockAtLeastFor, completion);
			}

			@Override
			public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
				alive();
				return super.completeRun(lease, lockAtLeastFor, completion);
			}

			@Override
			public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
				alive();
				return super.startRun(lease, slot, attempt);
			}

			@Override
			public Set<String> findPending(Map<String, ClaimPolicy> policies) {
				alive();
				return super.findPending(policies);
			}

			@Override
			public RunLedger runLedger() {
				RunLedger ledger = super.runLedger();
				return new RunLedger() {

					@Override
					public void record(RunRecord run, int maxRuns) {
						alive();
						ledger.record(run, maxRuns);
					}

					@Override
					public void recordAll(List<RunRecord> runs, int maxRuns) {
						alive();
						ledger.recordAll(runs, maxRuns);
					}

					@Override
					public void recordAll(List<RunRecord> runs, int maxRuns, Predicate<RunRecord> firstRecord) {
						alive();
						ledger.recordAll(runs, maxRuns, firstRecord);
					}

					@Override
					public void markLostBefore(String jobName, long fencingToken) {
						alive();
						ledger.markLostBefore(jobName, fencingToken);
					}

					@Override
					public List<RunRecord> history(String jobName, int limit) {
						alive();
						return ledger.history(jobName, limit);
					}

					@Override
					public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
						alive();
						return ledger.lastSuccess(jobNames);
					}

				};
			}

			@Override
			public Optional<NodePresence> presence() {
				return super.presence().map((presence) -> new NodePresence() {

					@Override
					public Set<String> heartbeat(String owner, Duration ttl) {
						alive();
						return presence.heartbeat(owner, ttl);
					}

					@Override
					public void leave(String owner) {
						alive();
						presence.leave(owner);
					}

					@Override
					public Set<String> claimedSince(Collection<String> jobNames, Instant slot) {
						alive();
						return presence.claimedSince(jobNames, slot);
					}

				});
			}

		}

	}

	private static void sleepUntil(Instant instant) {
		long millis = Duration.between(Instant.now(), instant).toMillis();
		if (millis > 0) {
			TakeoverLatency.sleep(millis);
		}
	}

}
