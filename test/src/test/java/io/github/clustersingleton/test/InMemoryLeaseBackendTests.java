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

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link InMemoryLeaseBackend} beyond the contract suite: the store's time is
 * the backend's clock, which a test moves instead of waiting.
 *
 * @author cluster-singleton contributors
 */
class InMemoryLeaseBackendTests {

	private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

	private static final Duration TTL = Duration.ofSeconds(30);

	private final MutableClock clock = new MutableClock(START);

	private final InMemoryLeaseBackend backend = new InMemoryLeaseBackend(this.clock);

	@Test
	void leaseExpiresWhenTheBackendClockPassesItsTtl() {
		HeldLease a = acquire("job", "node-a", null);
		this.clock.advance(TTL.minusMillis(1));
		assertThat(this.backend.tryAcquire(request("job", "node-b", null)).outcome()).isEqualTo(Outcome.HELD);
		assertThat(this.backend.describe("job")).get().extracting(LeaseInfo::live).isEqualTo(true);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(this.backend.describe("job")).get().extracting(LeaseInfo::live).isEqualTo(false);
		HeldLease b = acquire("job", "node-b", null);
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(this.backend.describe("job")).get().satisfies((info) -> {
			assertThat(info.holder()).isEqualTo("node-b");
			assertThat(info.acquiredAt()).isEqualTo(START.plus(TTL));
			assertThat(info.expiresAt()).isEqualTo(START.plus(TTL).plus(TTL));
		});
	}

	@Test
	void renewalExtendsFromTheBackendClockAndFailsOnceItExpired() {
		HeldLease a = acquire("job", "node-a", null);
		this.clock.advance(Duration.ofSeconds(20));
		assertThat(this.backend.renew(List.of(a), TTL)).containsExactly(a.leaseToken());
		assertThat(this.backend.describe("job")).get()
			.extracting(LeaseInfo::expiresAt)
			.isEqualTo(START.plusSeconds(20).plus(TTL));
		this.clock.advance(TTL);
		assertThat(this.backend.renew(List.of(a), TTL)).isEmpty();
		assertThat(this.backend.describe("job")).get().extracting(LeaseInfo::live).isEqualTo(false);
	}

	@Test
	void releaseKeepsTheLeaseUntilAcquisitionPlusLockAtLeastForByTheBackendClock() {
		HeldLease a = acquire("job", "node-a", null);
		this.clock.advance(Duration.ofSeconds(2));
		this.backend.release(a, Duration.ofMinutes(5));
		assertThat(this.backend.describe("job")).get().satisfies((info) -> {
			assertThat(info.live()).isTrue();
			assertThat(info.holder()).isEqualTo("node-a");
			assertThat(info.expiresAt()).isEqualTo(START.plus(Duration.ofMinutes(5)));
		});
		// kept without its token: neither renewed nor released again by its old owner
		assertThat(this.backend.renew(List.of(a), TTL)).isEmpty();
		this.backend.release(a, Duration.ZERO);
		this.clock.set(START.plus(Duration.ofMinutes(5)).minusMillis(1));
		AcquireResult early = this.backend.tryAcquire(request("job", "node-b", null));
		assertThat(early.outcome()).isEqualTo(Outcome.HELD);
		assertThat(early.holder()).isEqualTo("node-a");
		this.clock.advance(Duration.ofMillis(1));
		assertThat(acquire("job", "node-b", null).fencingToken()).isGreaterThan(a.fencingToken());
	}

	@Test
	void releaseAfterLockAtLeastForHasPassedEndsTheLeaseAtOnce() {
		HeldLease a = acquire("job", "node-a", null);
		this.clock.advance(Duration.ofSeconds(10));
		this.backend.release(a, Duration.ofSeconds(5));
		assertThat(this.backend.describe("job")).get().satisfies((info) -> {
			assertThat(info.live()).isFalse();
			assertThat(info.expiresAt()).isEqualTo(START.plusSeconds(10));
		});
		acquire("job", "node-b", null);
	}

