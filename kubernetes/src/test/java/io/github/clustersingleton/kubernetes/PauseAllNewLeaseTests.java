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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pause of every job against the first claim of a job whose Lease does not exist yet,
 * with the pause written at the two moments the claim cannot see it in one read: between
 * the claim's read of the missing Lease and its creation, and after its listings of the
 * job Leases but before a Lease of the job is created. The claim is refused both times,
 * on the API server's CRUD mock.
 *
 * @author cluster-singleton contributors
 */
class PauseAllNewLeaseTests {

	private static final String NAMESPACE = "pause-all-new-lease";

	private static final String PREFIX = "cs-new-";

	/**
	 * Long enough that a claim's retries (within a third of it) outlast a cold first
	 * request to the mock server on a loaded machine.
	 */
	private static final Duration TTL = Duration.ofSeconds(30);

	private KubernetesMockServer server;

	private KubernetesClient client;

	private LeaseApi api;

	private JobLeases jobLeases;

	private KubernetesJobControls controls;

	@BeforeEach
	void startServer() {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		this.server.init();
		this.client = this.server.createClient();
		LeaseExpiryObserver expiry = new LeaseExpiryObserver(TTL, System::nanoTime);
		this.api = new LeaseApi(this.client, NAMESPACE, 10_000, expiry);
		this.jobLeases = new JobLeases(this.api, NAMESPACE, PREFIX);
		this.controls = new KubernetesJobControls(this.api, this.jobLeases, expiry, Clock.systemUTC(), PREFIX,
				NAMESPACE);
	}

	@AfterEach
	void stopServer() {
		this.client.close();
		this.server.destroy();
	}

	@Test
	void pauseOfEveryJobWrittenBetweenTheReadOfAMissingLeaseAndItsCreationRefusesTheClaim() {
		AtomicInteger reads = new AtomicInteger();
		// the claim's first read of the pause finds none, and the pause is written (and
		// lists the job Leases, finding none) right after that read: as if it came in
		// just
		// behind it
		BooleanSupplier pauseRightAfterTheRead = () -> {
			boolean paused = this.controls.pausedAll();
			if (reads.getAndIncrement() == 0) {
				this.controls.pause(null, "ops", "pause behind the claim's read");
			}
			return paused;
		};
		LeaseClaims claims = claims(pauseRightAfterTheRead);
		AcquireResult result = claims.tryAcquire(request("first-claim"));
		assertThat(result.outcome()).isEqualTo(Outcome.PAUSED);
		assertThat(reads).as("the read before the creation, and the one after it").hasValue(2);
		Lease lease = this.api.get(this.jobLeases.leaseName("first-claim"));
		assertThat(lease).isNotNull();
		assertThat(LeaseCodec.holder(lease)).isNull();
		assertThat(LeaseCodec.annotation(lease, LeaseAnnotations.PAUSE_ALL_UNCHECKED)).isNotNull();
		// the next claims, of this node or another, read the pause too
		assertThat(claims(this.controls::pausedAll).tryAcquire(request("first-claim")).outcome())
			.isEqualTo(Outcome.PAUSED);
		this.controls.resume(null, false);
		assertThat(claims(this.controls::pausedAll).tryAcquire(request("first-claim")).outcome())
			.isEqualTo(Outcome.ACQUIRED);
	}

	@Test
	void pauseOfEveryJobWrittenJustAfterTheCreationMarksTheNewLease() {
		AtomicInteger reads = new AtomicInteger();
		// the read after the creation finds no pause, and the pause comes right behind
		// it:
		// its listing finds the new Lease and marks it, and the claim's PUT conflicts
		BooleanSupplier pauseAfterTheSecondRead = () -> {
			boolean paused = this.controls.pausedAll();
			if (reads.incrementAndGet() == 2) {
				this.controls.pause(null, "ops", "pause behind the claim's second read");
			}
			return paused;
		};
		AcquireResult result = claims(pauseAfterTheSecondRead).tryAcquire(request("marked"));
		assertThat(result.outcome()).isEqualTo(Outcome.PAUSED);
		Lease lease = this.api.get(this.jobLeases.leaseName("marked"));
		assertThat(LeaseCodec.holder(lease)).isNull();
		assertThat(KubernetesJobControls.isPaused(lease)).isTrue();
	}

