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

package io.github.clustersingleton.contract;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.StoreClockObserver;
import io.github.clustersingleton.PartialRenewalException;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the engine half of the contract shares: the backend under test and the hooks a
 * store's test class overrides, the executors each case starts (closed after it) in the
 * time the cases run in ({@link EngineContractTime}), the TTL of every case, the cron
 * fixtures of the recovery and catch-up cases, and the helper classes
 * {@link RecordingListener} and {@link FlakyBackend}. The engine half is a chain of
 * abstract classes, one group of cases each, from this one up to
 * {@link AbstractLeaseEngineContractTests}; {@link EngineContractScope} treats a case as
 * an engine case when one of them declares it.
 *
 * @author cluster-singleton contributors
 */
abstract class EngineContractSupport extends EngineContractTime {

	/**
	 * The shortest TTL the engine accepts: renewals every third of a second.
	 */
	static final Duration TTL = Duration.ofSeconds(1);

	private static final Set<Class<?>> WARMED_UP = ConcurrentHashMap.newKeySet();

	private final List<ClusterSingletonExecutor> executors = new CopyOnWriteArrayList<>();

	/**
	 * Return the backend under test, on a reachable store.
	 * @return the backend
	 */
	protected abstract LeaseBackend backend();

	/**
	 * Return a backend whose store cannot be reached.
	 * @return the backend
	 */
	protected abstract LeaseBackend unreachableBackend();

	/**
	 * Return a job name unique to this test class.
	 * @param name the name within the test
	 * @return the job name
	 */
	protected abstract String jobName(String name);

	/**
	 * Whether this store runs the engine contract in real time in every build, not only
	 * in the full one (none of this project's stores does: the default build runs the
	 * engine contract in virtual time on the in-memory store instead).
	 * @return {@code true} to run it in every build
	 */
	protected boolean runsEngineContractInEveryBuild() {
		return false;
	}

	/**
	 * Before an engine case in real time, send the store one claim and release of a job
	 * of its own, once per test class: the first statements on a store that has just
	 * started (a cold buffer pool, a table's first rows) can take longer than the cases'
	 * one-second TTL on a loaded machine, and the engine then rightly gives such a late
	 * grant back instead of running the job the case waits for.
	 * @param testInfo the case about to run
	 */
	@BeforeEach
	void warmUpTheStore(TestInfo testInfo) {
		boolean engineCase = testInfo.getTestMethod().map(EngineContractScope::isEngineContractTest).orElse(false);
		if (!engineCase || engineTime().isVirtual() || !WARMED_UP.add(getClass())) {
			return;
		}
		LeaseRequest warmUp = request(jobName("warm-up"), "warm-up");
		for (int attempt = 0; attempt < 3; attempt++) {
			try {
				AcquireResult result = backend().tryAcquire(warmUp);
				if (result.isAcquired()) {
					backend().release(HeldLease.of(warmUp, result.fencingToken()), Duration.ZERO);
				}
				return;
			}
			catch (RuntimeException ex) {
				// the case itself reports a store that does not answer
			}
		}
	}

	@AfterEach
	void closeExecutors() {
		this.executors.forEach(ClusterSingletonExecutor::close);
		this.executors.clear();
	}

	/**
	 * Whether the store renews a lease whose TTL has passed while no other node took it
	 * (a compare-and-set on the record rather than a check of its expiry).
	 * @return {@code true} when it does
	 */
	protected boolean renewsALeaseNobodyTookAfterItsTtl() {
		return false;
	}

	/**
	 * Return whether the backend supports claim policies, {@code startRun},
	 * {@code findPending} and a run ledger.
	 * @return whether the recovery and catch-up cases apply
	 */
	protected boolean supportsRecovery() {
		return true;
	}