	@Test
	void slotAheadIsJudgedByTheBackendClock() {
		// the backend's clock is years behind the system clock: a slot of "now" on this
		// machine lies ahead of the store
		LeaseRequest ahead = new LeaseRequest("job", "node-a", UUID.randomUUID().toString(), TTL, Instant.now(),
				Duration.ofSeconds(1));
		assertThat(this.backend.tryAcquire(ahead).outcome()).isEqualTo(Outcome.CLOCK_SKEW);
		assertThat(this.backend.describe("job")).isEmpty();
		LeaseRequest justAhead = new LeaseRequest("job", "node-a", UUID.randomUUID().toString(), TTL,
				START.plusSeconds(1), Duration.ofSeconds(1));
		assertThat(this.backend.tryAcquire(justAhead).outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(this.backend.describe("job")).get().extracting(LeaseInfo::lastSlot).isEqualTo(START.plusSeconds(1));
	}

	@Test
	void aHeldLeaseWithASlotAheadIsClockSkewAndAnOldSlotIsSlotDone() {
		Instant slot = START.minusSeconds(60);
		acquire("job", "node-a", slot);
		AcquireResult ahead = this.backend.tryAcquire(new LeaseRequest("job", "node-b", UUID.randomUUID().toString(),
				TTL, START.plusSeconds(5), Duration.ofSeconds(1)));
		assertThat(ahead.outcome()).isEqualTo(Outcome.CLOCK_SKEW);
		assertThat(ahead.lastSlot()).isEqualTo(slot);
		AcquireResult same = this.backend.tryAcquire(request("job", "node-b", slot));
		assertThat(same.outcome()).isEqualTo(Outcome.SLOT_DONE);
		assertThat(same.lastSlot()).isEqualTo(slot);
	}

	@Test
	void storeTimeReportedIsTheBackendClock() {
		List<Instant> seen = new CopyOnWriteArrayList<>();
		this.backend.setStoreClockObserver(seen::add);
		HeldLease a = acquire("job", "node-a", null);
		this.clock.advance(Duration.ofSeconds(3));
		this.backend.renew(List.of(a), TTL);
		this.clock.advance(Duration.ofSeconds(3));
		this.backend.tryAcquire(request("job", "node-b", null));
		this.backend.release(a, Duration.ZERO);
		this.backend.describe("job");
		assertThat(seen).containsExactly(START, START.plusSeconds(3), START.plusSeconds(6));
	}

	@Test
	void fencingTokensAreCountedPerJob() {
		HeldLease a = acquire("job-a", "node-a", null);
		this.backend.release(a, Duration.ZERO);
		HeldLease a2 = acquire("job-a", "node-a", null);
		HeldLease b = acquire("job-b", "node-a", null);
		assertThat(a2.fencingToken()).isGreaterThan(a.fencingToken());
		assertThat(b.fencingToken()).isEqualTo(a.fencingToken());
	}

	@Test
	void aForceReleasedLeaseStaysReleasedWhenTheClockGoesBack() {
		HeldLease a = acquire("job", "node-a", null);
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(this.backend.forceRelease("job")).isTrue();
		this.clock.set(START);
		assertThat(this.backend.renew(List.of(a), TTL)).isEmpty();
		this.backend.release(a, Duration.ZERO);
		assertThat(this.backend.describe("job")).get()
			.extracting(LeaseInfo::expiresAt)
			.isEqualTo(START.plusSeconds(10));
	}

	@Test
	void jobNamesAreNonEmptyAndAtMost200Characters() {
		assertThatNoException().isThrownBy(() -> this.backend.validateJobName("x".repeat(200)));
		assertThatNoException().isThrownBy(() -> this.backend.validateJobName("Billing.bill / nightly: ü"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName(""))
			.withMessageContaining("empty");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backend.validateJobName("x".repeat(201)))
			.withMessageContaining("201")
			.withMessageContaining("200");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.backend.tryAcquire(request("x".repeat(201), "node-a", null)));
		assertThat(acquire("x".repeat(200), "node-a", null).fencingToken()).isEqualTo(1);
	}

	@Test
	void anUnreachableStoreFailsEveryOperationAndKeepsItsLeases() {
		HeldLease a = acquire("job", "node-a", null);
		this.backend.setReachable(false);
		assertThat(this.backend.isReachable()).isFalse();
		assertThatIllegalStateException().isThrownBy(() -> this.backend.tryAcquire(request("job", "node-b", null)))
			.withMessageContaining("unreachable");
		assertThatIllegalStateException().isThrownBy(() -> this.backend.renew(List.of(a), TTL));
		assertThatIllegalStateException().isThrownBy(() -> this.backend.release(a, Duration.ZERO));
		assertThatIllegalStateException().isThrownBy(() -> this.backend.describe("job"));
		assertThatIllegalStateException().isThrownBy(() -> this.backend.forceRelease("job"));
		assertThatIllegalStateException().isThrownBy(this.backend::probe);
		this.backend.setReachable(true);
		this.backend.probe();
		assertThat(this.backend.renew(List.of(a), TTL)).containsExactly(a.leaseToken());
		assertThat(this.backend.describe("job")).get().extracting(LeaseInfo::holder).isEqualTo("node-a");
	}

	@Test
	void everyOperationThatReachesTheStoreCountsOnce() {
		HeldLease a = acquire("job", "node-a", null);
		HeldLease b = acquire("other", "node-a", null);
		assertThat(this.backend.getOperationCount()).isEqualTo(2);
		this.backend.renew(List.of(), TTL);
		assertThat(this.backend.getOperationCount()).isEqualTo(2);
		this.backend.renew(List.of(a, b), TTL);
		this.backend.describe("job");
		this.backend.forceRelease("other");
		this.backend.release(a, Duration.ZERO);
		this.backend.probe();
		assertThat(this.backend.getOperationCount()).isEqualTo(7);
	}

