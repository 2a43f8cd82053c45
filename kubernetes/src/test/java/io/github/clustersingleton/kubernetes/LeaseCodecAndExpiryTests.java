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

package io.github.clustersingleton.kubernetes;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Unit tests of the Lease codec and the client-go style expiry observer.
 *
 * @author cluster-singleton contributors
 */
class LeaseCodecAndExpiryTests {

	private static final ZonedDateTime RENEWED = ZonedDateTime.of(2026, 11, 24, 5, 0, 0, 0, ZoneOffset.UTC);

	@Test
	void codecReadsTheAnnotationsAndFallsBackToTheCreationTime() {
		Lease lease = lease("node-a", "7", "2026-11-24T05:00:00Z", RENEWED);
		assertThat(LeaseCodec.holder(lease)).isEqualTo("node-a");
		assertThat(LeaseCodec.fencingToken(lease)).isEqualTo(7);
		assertThat(LeaseCodec.lastSlot(lease)).isEqualTo(Instant.parse("2026-11-24T05:00:00Z"));
		Lease fresh = new LeaseBuilder(lease).editMetadata()
			.withAnnotations(null)
			.withCreationTimestamp("2026-11-24T05:00:00Z")
			.endMetadata()
			.build();
		assertThat(LeaseCodec.fencingToken(fresh))
			.isEqualTo(Instant.parse("2026-11-24T05:00:00Z").getEpochSecond() * 1_000_000);
		assertThat(LeaseCodec.lastSlot(fresh)).isNull();
		assertThatIllegalStateException()
			.isThrownBy(() -> LeaseCodec.fencingToken(lease("node-a", "seven", null, RENEWED)))
			.withMessageContaining(KubernetesLeaseBackend.FENCING_TOKEN_ANNOTATION);
	}

	@Test
	void aLeaseIsLiveUntilItsRecordStayedTheSameForItsDuration() {
		AtomicLong now = new AtomicLong();
		LeaseExpiryObserver observer = new LeaseExpiryObserver(Duration.ofSeconds(30), now::get);
		Lease lease = lease("node-a", "1", null, RENEWED);
		assertThat(observer.isLive("job", lease)).isTrue();
		now.addAndGet(TimeUnit.SECONDS.toNanos(9));
		assertThat(observer.isLive("job", lease)).isTrue();
		// a renewal writes a later renewTime: the wait starts again
		Lease renewed = lease("node-a", "1", null, RENEWED.plusSeconds(5));
		now.addAndGet(TimeUnit.SECONDS.toNanos(2));
		assertThat(observer.isLive("job", renewed)).isTrue();
		now.addAndGet(TimeUnit.SECONDS.toNanos(9));
		assertThat(observer.isLive("job", renewed)).isTrue();
		// an annotation someone else adds is not a renewal
		Lease labelled = new LeaseBuilder(renewed).editMetadata()
			.addToAnnotations("team", "billing")
			.endMetadata()
			.build();
		now.addAndGet(TimeUnit.SECONDS.toNanos(1));
		assertThat(observer.isLive("job", labelled)).isFalse();
	}

	@Test
	void hasExpiredOnlyJudgesTheRecordSeenLastAndRecordsNothing() {
		AtomicLong now = new AtomicLong();
		LeaseExpiryObserver observer = new LeaseExpiryObserver(Duration.ofSeconds(30), now::get);
		Lease lease = lease("node-a", "1", null, RENEWED);
		assertThat(observer.hasExpired("job", lease)).as("never seen").isFalse();
		observer.observe("job", lease);
		now.addAndGet(TimeUnit.SECONDS.toNanos(9));
		assertThat(observer.hasExpired("job", lease)).isFalse();
		Lease older = lease("node-a", "1", null, RENEWED.minusSeconds(5));
		now.addAndGet(TimeUnit.SECONDS.toNanos(2));
		assertThat(observer.hasExpired("job", older)).as("not the record seen last").isFalse();
		assertThat(observer.hasExpired("job", lease)).isTrue();
		assertThat(observer.isLive("job", lease)).isFalse();
	}

