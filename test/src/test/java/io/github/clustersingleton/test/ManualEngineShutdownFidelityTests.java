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

import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review (engine-virtual-time): the shutdown of a {@link ManualClusterSingletonEngine}
 * must end as the real engine's does. {@code ClusterSingletonExecutor.shutdown} ends with
 * {@code ledger.close(1000)}: {@code shutdown()} of the ledger writer, then
 * {@code awaitTermination}, which on a real pool waits for the queued writes. The
 * {@link DeterministicScheduler}'s pool reports itself terminated at once and leaves the
 * writes queued, so the run's end never reaches the ledger in virtual time.
 *
 * @author cluster-singleton contributors
 */
class ManualEngineShutdownFidelityTests {

	private static final JobDefinition JOB = JobDefinition.of("fidelity", Duration.ofMinutes(1), Duration.ZERO);

	@Test
	void realEngineWritesTheRunsEndToTheLedgerBeforeCloseReturns() throws Throwable {
		InMemoryLeaseBackend store = new InMemoryLeaseBackend(Clock.systemUTC());
		ClusterSingletonExecutor node = new ClusterSingletonExecutor(store,
				new ClusterSingletonExecutor.Settings("node-a", Duration.ofSeconds(3), Duration.ofSeconds(1), true),
				Clock.systemUTC(), new ClusterSingletonListener() {
				});
		assertThat(node.execute(JOB, (Instant) null, () -> null)).isTrue();
		node.close();
		assertThat(store.runLedger().history("fidelity", 10)).extracting(RunRecord::state)
			.containsExactly(RunState.SUCCEEDED);
	}

	@Test
	void manualEngineWritesTheRunsEndToTheLedgerBeforeCloseReturns() throws Throwable {
		ManualClusterSingletonEngine engine = ManualClusterSingletonEngine.builder()
			.owner("node-a")
			.leaseTtl(Duration.ofSeconds(3))
			.build();
		assertThat(engine.executor().execute(JOB, (Instant) null, () -> null)).isTrue();
		engine.close();
		assertThat(engine.store().runLedger().history("fidelity", 10)).extracting(RunRecord::state)
			.containsExactly(RunState.SUCCEEDED);
	}

}