	private static final Instant BASE = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofHours(2));

	static Instant minute(int n) {
		return BASE.plus(Duration.ofMinutes(n));
	}

	static JobDefinition cronJob(String name, JobPolicies policies) {
		return JobDefinition.of(name, Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC))
			.withPolicies(policies);
	}

	static JobPolicies policies(MisfirePolicy misfire, int limit, RecoveryPolicy recovery, int maxAttempts,
			Duration retryDelay) {
		return new JobPolicies(misfire, limit, recovery, maxAttempts, retryDelay, null);
	}

	/**
	 * What a run saw of its context.
	 */
	record Seen(String node, @Nullable Instant slot, int attempt, RunTrigger trigger, long fencingToken,
			List<Instant> missedSlots) {

		static Seen of(String node) {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			return new Seen(node, context.slot().orElse(null), context.attempt(), context.trigger(),
					context.fencingToken(), context.missedSlots());
		}

	}

	/**
	 * An executor that does not interrupt a run whose lease is lost, so that its body
	 * returns or throws when it chooses.
	 */
	ClusterSingletonExecutor uninterruptingExecutor(String owner, LeaseBackend backend,
			ClusterSingletonListener listener) {
		ClusterSingletonExecutor executor = engineTime().executor(backend,
				new ClusterSingletonExecutor.Settings(owner, TTL, Duration.ofSeconds(1), false), clock(), listener);
		this.executors.add(executor);
		return executor;
	}

	/**
	 * The real backend, with renewals that fail while {@code fail} is set.
	 */
	static LeaseBackend failingRenewals(LeaseBackend real, AtomicBoolean fail) {
		return (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("renew") && fail.get()) {
						throw new IllegalStateException("store unreachable (simulated)");
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

	ClusterSingletonExecutor executor(String owner, LeaseBackend backend, Clock clock,
			ClusterSingletonListener listener) {
		return executor(owner, backend, clock, listener, TTL);
	}

	ClusterSingletonExecutor executor(String owner, LeaseBackend backend, Clock clock,
			ClusterSingletonListener listener, Duration ttl) {
		ClusterSingletonExecutor executor = engineTime().executor(backend,
				new ClusterSingletonExecutor.Settings(owner, ttl, Duration.ofSeconds(1), true), clock, listener);
		this.executors.add(executor);
		return executor;
	}

	/**
	 * Start a run of {@code job} on another thread that sleeps until interrupted, and
	 * wait until it holds its lease.
	 */
	BlockingRun startBlockingRun(ClusterSingletonExecutor node, String job) throws InterruptedException {
		CountDownLatch started = new CountDownLatch(1);
		AtomicLong interruptedAt = new AtomicLong();
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		Future<Boolean> run = submit(
				() -> node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null, () -> {
					context.set(ClusterSingletonContext.current());
					started.countDown();
					try {
						Thread.sleep(30_000);
					}
					catch (InterruptedException ex) {
						interruptedAt.set(nanoTime());
					}
					return null;
				}));
		assertThat(awaitOpen(started, Duration.ofSeconds(10))).isTrue();
		return new BlockingRun(run, context.get(), interruptedAt);
	}

	record BlockingRun(Future<Boolean> run, ClusterSingletonContext context, AtomicLong interruptedAt) {

	}

	Future<Boolean> submit(GuardedCall call) {
		return this.threads.submit(() -> {
			try {
				return call.call();
			}
			catch (Exception | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	@FunctionalInterface
	interface GuardedCall {

		boolean call() throws Throwable;

	}

	static LeaseRequest request(String job, String owner) {
		return new LeaseRequest(job, owner, java.util.UUID.randomUUID().toString().replace("-", ""),
				Duration.ofSeconds(30), null);
	}

	/**
	 * Records what the engine reports; shared with the backends' own engine tests.
	 */
	protected static final class RecordingListener implements ClusterSingletonListener {

		public final List<RunOutcome> outcomes = new CopyOnWriteArrayList<>();

		public final List<String> lost = new CopyOnWriteArrayList<>();

		public final AtomicLong renewals = new AtomicLong();

		public final AtomicLong renewalErrors = new AtomicLong();

		public final AtomicLong acquireErrors = new AtomicLong();

		public RecordingListener() {
		}

		@Override
		public void acquireFailed(JobDefinition job, @Nullable Instant slot, Throwable error, Duration duration) {
			this.acquireErrors.incrementAndGet();
		}

		@Override
		public void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
				Duration duration, @Nullable Throwable error) {
			this.outcomes.add(outcome);
		}

		@Override
		public void renewalAttempted(Collection<HeldLease> leases, int renewed, Duration duration,
				@Nullable Throwable error) {
			if (error != null) {
				this.renewalErrors.incrementAndGet();
			}
			else {
				this.renewals.incrementAndGet();
			}
		}

		@Override
		public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
			this.lost.add(reason);
		}

	}

	/**
	 * The real backend, with renewals that fail on demand, as when the store goes away in
	 * the middle of a run.
	 */
	final class FlakyBackend implements LeaseBackend {

		final AtomicBoolean failRenewals = new AtomicBoolean();

		/** Whether acquisitions fail, as when the store is unreachable. */
		final AtomicBoolean failAcquisitions = new AtomicBoolean();

		/** The job names of every acquisition asked for through this backend. */
		final List<String> acquiredJobs = new CopyOnWriteArrayList<>();

		/** How long the store takes to answer an acquisition. */
		volatile Duration acquireDelay = Duration.ZERO;

		/** When set, only this job's renewals fail, reported as a partial failure. */
		volatile @Nullable String failingJob;

		private final LeaseBackend delegate;

		FlakyBackend(LeaseBackend delegate) {
			this.delegate = delegate;
		}

		@Override
		public String id() {
			return this.delegate.id();
		}

		@Override
		public void validateJobName(String jobName) {
			this.delegate.validateJobName(jobName);
		}

		@Override
		public void setStoreClockObserver(StoreClockObserver observer) {
			this.delegate.setStoreClockObserver(observer);
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			this.acquiredJobs.add(request.jobName());
			if (this.failAcquisitions.get()) {
				throw new IllegalStateException("store unreachable (simulated)");
			}
			AcquireResult result = this.delegate.tryAcquire(request);
			if (!this.acquireDelay.isZero()) {
				try {
					advance(this.acquireDelay);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return result;
		}

		@Override
		public List<AcquireResult> tryAcquireAll(List<LeaseRequest> requests) {
			requests.forEach((request) -> this.acquiredJobs.add(request.jobName()));
			if (this.failAcquisitions.get()) {
				throw new IllegalStateException("store unreachable (simulated)");
			}
			List<AcquireResult> results = this.delegate.tryAcquireAll(requests);
			if (!this.acquireDelay.isZero()) {
				try {
					advance(this.acquireDelay);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return results;
		}

		@Override
		public boolean acquiresTogether() {
			return this.delegate.acquiresTogether();
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			if (this.failRenewals.get()) {
				throw new IllegalStateException("store unreachable (simulated)");
			}
			String failing = this.failingJob;
			if (failing != null) {
				List<HeldLease> others = leases.stream().filter((lease) -> !lease.jobName().equals(failing)).toList();
				Set<String> renewed = this.delegate.renew(others, ttl);
				throw new PartialRenewalException(renewed, Set.of(),
						new IllegalStateException("429 Too Many Requests (simulated)"));
			}
			return this.delegate.renew(leases, ttl);
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
			this.delegate.release(lease, lockAtLeastFor);
		}

		@Override
		public java.util.Optional<LeaseInfo> describe(String jobName) {
			return this.delegate.describe(jobName);
		}

		@Override
		public boolean forceRelease(String jobName) {
			return this.delegate.forceRelease(jobName);
		}

		@Override
		public void probe() {
			this.delegate.probe();
		}

	}

}