	@Test
	void leaseCreatedAfterThePauseOfEveryJobListedTheLeasesIsRefusedUntilTheResume() {
		this.controls.pause(null, "ops", "before the job's Lease exists");
		// created after the pause's listings, as the run ledger or a claim in flight does
		this.api.create(this.jobLeases.newLease("late-lease"));
		assertThat(KubernetesJobControls.isPaused(this.api.get(this.jobLeases.leaseName("late-lease")))).isFalse();
		LeaseClaims claims = claims(this.controls::pausedAll);
		assertThat(claims.tryAcquire(request("late-lease")).outcome()).isEqualTo(Outcome.PAUSED);
		assertThat(claims.tryAcquire(request("late-lease")).outcome()).isEqualTo(Outcome.PAUSED);
		this.controls.resume(null, false);
		AcquireResult acquired = claims.tryAcquire(request("late-lease"));
		assertThat(acquired.outcome()).isEqualTo(Outcome.ACQUIRED);
		Lease lease = this.api.get(this.jobLeases.leaseName("late-lease"));
		assertThat(LeaseCodec.annotation(lease, LeaseAnnotations.PAUSE_ALL_UNCHECKED)).isNull();
	}

	@Test
	void firstClaimWithoutAPauseCreatesTheLeaseAndHoldsIt() {
		AtomicInteger reads = new AtomicInteger();
		LeaseClaims claims = claims(() -> {
			reads.incrementAndGet();
			return this.controls.pausedAll();
		});
		AcquireResult result = claims.tryAcquire(request("plain"));
		assertThat(result.outcome()).isEqualTo(Outcome.ACQUIRED);
		Lease lease = this.api.get(this.jobLeases.leaseName("plain"));
		assertThat(LeaseCodec.holder(lease)).isEqualTo("node-a");
		assertThat(LeaseCodec.annotation(lease, LeaseAnnotations.PAUSE_ALL_UNCHECKED)).isNull();
		assertThat(reads).as("the read before the creation, and the one after it").hasValue(2);
		// the next claims of the job do not read the pause of every job again
		claims.tryAcquire(request("plain"));
		assertThat(reads).hasValue(2);
	}

	@Test
	void claimOverridingThePauseLeavesTheLeaseUnchecked() {
		this.controls.pause(null, "ops", null);
		LeaseClaims claims = claims(this.controls::pausedAll);
		AcquireResult result = claims
			.tryAcquire(LeaseRequest.overridingPause("manual", "node-a", UUID.randomUUID().toString(), TTL));
		assertThat(result.outcome()).isEqualTo(Outcome.ACQUIRED);
		Lease lease = this.api.get(this.jobLeases.leaseName("manual"));
		assertThat(LeaseCodec.annotation(lease, LeaseAnnotations.PAUSE_ALL_UNCHECKED)).isNotNull();
	}

	/**
	 * A run under a held lease is refused while every job is paused, also under the lease
	 * of a run-now claim (which overrides the pause) of a job whose Lease was created
	 * after the pause marked the Leases; as it is on a Lease that existed before the
	 * pause.
	 */
	@Test
	void startRunUnderARunNowLeaseOfAJobCreatedAfterThePauseOfEveryJobIsRefused() {
		KubernetesLeaseBackend node = new KubernetesLeaseBackend(this.client, NAMESPACE, PREFIX, TTL, Clock.systemUTC(),
				1, System::nanoTime);
		try {
			JobControls controls = node.controls().orElseThrow();
			Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
			// control: a job whose Lease exists before the pause is marked, and refused
			node.tryAcquire(LeaseRequest.overridingPause("early", "node-a", UUID.randomUUID().toString(), TTL));
			controls.pause(null, "ops", null);
			LeaseRequest earlyRunNow = LeaseRequest.overridingPause("early", "node-b", UUID.randomUUID().toString(),
					TTL);
			forceReleaseAndClaim(node, earlyRunNow);
			LeaseRequest lateRunNow = LeaseRequest.overridingPause("late", "node-a", UUID.randomUUID().toString(), TTL);
			AcquireResult late = node.tryAcquire(lateRunNow);
			assertThat(late.outcome()).isEqualTo(Outcome.ACQUIRED);
			assertThat(controls.read(java.util.List.of("late")).get("late").paused()).as("read() says paused").isTrue();
			assertThat(node.startRun(HeldLease.of(lateRunNow, late.fencingToken()), slot, 1))
				.as("startRun while every job is paused, on a Lease created after the pause")
				.isEmpty();
		}
		finally {
			node.close();
		}
	}

