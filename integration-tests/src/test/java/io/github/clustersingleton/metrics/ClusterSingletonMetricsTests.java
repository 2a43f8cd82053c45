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
import java.util.List;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import io.github.clustersingleton.lease.JobDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterSingletonMetrics} called directly.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final ClusterSingletonMetrics metrics = new ClusterSingletonMetrics(this.registry, () -> "stub");

	private final JobDefinition job = JobDefinition.of("job", Duration.ofMinutes(1), Duration.ZERO);

	@Test
	void renewalIsLostWhenTheWatchdogDeclaredALeaseOfTheBatchLost() {
		HeldLease a = lease("a");
		HeldLease b = lease("b");
		this.metrics.renewalAttempted(List.of(a, b), 2, Duration.ofMillis(3), null);
		assertThat(renewals("ok")).isOne();
		// the watchdog declares the lease lost before it reports the round trip
		this.metrics.leaseLost(this.job, b, "the store no longer holds this node's lease");
		this.metrics.renewalAttempted(List.of(a, b), 1, Duration.ofMillis(3), null);
		assertThat(renewals("lost")).isOne();
		assertThat(this.registry.get(ClusterSingletonMetrics.LEASE_LOST).tag("name", "job").counter().count()).isOne();
		this.metrics.renewalAttempted(List.of(a), 1, Duration.ofMillis(3), null);
		assertThat(renewals("ok")).isEqualTo(2);
		this.metrics.renewalAttempted(List.of(a), 0, Duration.ofMillis(3), new IllegalStateException("down"));
		assertThat(renewals("error")).isOne();
	}

	@Test
	void leaseOfARunThatEndedDuringTheRoundTripIsNotLost() {
		HeldLease ended = lease("ended");
		HeldLease running = lease("running");
		this.metrics.acquireAttempted(this.job, null, AcquireResult.acquired(1), Duration.ofMillis(1));
		this.metrics.runFinished(this.job, ended, RunOutcome.SUCCESS, Instant.now(), Duration.ofMillis(5), null);
		// the store no longer had the ended run's lease: released, not lost
		this.metrics.renewalAttempted(List.of(ended, running), 1, Duration.ofMillis(3), null);
		assertThat(renewals("ok")).isOne();
		assertThat(this.registry.find(ClusterSingletonMetrics.RENEWAL).tag("outcome", "lost").timer()).isNull();
	}

	@Test
	void heldLeasesFollowAcquisitionsAndRuns() {
		this.metrics.acquireAttempted(this.job, null, AcquireResult.acquired(1), Duration.ofMillis(1));
		this.metrics.acquireAttempted(this.job, null, AcquireResult.held("other"), Duration.ofMillis(1));
		assertThat(this.registry.get(ClusterSingletonMetrics.LEASES_HELD).gauge().value()).isOne();
		this.metrics.runFinished(this.job, lease("a"), RunOutcome.FAILURE, Instant.now(), Duration.ofMillis(5),
				new IllegalStateException());
		assertThat(this.registry.get(ClusterSingletonMetrics.LEASES_HELD).gauge().value()).isZero();
		assertThat(this.registry.get(ClusterSingletonMetrics.ACQUIRE).tag("backend", "stub").timers()).hasSize(2);
	}

	private long renewals(String outcome) {
		return this.registry.get(ClusterSingletonMetrics.RENEWAL)
			.tag("backend", "stub")
			.tag("outcome", outcome)
			.timer()
			.count();
	}

	private static HeldLease lease(String token) {
		return new HeldLease("job", "node", token, 1, null);
	}

}
