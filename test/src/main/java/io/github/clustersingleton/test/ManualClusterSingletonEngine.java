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

package io.github.clustersingleton.test;

import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A cluster-singleton engine on the {@link InMemoryLeaseBackend} that runs in virtual
 * time: nothing happens in the background; {@link #advance(Duration)} moves the
 * {@link ManualClock} and runs, on the calling thread and in order, every watchdog tick,
 * renewal, local deadline and {@code lockAtMostFor} check, pending-work scan, recovery
 * and catch-up run, completion retry and run-ledger write that falls due on the way. Wall
 * time, the engine's ticker and the store's expiry all read the same clock.
 * <p>
 * A job body may call {@link #advance(Duration)} itself to let time pass while it runs: a
 * lost lease then interrupts the calling thread, as it would the job's thread. Several
 * nodes of one cluster share the clock, the scheduler and the store: build them with
 * {@link #anotherNode(String)}. <pre class="code">
 * ManualClusterSingletonEngine node = ManualClusterSingletonEngine.builder().leaseTtl(Duration.ofSeconds(30)).build();
 * node.executor().execute(job, (Instant) null, () -&gt; {
 *     node.advance(Duration.ofMinutes(2)); // renewed every 10 s meanwhile
 *     return null;
 * });
 * </pre>
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class ManualClusterSingletonEngine implements AutoCloseable {

	private final DeterministicScheduler scheduler;

	private final InMemoryLeaseBackend store;

	private final ClusterSingletonExecutor executor;

	private ManualClusterSingletonEngine(DeterministicScheduler scheduler, InMemoryLeaseBackend store,
			ClusterSingletonExecutor executor) {
		this.scheduler = scheduler;
		this.store = store;
		this.executor = executor;
	}

	/**
	 * Start building an engine with a new clock, scheduler and store.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Start building another node of this engine's cluster: same clock, scheduler and
	 * store, and this node's settings but its owner.
	 * @param owner the identity of the new node in the store
	 * @return the builder
	 */
	public Builder anotherNode(String owner) {
		ClusterSingletonExecutor.Settings settings = this.executor.getSettings();
		return new Builder().scheduler(this.scheduler)
			.store(this.store)
			.owner(owner)
			.leaseTtl(settings.leaseTtl())
			.slotTolerance(settings.slotTolerance())
			.interruptOnLeaseLoss(settings.interruptOnLeaseLoss());
	}

	/**
	 * Return the engine, to run jobs with.
	 * @return the executor
	 */
	public ClusterSingletonExecutor executor() {
		return this.executor;
	}

	/**
	 * Return the in-memory store of this engine's cluster.
	 * @return the store
	 */
	public InMemoryLeaseBackend store() {
		return this.store;
	}

	/**
	 * Return the clock of this engine's cluster.
	 * @return the clock
	 */
	public ManualClock clock() {
		return this.scheduler.clock();
	}

	/**
	 * Return the scheduler that runs this engine's background work.
	 * @return the scheduler
	 */
	public DeterministicScheduler scheduler() {
		return this.scheduler;
	}

	/**
	 * Move time forward, running every background task of the cluster that falls due on
	 * the way, at its due time, on the calling thread.
	 * @param duration how far to move
	 */
	public void advance(Duration duration) {
		this.scheduler.advance(duration);
	}

	/**
	 * Run the background tasks due now (run-ledger writes, a first scan), without moving
	 * time.
	 */
	public void runDueTasks() {
		this.scheduler.runDueTasks();
	}

	/**
	 * Shut the engine down; its waits for running jobs and undelivered completions
	 * advance virtual time instead of sleeping.
	 */
	@Override
	public void close() {
		this.executor.close();
	}

	/**
	 * Builds a {@link ManualClusterSingletonEngine}. Defaults are those of
	 * {@code cluster-singleton.*}: a lease TTL of 30 s, a slot tolerance of 1 s, runs
	 * interrupted when they lose their lease.
	 */
	public static final class Builder {

		private @Nullable DeterministicScheduler scheduler;

		private @Nullable InMemoryLeaseBackend store;

		private UnaryOperator<LeaseBackend> backendDecorator = UnaryOperator.identity();

		private @Nullable Clock nodeClock;

		private String owner = "node";

		private Duration leaseTtl = Duration.ofSeconds(30);

		private Duration slotTolerance = Duration.ofSeconds(1);

		private boolean interruptOnLeaseLoss = true;

		private ClusterSingletonListener listener = new ClusterSingletonListener() {
		};

		private Duration shutdownGracePeriod = Duration.ZERO;

		private Builder() {
		}

		/**
		 * Use this scheduler and its clock; by default a new one on a new
		 * {@link ManualClock}.
		 * @param scheduler the scheduler
		 * @return this builder
		 */
		public Builder scheduler(DeterministicScheduler scheduler) {
			Assert.notNull(scheduler, "'scheduler' must not be null");
			this.scheduler = scheduler;
			return this;
		}

		/**
		 * Use this store, which must judge expiry by the scheduler's clock; by default a
		 * new one on that clock.
		 * @param store the store
		 * @return this builder
		 */
		public Builder store(InMemoryLeaseBackend store) {
			Assert.notNull(store, "'store' must not be null");
			this.store = store;
			return this;
		}

		/**
		 * Put a decorator between the engine and the store, to inject faults.
		 * @param decorator wraps the store
		 * @return this builder
		 */
		public Builder backendDecorator(UnaryOperator<LeaseBackend> decorator) {
			Assert.notNull(decorator, "'decorator' must not be null");
			this.backendDecorator = decorator;
			return this;
		}

		/**
		 * Read this node's wall time from {@code nodeClock}, for example
		 * {@code Clock.offset(clock, skew)} for a node whose clock is off the store's; by
		 * default the scheduler's clock.
		 * @param nodeClock the node's clock
		 * @return this builder
		 */
		public Builder nodeClock(Clock nodeClock) {
			Assert.notNull(nodeClock, "'nodeClock' must not be null");
			this.nodeClock = nodeClock;
			return this;
		}

		/**
		 * Set the identity of this node in the store.
		 * @param owner the owner
		 * @return this builder
		 */
		public Builder owner(String owner) {
			Assert.hasText(owner, "'owner' must not be empty");
			this.owner = owner;
			return this;
		}

		/**
		 * Set the time to live of a lease between renewals.
		 * @param leaseTtl the TTL
		 * @return this builder
		 */
		public Builder leaseTtl(Duration leaseTtl) {
			this.leaseTtl = leaseTtl;
			return this;
		}

		/**
		 * Set how early a cron trigger may fire and still own the next slot.
		 * @param slotTolerance the tolerance
		 * @return this builder
		 */
		public Builder slotTolerance(Duration slotTolerance) {
			this.slotTolerance = slotTolerance;
			return this;
		}

		/**
		 * Set whether to interrupt a run that lost its lease.
		 * @param interruptOnLeaseLoss whether to interrupt
		 * @return this builder
		 */
		public Builder interruptOnLeaseLoss(boolean interruptOnLeaseLoss) {
			this.interruptOnLeaseLoss = interruptOnLeaseLoss;
			return this;
		}

		/**
		 * Set the listener the engine tells of acquisitions, renewals, losses and runs.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(ClusterSingletonListener listener) {
			Assert.notNull(listener, "'listener' must not be null");
			this.listener = listener;
			return this;
		}

		/**
		 * Set how long {@link ManualClusterSingletonEngine#close()} waits, in virtual
		 * time, for running jobs and undelivered completions.
		 * @param shutdownGracePeriod the grace period
		 * @return this builder
		 */
		public Builder shutdownGracePeriod(Duration shutdownGracePeriod) {
			Assert.notNull(shutdownGracePeriod, "'shutdownGracePeriod' must not be null");
			this.shutdownGracePeriod = shutdownGracePeriod;
			return this;
		}

		/**
		 * Build the engine.
		 * @return the engine
		 */
		public ManualClusterSingletonEngine build() {
			DeterministicScheduler scheduler = (this.scheduler != null) ? this.scheduler
					: new DeterministicScheduler(new ManualClock());
			InMemoryLeaseBackend store = (this.store != null) ? this.store
					: new InMemoryLeaseBackend(scheduler.clock());
			Assert.isTrue(store.getClock() == scheduler.clock(),
					"The store must judge expiry by the scheduler's clock: create it with "
							+ "new InMemoryLeaseBackend(scheduler.clock())");
			LeaseBackend backend = this.backendDecorator.apply(store);
			Clock clock = (this.nodeClock != null) ? this.nodeClock : scheduler.clock();
			ClusterSingletonExecutor executor = new ClusterSingletonExecutor(backend,
					new ClusterSingletonExecutor.Settings(this.owner, this.leaseTtl, this.slotTolerance,
							this.interruptOnLeaseLoss),
					clock, this.listener, scheduler.clock(), scheduler.engineExecutors(), scheduler.sleeper());
			executor.setShutdownGracePeriod(this.shutdownGracePeriod);
			return new ManualClusterSingletonEngine(scheduler, store, executor);
		}

	}

}