	private static void forceReleaseAndClaim(KubernetesLeaseBackend node, LeaseRequest runNow) {
		node.forceRelease(runNow.jobName());
		AcquireResult result = node.tryAcquire(runNow);
		assertThat(result.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(node.startRun(HeldLease.of(runNow, result.fencingToken()), Instant.now(), 1))
			.as("control: startRun on a marked Lease")
			.isEmpty();
	}

	/**
	 * A Lease created unheld by the run ledger (not by a claim), and a pause of every job
	 * that comes in right after the claim's read of the pause: the mark makes the claim's
	 * PUT conflict, the next read sees the mark.
	 */
	@Test
	void ledgerCreatedLeaseWithPauseRightAfterTheClaimsReadOfThePauseIsRefused() {
		this.api.create(this.jobLeases.newLease("ledger"));
		AtomicInteger reads = new AtomicInteger();
		BooleanSupplier pauseBehind = () -> {
			boolean paused = this.controls.pausedAll();
			if (reads.getAndIncrement() == 0) {
				this.controls.pause(null, "ops", null);
			}
			return paused;
		};
		assertThat(claims(pauseBehind).tryAcquire(request("ledger")).outcome()).isEqualTo(Outcome.PAUSED);
		Lease lease = this.api.get(this.jobLeases.leaseName("ledger"));
		assertThat(LeaseCodec.holder(lease)).isNull();
	}

	/**
	 * ABA: the claim reads the unchecked Lease, then a whole pause, mark and resume go by
	 * before its read of the pause: the PUT conflicts on the resourceVersion, and the
	 * claim, decided again after the resume, is granted.
	 */
	@Test
	void pauseAndResumeBetweenTheClaimsTwoReads() {
		this.api.create(this.jobLeases.newLease("aba"));
		AtomicInteger reads = new AtomicInteger();
		BooleanSupplier pauseAndResume = () -> {
			if (reads.getAndIncrement() == 0) {
				this.controls.pause(null, "ops", null);
				// with catch-up: without it the resume moves the last slot past this slot
				this.controls.resume(null, true);
			}
			return this.controls.pausedAll();
		};
		AcquireResult result = claims(pauseAndResume).tryAcquire(request("aba"));
		assertThat(result.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(reads.get()).isEqualTo(2);
	}

	/**
	 * A Lease deleted by an operator and created again by the next claim: tokens go up.
	 */
	@Test
	void fencingTokensGoUpAcrossADeletedLease() throws InterruptedException {
		LeaseClaims claims = claims(this.controls::pausedAll);
		long first = claims.tryAcquire(request("deleted")).fencingToken();
		this.client.leases().inNamespace(NAMESPACE).withName(this.jobLeases.leaseName("deleted")).delete();
		Thread.sleep(1100);
		long second = claims.tryAcquire(request("deleted")).fencingToken();
		assertThat(second).isGreaterThan(first);
	}

	private LeaseClaims claims(BooleanSupplier pausedAll) {
		LeaseExpiryObserver expiry = new LeaseExpiryObserver(TTL, System::nanoTime);
		return new LeaseClaims(this.api, this.jobLeases, NAMESPACE, expiry, new HeldLeases(), Clock.systemUTC(),
				System::nanoTime, pausedAll);
	}

	private static LeaseRequest request(String jobName) {
		return new LeaseRequest(jobName, "node-a", UUID.randomUUID().toString(), TTL,
				Instant.now().truncatedTo(ChronoUnit.SECONDS));
	}

}