	@Test
	void codecReadsTheRunAndJudgesPendingWorkOnTheLeaseAsRead() {
		Instant s1 = Instant.parse("2026-11-24T05:00:00Z");
		Instant s2 = s1.plusSeconds(60);
		Instant now = s1.plusSeconds(90);
		ClaimPolicy lost = new ClaimPolicy(true, false, 2, false);
		ClaimPolicy failed = new ClaimPolicy(true, true, 3, false);
		ClaimPolicy catchUp = new ClaimPolicy(false, false, 1, true);
		Lease noRun = lease(null, "1", s1.toString(), RENEWED);
		assertThat(LeaseCodec.run(noRun)).isNull();
		assertThat(LeaseCodec.isPending(noRun, failed, null, true, now)).isFalse();
		Lease running = run(noRun, s1, 1, RunState.RUNNING, null);
		assertThat(LeaseCodec.run(running)).isEqualTo(new SlotRun(s1, 1, RunState.RUNNING));
		assertThat(LeaseCodec.isPending(running, lost, null, false, now)).isTrue();
		assertThat(LeaseCodec.isPending(running, catchUp, null, false, now)).isFalse();
		assertThat(LeaseCodec.isPending(running, ClaimPolicy.NONE, null, true, now)).isFalse();
		assertThat(LeaseCodec.isPending(run(noRun, s1, 2, RunState.RUNNING, null), lost, null, false, now))
			.as("attempt limit")
			.isFalse();
		Lease failedLater = run(noRun, s1, 1, RunState.FAILED, now.plusSeconds(1));
		assertThat(LeaseCodec.isPending(failedLater, failed, null, false, now)).as("before retry-at").isFalse();
		assertThat(LeaseCodec.isPending(failedLater, failed, null, true, now)).as("first claim").isTrue();
		assertThat(LeaseCodec.isPending(failedLater, lost, null, true, now)).as("recoverLost only").isFalse();
		assertThat(LeaseCodec.isPending(run(noRun, s1, 1, RunState.FAILED, now), failed, null, false, now))
			.as("at retry-at")
			.isTrue();
		Lease gap = run(lease(null, "1", s2.toString(), RENEWED), s1, 1, RunState.SUCCEEDED, null);
		assertThat(LeaseCodec.isPending(gap, lost, null, false, now)).as("run slot before last slot").isTrue();
		assertThat(LeaseCodec.isPending(gap, catchUp, null, false, now))
			.as("claimed slots no run served, under a misfire policy")
			.isTrue();
		Lease succeeded = run(noRun, s1, 1, RunState.SUCCEEDED, null);
		assertThat(LeaseCodec.isPending(succeeded, catchUp, s2, true, now)).as("unclaimed slots").isTrue();
		assertThat(LeaseCodec.isPending(succeeded, catchUp, s2, false, now)).as("recovery claim").isFalse();
		assertThat(LeaseCodec.isPending(succeeded, catchUp, s1, true, now)).as("no gap").isFalse();
		assertThatIllegalStateException()
			.isThrownBy(() -> LeaseCodec.run(new LeaseBuilder(run(noRun, s1, 1, RunState.RUNNING, null)).editMetadata()
				.addToAnnotations(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, "sleeping")
				.endMetadata()
				.build()))
			.withMessageContaining(KubernetesLeaseBackend.RUN_STATE_ANNOTATION);
	}

	private static Lease run(Lease lease, Instant slot, int attempt, RunState state, Instant retryAt) {
		Lease copy = new LeaseBuilder(lease).build();
		LeaseCodec.startRun(copy.getMetadata().getAnnotations(), slot, attempt);
		copy.getMetadata().getAnnotations().put(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, state.value());
		if (retryAt != null) {
			copy.getMetadata().getAnnotations().put(KubernetesLeaseBackend.RETRY_AT_ANNOTATION, retryAt.toString());
		}
		return copy;
	}

	private static Lease lease(String holder, String fence, String lastSlot, ZonedDateTime renewTime) {
		LeaseBuilder builder = new LeaseBuilder().withNewMetadata()
			.withName("cluster-singleton-job")
			.addToAnnotations(KubernetesLeaseBackend.FENCING_TOKEN_ANNOTATION, fence)
			.addToAnnotations(KubernetesLeaseBackend.LEASE_TOKEN_ANNOTATION, "token")
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity(holder)
			.withLeaseDurationSeconds(10)
			.withRenewTime(renewTime)
			.endSpec();
		if (lastSlot != null) {
			builder.editMetadata()
				.addToAnnotations(KubernetesLeaseBackend.LAST_SLOT_ANNOTATION, lastSlot)
				.endMetadata();
		}
		return builder.build();
	}

}
