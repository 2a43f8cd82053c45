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
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.contract.AbstractLeaseEngineContractTests;
import io.github.clustersingleton.contract.EngineTime;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;

/**
 * The engine half of the contract suite in virtual time, on an
 * {@link InMemoryLeaseBackend} whose expiry reads a {@link ManualClock}: the nodes, their
 * background work and the store share one clock and one {@link DeterministicScheduler},
 * and a case's waits move that clock instead of sleeping. It runs in every build, in
 * seconds; the same cases run in real time on every store in the full build.
 *
 * @author cluster-singleton contributors
 */
class InMemoryLeaseEngineContractTests extends AbstractLeaseEngineContractTests {

	private final DeterministicScheduler scheduler = new DeterministicScheduler(new ManualClock(Instant.now()));

	private final InMemoryLeaseBackend backend = new InMemoryLeaseBackend(this.scheduler.clock());

	private final InMemoryLeaseBackend unreachableBackend = new InMemoryLeaseBackend(this.scheduler.clock());

	private final EngineTime time = new VirtualTime(this.scheduler);

	InMemoryLeaseEngineContractTests() {
		this.unreachableBackend.setReachable(false);
	}

	@Override
	protected LeaseBackend backend() {
		return this.backend;
	}

	@Override
	protected LeaseBackend unreachableBackend() {
		return this.unreachableBackend;
	}

	@Override
	protected String jobName(String name) {
		return "engine-" + name;
	}

	@Override
	protected EngineTime engineTime() {
		return this.time;
	}

	/**
	 * Virtual time: a {@link ManualClock} and the {@link DeterministicScheduler} that
	 * moves it.
	 */
	private record VirtualTime(DeterministicScheduler scheduler) implements EngineTime {

		@Override
		public boolean isVirtual() {
			return true;
		}

		@Override
		public Clock clock() {
			return this.scheduler.clock();
		}

		@Override
		public long nanoTime() {
			return this.scheduler.clock().nanoTime();
		}

		@Override
		public void advance(Duration duration) {
			this.scheduler.advance(duration);
		}

		@Override
		public ClusterSingletonExecutor executor(LeaseBackend backend, ClusterSingletonExecutor.Settings settings,
				Clock clock, ClusterSingletonListener listener) {
			return new ClusterSingletonExecutor(backend, settings, clock, listener, this.scheduler.clock(),
					this.scheduler.engineExecutors(), this.scheduler.sleeper());
		}

		@Override
		public ScheduledExecutorService scheduledExecutor(String name) {
			return this.scheduler.newExecutor();
		}

	}

}
