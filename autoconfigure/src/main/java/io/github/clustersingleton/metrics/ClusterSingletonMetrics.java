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

package io.github.clustersingleton.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link ClusterSingletonListener} that records the lease engine's activity as
 * Micrometer meters:
 * <ul>
 * <li>{@value #ACQUIRE} (timer; tags {@code name}, {@code backend}, {@code outcome} =
 * {@code acquired|held|slot-done|clock-skew|not-leader|not-preferred|paused|error}): one
 * sample per trigger that reached the store, and per trigger skipped locally
 * ({@code not-leader}, {@code not-preferred});</li>
 * <li>{@value #EXECUTION} (timer; tags {@code name}, {@code outcome} =
 * {@code success|failure|lease-lost}): one sample per guarded run;</li>
 * <li>{@value #RENEWAL} (timer; tags {@code backend}, {@code outcome} =
 * {@code ok|lost|error}): one sample per batched renewal round trip, which renews every
 * lease of the node at once and so carries no job name;</li>
 * <li>{@value #LEASES_HELD} (gauge): the leases this node holds for running jobs;</li>
 * <li>{@value #LEASE_LOST} (counter; tag {@code name}): runs that lost their lease;</li>
 * <li>{@value #LAST_SUCCESS} (time gauge; tag {@code name}): when the job last finished
 * successfully on this node, as time since the epoch; registered at the first
 * success;</li>
 * <li>{@value #CLOCK_OFFSET} (gauge, seconds; tag {@code backend}): this node's clock
 * minus the store's, as last measured from an acquire or renewal round trip; registered
 * at the first acquisition, {@code NaN} until a round trip carried the store's time.</li>
 * </ul>
 * Tags only ever carry job names, backend ids and the fixed outcomes above, never slots,
 * tokens or owners, so the number of series stays bounded by the number of jobs.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonMetrics implements ClusterSingletonListener {

	/**
	 * Name of the acquisition timer.
	 */
	public static final String ACQUIRE = "cluster.singleton.acquire";

	/**
	 * Name of the run timer.
	 */
	public static final String EXECUTION = "cluster.singleton.execution";

	/**
	 * Name of the renewal timer.
	 */
	public static final String RENEWAL = "cluster.singleton.renewal";

	/**
	 * Name of the gauge of held leases.
	 */
	public static final String LEASES_HELD = "cluster.singleton.leases.held";

	/**
	 * Name of the counter of lost leases.
	 */
	public static final String LEASE_LOST = "cluster.singleton.lease.lost";

	/**
	 * Name of the time gauge of the last successful run.
	 */
	public static final String LAST_SUCCESS = "cluster.singleton.last.success";

	/**
	 * Name of the leader-mode gauge: 1 while this node is the leader, else 0.
	 */
	public static final String LEADER = "cluster.singleton.leader";

	/**
	 * Name of the gauge of this node's clock offset from the store's.
	 */
	public static final String CLOCK_OFFSET = "cluster.singleton.clock.offset";

	/**
	 * Name of the counter of failed run-ledger writes.
	 */
	public static final String LEDGER_FAILURES = "cluster.singleton.ledger.failures";

	/**
	 * Name of the gauge of overdue jobs.
	 */
	public static final String OVERDUE = "cluster.singleton.overdue";

	private static final String UNKNOWN_BACKEND = "unknown";

	/**
	 * How long the lease token of a lost lease is remembered for the renewal round trip
	 * that found it lost. Far longer than a round trip may take (the stores time out
	 * after one lease TTL); a lease lost by deadline or cap may never appear in a round
	 * trip.
	 */
	private static final long LOST_RETENTION_NANOS = TimeUnit.MINUTES.toNanos(5);

	private static final int MIN_PRUNE_SIZE = 256;

	private final MeterRegistry registry;

	private final Supplier<String> backendId;

	private volatile @Nullable String resolvedBackendId;

	private final AtomicInteger heldLeases = new AtomicInteger();

	private final IntSupplier heldLeaseCount;

	private final Map<String, AtomicLong> lastSuccess = new ConcurrentHashMap<>();

	private final Map<String, Long> lostLeaseTokens = new ConcurrentHashMap<>();

	private volatile int pruneSize = MIN_PRUNE_SIZE;

	private final Supplier<Optional<Duration>> clockOffset;

	private final AtomicBoolean clockOffsetRegistered = new AtomicBoolean();

	/**
	 * Create an instance that registers its meters in the given registry.
	 * @param registry the meter registry
	 * @param backendId supplies the {@link io.github.clustersingleton.LeaseBackend#id()
	 * id} of the lease store; called once, at the first acquisition, when the engine
	 * exists
	 */
	public ClusterSingletonMetrics(MeterRegistry registry, Supplier<String> backendId) {
		this(registry, backendId, Optional::empty);
	}

	/**
	 * Create an instance that registers its meters in the given registry.
	 * @param registry the meter registry
	 * @param backendId supplies the {@link io.github.clustersingleton.LeaseBackend#id()
	 * id} of the lease store; called once, at the first acquisition, when the engine
	 * exists
	 * @param clockOffset supplies this node's clock minus the store's as last measured
	 * (see
	 * {@link io.github.clustersingleton.lease.ClusterSingletonExecutor#clockOffset()});
	 * first called after the first acquisition
	 */
	public ClusterSingletonMetrics(MeterRegistry registry, Supplier<String> backendId,
			Supplier<Optional<Duration>> clockOffset) {
		this(registry, backendId, clockOffset, null);
	}

	/**
	 * Create an instance that registers its meters in the given registry.
	 * @param registry the meter registry
	 * @param backendId supplies the {@link io.github.clustersingleton.LeaseBackend#id()
	 * id} of the lease store; called once, at the first acquisition, when the engine
	 * exists
	 * @param clockOffset supplies this node's clock minus the store's as last measured
	 * @param heldLeases supplies how many leases the engine's watchdog holds right now
	 * (see
	 * {@link io.github.clustersingleton.lease.ClusterSingletonExecutor#heldLeases()}), or
	 * {@code null} to count acquisitions minus finished runs instead
	 */
	public ClusterSingletonMetrics(MeterRegistry registry, Supplier<String> backendId,
			Supplier<Optional<Duration>> clockOffset, @Nullable IntSupplier heldLeases) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(backendId, "'backendId' must not be null");
		Assert.notNull(clockOffset, "'clockOffset' must not be null");
		this.registry = registry;
		this.backendId = backendId;
		this.clockOffset = clockOffset;
		this.heldLeaseCount = (heldLeases != null) ? heldLeases : this.heldLeases::get;
		Gauge.builder(LEASES_HELD, this.heldLeaseCount, IntSupplier::getAsInt)
			.description("Leases this node holds for running cluster-singleton jobs")
			.strongReference(true)
			.register(registry);
	}

	@Override
	public void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result, Duration duration) {
		registerClockOffset();
		if (result.isAcquired()) {
			this.heldLeases.incrementAndGet();
		}
		acquireTimer(job, result.outcome().tag()).record(duration);
	}

	private void registerClockOffset() {
		if (this.clockOffsetRegistered.compareAndSet(false, true)) {
			Gauge.builder(CLOCK_OFFSET, this.clockOffset, ClusterSingletonMetrics::seconds)
				.description("This node's clock minus the lease store's, measured from the engine's round trips")
				.baseUnit("seconds")
				.tag("backend", backendId())
				.strongReference(true)
				.register(this.registry);
		}
	}

	private static double seconds(Supplier<Optional<Duration>> offset) {
		return offset.get().map((value) -> value.toNanos() / 1e9).orElse(Double.NaN);
	}

	@Override
	public void acquireFailed(JobDefinition job, @Nullable Instant slot, Throwable error, Duration duration) {
		acquireTimer(job, "error").record(duration);
	}

	@Override
	public void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
			Duration duration, @Nullable Throwable error) {
		this.heldLeases.decrementAndGet();
		Timer.builder(EXECUTION)
			.description("Runs of cluster-singleton jobs on this node")
			.tag("name", job.name())
			.tag("outcome", outcome.tag())
			.register(this.registry)
			.record(duration);
		if (outcome == RunOutcome.SUCCESS) {
			long finishedAt = startedAt.plus(duration).toEpochMilli();
			this.lastSuccess.computeIfAbsent(job.name(), this::registerLastSuccess).set(finishedAt);
		}
	}

	@Override
	public void renewalAttempted(Collection<HeldLease> leases, int renewed, Duration duration,
			@Nullable Throwable error) {
		String outcome;
		if (error != null) {
			outcome = "error";
		}
		else {
			// "lost" only when the watchdog declared a lease of this batch lost, which it
			// does before it reports the round trip: a run that ended and released its
			// lease while the round trip was under way was not renewed either, but it was
			// not lost
			boolean lost = false;
			for (HeldLease lease : leases) {
				lost |= (this.lostLeaseTokens.remove(lease.leaseToken()) != null);
			}
			outcome = lost ? "lost" : "ok";
		}
		Timer.builder(RENEWAL)
			.description("Batched renewal round trips of this node's leases")
			.tag("backend", backendId())
			.tag("outcome", outcome)
			.register(this.registry)
			.record(duration);
	}

	@Override
	public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
		rememberLost(lease);
		Counter.builder(LEASE_LOST)
			.description("Runs of cluster-singleton jobs that lost their lease while running")
			.tag("name", job.name())
			.register(this.registry)
			.increment();
	}

	/**
	 * Return how many leases this node holds for running jobs, as the
	 * {@value #LEASES_HELD} gauge reports it.
	 * @return the number of held leases
	 */
	public int heldLeases() {
		return this.heldLeaseCount.getAsInt();
	}

	private Timer acquireTimer(JobDefinition job, String outcome) {
		return Timer.builder(ACQUIRE)
			.description("Attempts to acquire the lease of a cluster-singleton job")
			.tag("name", job.name())
			.tag("backend", backendId())
			.tag("outcome", outcome)
			.register(this.registry);
	}

	private AtomicLong registerLastSuccess(String name) {
		AtomicLong holder = new AtomicLong();
		TimeGauge.builder(LAST_SUCCESS, holder, TimeUnit.MILLISECONDS, AtomicLong::get)
			.description("When the cluster-singleton job last finished successfully on this node, since the epoch")
			.tag("name", name)
			.tag("scope", "node")
			.strongReference(true)
			.register(this.registry);
		return holder;
	}

	/**
	 * Register the cluster-wide meters of the jobs the engine watches: the
	 * {@code cluster.singleton.overdue} gauge and the
	 * {@code cluster.singleton.last.success} time gauge with tag {@code scope=cluster},
	 * both read from the engine's view of the run ledger. Called once the engine knows
	 * its jobs.
	 * @param executor the engine
	 */
	public void bindJobs(ClusterSingletonExecutor executor) {
		FunctionCounter.builder(LEDGER_FAILURES, executor, ClusterSingletonExecutor::ledgerFailures)
			.description("Writes to the cluster-wide run ledger that failed or were dropped; runs go on without them")
			.register(this.registry);
		for (JobDefinition job : executor.registeredJobs()) {
			if (job.policies().alertAfter() == null) {
				continue;
			}
			String name = job.name();
			Gauge.builder(OVERDUE, executor, (engine) -> engine.isOverdue(job) ? 1 : 0)
				.description("Whether no node has run the cluster-singleton job successfully within its alert-after "
						+ "(1) or not (0), from the cluster-wide run ledger")
				.tag("name", name)
				.strongReference(true)
				.register(this.registry);
			TimeGauge
				.builder(LAST_SUCCESS, executor, TimeUnit.MILLISECONDS,
						(engine) -> engine.clusterLastSuccess(name)
							.map((instant) -> (double) instant.toEpochMilli())
							.orElse(Double.NaN))
				.description("When the cluster-singleton job last finished successfully on any node, since the "
						+ "epoch (NaN while none is known)")
				.tag("name", name)
				.tag("scope", "cluster")
				.strongReference(true)
				.register(this.registry);
		}
	}

	private void rememberLost(HeldLease lease) {
		long now = System.nanoTime();
		this.lostLeaseTokens.put(lease.leaseToken(), now);
		if (this.lostLeaseTokens.size() > this.pruneSize) {
			this.lostLeaseTokens.values().removeIf((lost) -> now - lost > LOST_RETENTION_NANOS);
			// prune again only once the map has doubled: amortized constant time per run
			this.pruneSize = Math.max(MIN_PRUNE_SIZE, this.lostLeaseTokens.size() * 2);
		}
	}

	private String backendId() {
		String id = this.resolvedBackendId;
		if (id == null) {
			try {
				id = this.backendId.get();
			}
			catch (RuntimeException ex) {
				return UNKNOWN_BACKEND;
			}
			this.resolvedBackendId = id;
		}
		return id;
	}

}