	@Test
	void usesTheClockItWasGiven() {
		assertThat(this.backend.getClock()).isSameAs(this.clock);
		assertThat(new InMemoryLeaseBackend().getClock().getZone()).isEqualTo(java.time.ZoneOffset.UTC);
	}

	@Test
	void aFailedRunsRetryTimeIsTheBackendClock() {
		ClaimPolicy policy = new ClaimPolicy(true, true, 3, false);
		LeaseRequest first = request("job", "node-a", START).withPolicy(policy, null);
		AcquireResult claimed = this.backend.tryAcquire(first);
		assertThat(claimed.run()).isEqualTo(new SlotRun(START, 1, RunState.RUNNING));
		this.clock.advance(Duration.ofSeconds(5));
		this.backend.release(HeldLease.of(first, claimed.fencingToken()), Duration.ZERO,
				RunCompletion.failed(Duration.ofMinutes(1)));
		this.clock.advance(Duration.ofSeconds(59));
		assertThat(this.backend.findPending(Map.of("job", policy))).isEmpty();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.backend.findPending(Map.of("job", policy))).containsExactly("job");
		AcquireResult recovered = this.backend
			.tryAcquire(LeaseRequest.recovery("job", "node-b", UUID.randomUUID().toString(), TTL, policy));
		assertThat(recovered.run()).isEqualTo(new SlotRun(START, 1, RunState.FAILED));
		assertThat(recovered.lastSlot()).isEqualTo(START);
		assertThat(recovered.fencingToken()).isEqualTo(claimed.fencingToken() + 1);
	}

	@Test
	void aDeadRunIsPendingOnceTheBackendClockPassesItsLease() {
		ClaimPolicy policy = new ClaimPolicy(true, false, 2, false);
		LeaseRequest first = request("job", "node-a", START).withPolicy(policy, null);
		this.backend.tryAcquire(first);
		assertThat(this.backend.findPending(Map.of("job", policy))).isEmpty();
		assertThat(this.backend
			.tryAcquire(LeaseRequest.recovery("job", "node-b", UUID.randomUUID().toString(), TTL, policy))
			.outcome()).isEqualTo(Outcome.HELD);
		this.clock.advance(TTL);
		assertThat(this.backend.findPending(Map.of("job", policy, "other", policy))).containsExactly("job");
		LeaseRequest recovery = LeaseRequest.recovery("job", "node-b", UUID.randomUUID().toString(), TTL, policy);
		// the run may have ended without its completion arriving yet: the first recovery
		// claim only marks it, and a claim takes it over once the grace has passed
		assertThat(this.backend.tryAcquire(recovery).isAcquired()).isFalse();
		this.clock.advance(recovery.recoveryGrace().minusMillis(1));
		assertThat(this.backend.tryAcquire(recovery).isAcquired()).isFalse();
		this.clock.advance(Duration.ofMillis(1));
		AcquireResult recovered = this.backend.tryAcquire(recovery);
		HeldLease lease = HeldLease.of(recovery, recovered.fencingToken());
		assertThat(this.backend.startRun(lease, START, 2)).hasValue(recovered.fencingToken() + 1);
		this.clock.advance(TTL);
		assertThat(this.backend.startRun(lease, START, 3)).as("expired").isEmpty();
		assertThat(this.backend.findPending(Map.of("job", policy))).as("attempt limit").isEmpty();
	}

	@Test
	void theRunLedgerKeepsTheNewestRecordsOfEachJob() {
		for (int fence = 1; fence <= 3; fence++) {
			this.backend.runLedger()
				.record(new RunRecord("job", null, 1, fence, "node-a", RunTrigger.DIRECT, RunState.SUCCEEDED, START,
						START.plusSeconds(fence), null), 2);
		}
		assertThat(this.backend.runLedger().history("job", 10)).extracting(RunRecord::fencingToken)
			.containsExactly(3L, 2L);
		assertThat(this.backend.runLedger().lastSuccess(List.of("job", "other")))
			.isEqualTo(Map.of("job", START.plusSeconds(3)));
	}

	private HeldLease acquire(String job, String owner, @Nullable Instant slot) {
		LeaseRequest request = request(job, owner, slot);
		AcquireResult result = this.backend.tryAcquire(request);
		assertThat(result.outcome()).as("acquisition of %s by %s", job, owner).isEqualTo(Outcome.ACQUIRED);
		return HeldLease.of(request, result.fencingToken());
	}

	private static LeaseRequest request(String job, String owner, @Nullable Instant slot) {
		return new LeaseRequest(job, owner, UUID.randomUUID().toString(), TTL, slot);
	}

}
