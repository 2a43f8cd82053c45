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
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.AcquireResult.Outcome;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.contract.AbstractLeaseBackendContractTests;
import io.github.clustersingleton.contract.StoreTimeTravel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The backend contract plus Kubernetes-specific behavior, against fabric8's Kubernetes
 * mock server in CRUD mode (no real API server can run here). The mock answers a stale
 * {@code resourceVersion} and the creation of an existing object with {@code 409}, as a
 * real server does; it also accepts updates without a {@code resourceVersion}, which a
 * real server refuses for Leases, so one test reads every request this backend sent and
 * checks that each update carried one.
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(OutputCaptureExtension.class)
class KubernetesLeaseBackendTests extends AbstractLeaseBackendContractTests {

	private static final String NAMESPACE = "cluster-singleton-test";

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final Logger MOCK_SERVER_LOGGER = Logger.getLogger("io.fabric8.mockwebserver");

	private KubernetesMockServer server;

	private KubernetesClient client;

	private KubernetesLeaseBackend backend;

	private KubernetesLeaseBackend unreachableBackend;

	private KubernetesClient unreachableClient;

	private int requestCountAtReset;

	/**
	 * What {@link #timeTravel() time travel} added to the monotonic clock of the backends
	 * {@link #newBackend} makes.
	 */
	private final AtomicLong nanoTimeTravelled = new AtomicLong();

	/** Every request the mock server received, with its body (the server consumes it). */
	private final Queue<SentRequest> sent = new ConcurrentLinkedQueue<>();

	/**
	 * Per Lease name: how many of its next PUTs the server answers 409 without applying.
	 */
	private final Map<String, AtomicInteger> conflictingUpdates = new ConcurrentHashMap<>();

	/**
	 * Per Lease name: how many of its next GETs the server answers 503.
	 */
	private final Map<String, AtomicInteger> failingReads = new ConcurrentHashMap<>();

	@BeforeAll
	void startMockServer() {
		// the mock server logs every request at INFO through java.util.logging
		MOCK_SERVER_LOGGER.setLevel(Level.WARNING);
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new RecordingCrudDispatcher(this.sent, this.conflictingUpdates, this.failingReads), false);
		this.server.init();
		this.client = this.server.createClient();
		this.backend = newBackend(Clock.systemUTC());
		// as at application startup: the client's first request sets up its connection
		this.backend.initialize();
		this.unreachableClient = new KubernetesClientBuilder()
			.withConfig(new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:1")
				.withNamespace(NAMESPACE)
				.withConnectionTimeout(1000)
				.build())
			.build();
		this.unreachableBackend = new KubernetesLeaseBackend(this.unreachableClient, NAMESPACE, Duration.ofSeconds(2),
				Clock.systemUTC());
	}

	@AfterAll
	void stopMockServer() {
		this.backend.close();
		this.unreachableBackend.close();
		this.unreachableClient.close();
		this.client.close();
		this.server.destroy();
	}

	/**
	 * The backends' TTL: the contract's requests carry their own, so this one sets the
	 * API requests' timeout (a sixth of it), long enough for the mock server answering
	 * many threads at once on a loaded machine.
	 */
	private static final Duration BACKEND_TTL = Duration.ofSeconds(10);

	private KubernetesLeaseBackend newBackend(Clock clock) {
		return new KubernetesLeaseBackend(this.client, NAMESPACE, KubernetesLeaseBackend.DEFAULT_LEASE_PREFIX,
				BACKEND_TTL, clock, KubernetesLeaseBackend.DEFAULT_RENEWAL_CONCURRENCY,
				() -> System.nanoTime() + this.nanoTimeTravelled.get());
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
	protected boolean supportsControls() {
		return true;
	}

	/**
	 * A backend on a Lease prefix of this test class's own, in the same namespace.
	 */
	@Override
	protected LeaseBackend isolatedBackend() {
		return new KubernetesLeaseBackend(this.client, NAMESPACE, "cs-isolated-", BACKEND_TTL, Clock.systemUTC(),
				KubernetesLeaseBackend.DEFAULT_RENEWAL_CONCURRENCY,
				() -> System.nanoTime() + this.nanoTimeTravelled.get());
	}

	@Override
	protected long roundTrips() {
		return this.server.getRequestCount() - this.requestCountAtReset;
	}

	@Override
	protected void resetRoundTrips() {
		this.requestCountAtReset = this.server.getRequestCount();
	}

	/**
	 * No API server clock judges a Lease: the backend measures its expiry, and the
	 * recovery grace after a mark, with the node's monotonic clock from when it saw the
	 * record, as Kubernetes leader election does. So time travel moves that clock forward
	 * (for every job: each test has jobs of its own), and moves back the one time the
	 * Lease stores, the retry time of a failed run (the releasing node's wall clock).
	 */
	@Override
	protected StoreTimeTravel timeTravel() {
		return (jobName, duration) -> {
			this.nanoTimeTravelled.addAndGet(duration.toNanos());
			Lease lease = lease(jobName);
			Map<String, String> annotations = (lease != null) ? lease.getMetadata().getAnnotations() : null;
			String retryAt = (annotations != null) ? annotations.get(KubernetesLeaseBackend.RETRY_AT_ANNOTATION) : null;
			if (retryAt != null) {
				Lease backdated = new LeaseBuilder(lease).editMetadata()
					.addToAnnotations(KubernetesLeaseBackend.RETRY_AT_ANNOTATION,
							Instant.parse(retryAt).minus(duration).toString())
					.endMetadata()
					.build();
				this.client.leases().inNamespace(NAMESPACE).resource(backdated).update();
			}
		};
	}

	/**
	 * A read, then a create or a conditional update: Kubernetes has no compare-and-set of
	 * a field, only of a whole object's version.
	 */
	@Override
	protected int expectedAcquireRoundTrips() {
		return 2;
	}

	/**
	 * A job's very first claim also reads the Lease of the pause of every job: there is
	 * no Lease of the job yet to carry that pause's mark.
	 */
	@Override
	protected int expectedFirstAcquireRoundTrips() {
		// GET (404), GET of the pause of every job, POST of the unheld Lease, GET of the
		// pause again, PUT of the claim
		return 5;
	}

	/**
	 * One PUT per lease, issued in parallel.
	 */
	@Override
	protected int expectedRenewRoundTrips(int leases) {
		return leases;
	}

	@Test
	void idIsKubernetes() {
		assertThat(this.backend.id()).isEqualTo("kubernetes");
	}

	@Test
	void leaseLayoutFollowsTheContract() {
		String job = jobName("layout");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
		LeaseRequest request = request(job, "node-a", Duration.ofMillis(1500), slot);
		HeldLease held = acquire(request);
		Lease lease = lease(job);
		assertThat(lease.getMetadata().getName()).isEqualTo(this.backend.leaseName(job))
			.startsWith(KubernetesLeaseBackend.DEFAULT_LEASE_PREFIX);
		assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("node-a");
		// whole seconds, rounded up: never shorter than the TTL
		assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(2);
		assertThat(lease.getSpec().getAcquireTime()).isNotNull();
		assertThat(lease.getSpec().getRenewTime()).isEqualTo(lease.getSpec().getAcquireTime());
		// the tokens start from the API server's creation time, so that a Lease deleted
		// and created again still hands out higher tokens; the first claim PUTs the Lease
		// it created unheld, which is the first token
		assertThat(held.fencingToken())
			.isEqualTo(Instant.parse(lease.getMetadata().getCreationTimestamp()).getEpochSecond()
					* LeaseCodec.FENCING_TOKENS_PER_SECOND + 1);
		assertThat(lease.getSpec().getLeaseTransitions()).isZero();
		assertThat(lease.getMetadata().getAnnotations())
			.containsEntry(KubernetesLeaseBackend.FENCING_TOKEN_ANNOTATION, Long.toString(held.fencingToken()))
			.doesNotContainKey("cluster-singleton.io/pause-all-unchecked")
			.containsEntry(KubernetesLeaseBackend.LAST_SLOT_ANNOTATION, slot.toString())
			.containsEntry(KubernetesLeaseBackend.LEASE_TOKEN_ANNOTATION, request.leaseToken())
			.containsEntry(KubernetesLeaseBackend.JOB_NAME_ANNOTATION, job);
		assertThat(lease.getMetadata().getLabels()).containsEntry(KubernetesLeaseBackend.MANAGED_BY_LABEL,
				"cluster-singleton");
		this.backend.release(held, Duration.ZERO);
		Lease released = lease(job);
		assertThat(released.getSpec().getHolderIdentity()).isNull();
		assertThat(released.getMetadata().getAnnotations())
			.doesNotContainKey(KubernetesLeaseBackend.LEASE_TOKEN_ANNOTATION);
		HeldLease next = acquire(request(job, "node-b"));
		assertThat(next.fencingToken()).isEqualTo(held.fencingToken() + 1);
		assertThat(lease(job).getMetadata().getAnnotations())
			.containsEntry(KubernetesLeaseBackend.FENCING_TOKEN_ANNOTATION, Long.toString(next.fencingToken()));
		assertThat(lease(job).getSpec().getLeaseTransitions()).isEqualTo(1);
		this.backend.release(next, Duration.ZERO);
	}

	@Test
	void everyUpdateCarriesTheResourceVersionItWasReadAt() {
		this.sent.clear();
		String job = jobName("resource-version");
		HeldLease a = acquire(request(job, "node-a", SHORT_TTL, null));
		assertThat(this.backend.renew(List.of(a), SHORT_TTL)).containsExactly(a.leaseToken());
		this.backend.release(a, Duration.ofSeconds(1));
		awaitAcquired(request(job, "node-b"));
		assertThat(this.backend.forceRelease(job)).isTrue();
		HeldLease c = acquire(request(job, "node-c"));
		this.backend.release(c, Duration.ZERO);
		List<SentRequest> requests = new ArrayList<>(this.sent);
		assertThat(requests).extracting(SentRequest::method).containsOnly("GET", "POST", "PUT");
		List<SentRequest> puts = requests.stream().filter((request) -> request.method().equals("PUT")).toList();
		// renew, release (kept for lockAtLeastFor), take-over, force-release, acquire,
		// release
		assertThat(puts).hasSizeGreaterThanOrEqualTo(6).allSatisfy((put) -> {
			JsonNode body = json.readTree(put.body());
			assertThat(body.path("metadata").path("resourceVersion").asString()).as(put.path()).isNotBlank();
		});
	}

	@Test
	void twoNodesRacingForOneLeaseNeverBothWin() throws Exception {
		race("race", null, Outcome.HELD);
	}

	@Test
	void theLoserOfARaceForOneSlotIsToldTheSlotIsDone() throws Exception {
		// the loser's write is answered 409: it reads the winner's Lease to tell a slot
		// already claimed (slot-done) from a lease held for another slot
		race("slot-race", Instant.now().truncatedTo(ChronoUnit.SECONDS), Outcome.SLOT_DONE);
	}

	private void race(String prefix, Instant slot, Outcome loserOutcome) throws Exception {
		KubernetesLeaseBackend other = newBackend(Clock.systemUTC());
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 40; round++) {
				// even rounds race to create the Lease, odd ones to take a released one
				String job = jobName(prefix + "-" + (round / 2));
				if (round % 2 == 1) {
					this.backend.release(acquire(request(job + "-pre", "node-x")), Duration.ZERO);
					job = job + "-pre";
				}
				CountDownLatch start = new CountDownLatch(1);
				String racedJob = job;
				Future<AcquireResult> a = threads.submit(() -> {
					start.await();
					return this.backend.tryAcquire(request(racedJob, "node-a", LONG_TTL, slot));
				});
				Future<AcquireResult> b = threads.submit(() -> {
					start.await();
					return other.tryAcquire(request(racedJob, "node-b", LONG_TTL, slot));
				});
				start.countDown();
				List<AcquireResult> results = List.of(a.get(10, TimeUnit.SECONDS), b.get(10, TimeUnit.SECONDS));
				assertThat(results).as("round %d", round).filteredOn(AcquireResult::isAcquired).hasSize(1);
				assertThat(results).filteredOn((result) -> !result.isAcquired())
					.singleElement()
					.extracting(AcquireResult::outcome)
					.isEqualTo(loserOutcome);
			}
		}
		finally {
			threads.shutdownNow();
			other.close();
		}
	}

	@Test
	void anotherNodeTakesOverOnlyAfterSeeingTheLeaseUnchangedForItsDuration() {
		KubernetesLeaseBackend other = newBackend(Clock.systemUTC());
		try {
			String job = jobName("takeover");
			HeldLease a = acquire(request(job, "node-a", Duration.ofSeconds(2), null));
			long firstSeen = System.nanoTime();
			assertThat(other.tryAcquire(request(job, "node-b")).holder()).isEqualTo("node-a");
			// node-a renews: each renewal is a new version, and node-b's wait starts over
			for (int i = 0; i < 3; i++) {
				await().pollDelay(Duration.ofMillis(600)).until(() -> true);
				assertThat(this.backend.renew(List.of(a), Duration.ofSeconds(2))).containsExactly(a.leaseToken());
				assertThat(other.tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
			}
			long lastRenewal = System.nanoTime();
			assertThat(Duration.ofNanos(lastRenewal - firstSeen)).isGreaterThan(Duration.ofSeconds(1));
			// node-a stops renewing: node-b takes over one lease duration after it first
			// saw the last version
			AcquireResult taken = awaitAcquired(other, request(job, "node-b"));
			assertThat(Duration.ofNanos(System.nanoTime() - lastRenewal)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
			assertThat(taken.fencingToken()).isGreaterThan(a.fencingToken());
			assertThat(this.backend.renew(List.of(a), Duration.ofSeconds(2))).isEmpty();
		}
		finally {
			other.close();
		}
	}

	@Test
	void skewedWallClocksDoNotChangeWhoHoldsTheLease() {
		Instant now = Instant.now();
		KubernetesLeaseBackend behind = newBackend(Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)));
		KubernetesLeaseBackend ahead = newBackend(Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
		try {
			// a holder whose clock is an hour behind writes a renewTime an hour in the
			// past: a node comparing wall clocks would take its lease at once
			String job = jobName("skew-behind");
			HeldLease held = HeldLease.of(request(job, "node-behind", Duration.ofSeconds(2), null), 0);
			AcquireResult acquired = behind
				.tryAcquire(new LeaseRequest(job, held.owner(), held.leaseToken(), Duration.ofSeconds(2), null));
			assertThat(acquired.isAcquired()).isTrue();
			assertThat(lease(job).getSpec().getRenewTime().toInstant()).isBefore(now.minus(Duration.ofMinutes(59)));
			for (int i = 0; i < 4; i++) {
				assertThat(ahead.tryAcquire(request(job, "node-ahead")).outcome()).isEqualTo(Outcome.HELD);
				await().pollDelay(Duration.ofMillis(500)).until(() -> true);
				assertThat(behind.renew(List.of(held), Duration.ofSeconds(2))).hasSize(1);
			}
			// a holder whose clock is an hour ahead writes a renewTime an hour in the
			// future: a node comparing wall clocks would wait an hour after it died
			String job2 = jobName("skew-ahead");
			assertThat(ahead.tryAcquire(request(job2, "node-ahead", Duration.ofSeconds(1), null)).isAcquired())
				.isTrue();
			assertThat(lease(job2).getSpec().getRenewTime().toInstant()).isAfter(now.plus(Duration.ofMinutes(59)));
			long started = System.nanoTime();
			AcquireResult taken = awaitAcquired(behind, request(job2, "node-behind"));
			assertThat(taken.isAcquired()).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(900),
					Duration.ofSeconds(5));
		}
		finally {
			behind.close();
			ahead.close();
		}
	}

	@Test
	void aStaleWriteNeverOverwritesAnotherWriter() {
		String job = jobName("stale-write");
		HeldLease a = acquire(request(job, "node-a"));
		// someone else writes the Lease after this node's last write (with the version
		// they read): the renewal, based on this node's older version, must get 409
		Lease theirs = new LeaseBuilder(lease(job)).editSpec().withHolderIdentity("intruder").endSpec().build();
		this.client.leases().inNamespace(NAMESPACE).resource(theirs).update();
		assertThat(this.backend.renew(List.of(a), LONG_TTL)).isEmpty();
		this.backend.release(a, Duration.ZERO);
		assertThat(lease(job).getSpec().getHolderIdentity()).isEqualTo("intruder");
	}

	@Test
	void aReleaseKeptForLockAtLeastForCannotBeRenewedAgain() {
		String job = jobName("kept-release");
		HeldLease a = acquire(request(job, "node-a", SHORT_TTL, null));
		this.backend.release(a, Duration.ofSeconds(30));
		Lease kept = lease(job);
		assertThat(kept.getSpec().getHolderIdentity()).isEqualTo("node-a");
		assertThat(kept.getSpec().getLeaseDurationSeconds()).isBetween(29, 30);
		// a renewal of the run that was still in flight when it ended must not shorten
		// the hold back to the TTL
		assertThat(this.backend.renew(List.of(a), SHORT_TTL)).isEmpty();
		assertThat(lease(job).getSpec().getLeaseDurationSeconds()).isBetween(29, 30);
		assertThat(this.backend.tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
	}

	@Test
	void fencingTokensStillIncreaseAfterTheLeaseIsDeleted() {
		String job = jobName("deleted");
		HeldLease first = acquire(request(job, "node-a"));
		this.backend.release(first, Duration.ZERO);
		HeldLease second = acquire(request(job, "node-b"));
		long created = Instant.parse(lease(job).getMetadata().getCreationTimestamp()).getEpochSecond();
		// kubectl delete lease, while node-b holds it
		this.client.leases().inNamespace(NAMESPACE).withName(this.backend.leaseName(job)).delete();
		await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().getEpochSecond() > created);
		HeldLease third = acquire(request(job, "node-c"));
		assertThat(List.of(first.fencingToken(), second.fencingToken(), third.fencingToken())).isSorted()
			.doesNotHaveDuplicates();
		assertThat(this.backend.renew(List.of(second), LONG_TTL)).isEmpty();
	}

	@Test
	void aClaimOutlastsWritesThatAreNotClaimsBetweenItsReadAndItsWrite() {
		// the run ledger writes the Lease from another thread (a start and an end per
		// run): after a catch-up sequence, the claim of the next slot can meet several of
		// those writes in a row, and giving up would lose that slot
		String job = jobName("ledger-writes");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.MINUTES).minusSeconds(120);
		HeldLease first = acquire(request(job, "node-a", LONG_TTL, slot));
		this.backend.release(first, Duration.ZERO);
		// more than any fixed number of tries would have to allow for
		this.conflictingUpdates.put(this.backend.leaseName(job), new AtomicInteger(15));
		AcquireResult next = this.backend.tryAcquire(request(job, "node-a", LONG_TTL, slot.plusSeconds(60)));
		assertThat(next.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(this.conflictingUpdates.get(this.backend.leaseName(job))).hasValue(0);
		assertThat(lease(job).getMetadata().getAnnotations()).containsEntry(KubernetesLeaseBackend.LAST_SLOT_ANNOTATION,
				slot.plusSeconds(60).toString());
	}

	/**
	 * Review of the OptimisticUpdate refactoring: pins the conflict budget of every write
	 * path to what the six hand-written loops of f1ca227 did. A renewal tries 3 PUTs, the
	 * first from the copy this node wrote (no GET), then fails; a run start and a
	 * completion try 10; a force release tries 10; every retry reads the Lease again.
	 */
	@Test
	void everyWritePathKeepsItsConflictBudget() {
		String job = jobName("conflict-budget");
		String name = this.backend.leaseName(job);
		Instant slot = Instant.now().truncatedTo(ChronoUnit.MINUTES).minusSeconds(120);
		HeldLease held = acquire(request(job, "node-a", LONG_TTL, slot));
		// renewal: 3 PUTs, GETs only before the 2nd and 3rd
		this.sent.clear();
		this.conflictingUpdates.put(name, new AtomicInteger(1_000));
		assertThatIllegalStateException().isThrownBy(() -> this.backend.renew(List.of(held), LONG_TTL))
			.withMessageContaining("3 attempts");
		assertThat(methods()).containsExactly("PUT", "GET", "PUT", "GET", "PUT");
		// run start: 10 PUTs, the first from the copy this node wrote
		this.sent.clear();
		assertThatIllegalStateException().isThrownBy(() -> this.backend.startRun(held, slot.plusSeconds(60), 1))
			.withMessageContaining("10 attempts");
		assertThat(methods()).filteredOn("PUT"::equals).hasSize(10);
		assertThat(methods()).filteredOn("GET"::equals).hasSize(9);
		// completion: 10 PUTs
		this.sent.clear();
		assertThatIllegalStateException()
			.isThrownBy(() -> this.backend.completeRun(held, Duration.ZERO, RunCompletion.succeeded()))
			.withMessageContaining("10 attempts");
		assertThat(methods()).filteredOn("PUT"::equals).hasSize(10);
		// the first attempt from the copy this node wrote, every retry after a read
		assertThat(methods()).filteredOn("GET"::equals).hasSize(9);
		// force release: 10 PUTs, each after its own read
		this.sent.clear();
		assertThatIllegalStateException().isThrownBy(() -> this.backend.forceRelease(job))
			.withMessageContaining("10 attempts");
		assertThat(methods()).filteredOn("PUT"::equals).hasSize(10);
		assertThat(methods()).filteredOn("GET"::equals).hasSize(10);
		this.conflictingUpdates.remove(name);
	}

	private List<String> methods() {
		return this.sent.stream().map(SentRequest::method).toList();
	}

	@Test
	void aClaimThatKeepsMeetingOtherWritesGivesUpWellInsideTheTtl() {
		// a tool that annotates the Lease without end: the claim must not be granted
		// after its TTL (the engine would have to give it back), so it gives up
		String job = jobName("annotated");
		Instant slot = Instant.now().truncatedTo(ChronoUnit.MINUTES).minusSeconds(120);
		this.backend.release(acquire(request(job, "node-a", LONG_TTL, slot)), Duration.ZERO);
		AtomicInteger conflicts = new AtomicInteger(10_000);
		this.conflictingUpdates.put(this.backend.leaseName(job), conflicts);
		AcquireResult refused = this.backend.tryAcquire(request(job, "node-a", SHORT_TTL, slot.plusSeconds(60)));
		assertThat(refused.outcome()).isEqualTo(Outcome.HELD);
		assertThat(conflicts).hasValueGreaterThan(0);
		this.conflictingUpdates.remove(this.backend.leaseName(job));
		assertThat(this.backend.tryAcquire(request(job, "node-a", SHORT_TTL, slot.plusSeconds(60))).outcome())
			.isEqualTo(Outcome.ACQUIRED);
	}

	@Test
	void aLeaseWithoutDurationIsGivenTheConfiguredTtl() {
		KubernetesLeaseBackend other = newBackend(Clock.systemUTC());
		try {
			String job = jobName("no-duration");
			acquire(request(job, "node-a"));
			Lease edited = new LeaseBuilder(lease(job)).editSpec().withLeaseDurationSeconds(null).endSpec().build();
			this.client.leases().inNamespace(NAMESPACE).resource(edited).update();
			assertThat(other.tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
			// a second look at the same version: with a duration of 0 it would be taken
			await().pollDelay(Duration.ofMillis(1100)).until(() -> true);
			assertThat(other.tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
		}
		finally {
			other.close();
		}
	}

	@Test
	void labelsAndAnnotationsOfOthersDoNotKeepADeadHoldersLeaseAlive() throws Exception {
		KubernetesLeaseBackend other = newBackend(Clock.systemUTC());
		ExecutorService labeler = Executors.newSingleThreadExecutor();
		try {
			String job = jobName("labels");
			acquire(request(job, "node-a", SHORT_TTL, null));
			assertThat(other.tryAcquire(request(job, "node-b")).outcome()).isEqualTo(Outcome.HELD);
			long seen = System.nanoTime();
			// a tool keeps labelling the Lease: every label is a new resourceVersion
			labeler.submit(() -> {
				for (int i = 0; i < 25 && !Thread.currentThread().isInterrupted(); i++) {
					Lease labelled = new LeaseBuilder(lease(job)).editMetadata()
						.addToLabels("touched", Integer.toString(i))
						.endMetadata()
						.build();
					this.client.leases().inNamespace(NAMESPACE).resource(labelled).update();
					Thread.sleep(100);
				}
				return null;
			});
			AcquireResult taken = awaitAcquired(other, request(job, "node-b"));
			assertThat(taken.isAcquired()).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - seen)).isLessThan(Duration.ofMillis(2400));
		}
		finally {
			labeler.shutdownNow();
			other.close();
		}
	}

	@Test
	void aLeaseNotCreatedByClusterSingletonIsNeverTaken() {
		String job = jobName("foreign");
		Lease foreign = new LeaseBuilder().withNewMetadata()
			.withName(this.backend.leaseName(job))
			.withNamespace(NAMESPACE)
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity("other-component")
			.withLeaseDurationSeconds(1)
			.endSpec()
			.build();
		this.client.leases().inNamespace(NAMESPACE).resource(foreign).create();
		await().pollDelay(Duration.ofMillis(1100)).until(() -> true);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.backend.tryAcquire(request(job, "node-a")))
			.withMessageContaining("not created by cluster-singleton")
			.withMessageContaining("cluster-singleton.kubernetes.lease-prefix");
		assertThat(lease(job).getSpec().getHolderIdentity()).isEqualTo("other-component");
	}

	@Test
	void requestTimeoutFitsTheLeaseTtl() {
		assertThat(KubernetesLeaseBackend.requestTimeout(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(5));
		assertThat(KubernetesLeaseBackend.requestTimeout(Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(250));
		assertThat(KubernetesLeaseBackend.requestTimeout(Duration.ofMinutes(10))).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void jobNamesThatShareALeaseNameAreRejected() {
		KubernetesLeaseBackend backend = newBackend(Clock.systemUTC());
		try {
			backend.validateJobName("billing.run");
			backend.validateJobName("billing.run");
			assertThatIllegalArgumentException().isThrownBy(() -> backend.validateJobName("Billing_Run"))
				.withMessageContaining("'billing.run'")
				.withMessageContaining("'Billing_Run'")
				.withMessageContaining("cluster-singleton-billing-run");
		}
		finally {
			backend.close();
		}
	}

	@Test
	void aLeaseOfAnotherJobIsNotTaken() {
		String job = "own.chk-" + UUID.randomUUID().toString().substring(0, 8);
		HeldLease held = acquire(request(job, "node-a"));
		this.backend.release(held, Duration.ZERO);
		String sameLeaseName = job.replace('.', '_');
		assertThat(this.backend.leaseName(sameLeaseName)).isEqualTo(this.backend.leaseName(job));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.backend.tryAcquire(request(sameLeaseName, "node-b")))
			.withMessageContaining("belongs to job '" + job + "'");
	}

	@Test
	void forbiddenNamespaceFailsStartupWithTheRbacHint() {
		KubernetesMockServer strict = new KubernetesMockServer(false);
		strict.init();
		try (KubernetesClient strictClient = strict.createClient()) {
			strict.expect()
				.get()
				.withPath("/apis/coordination.k8s.io/v1/namespaces/locked/leases/cluster-singleton-probe")
				.andReturn(403, "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\"}")
				.always();
			KubernetesLeaseBackend backend = new KubernetesLeaseBackend(strictClient, "locked", Duration.ofSeconds(2),
					Clock.systemUTC());
			assertThatExceptionOfType(ClusterSingletonConfigurationException.class).isThrownBy(backend::initialize)
				.withMessageContaining("namespace 'locked'")
				.withMessageContaining("coordination.k8s.io")
				.withMessageContaining("cluster-singleton.kubernetes.namespace");
			backend.close();
		}
		finally {
			strict.destroy();
		}
	}

	@Test
	void unreachableServerAtStartupIsLoggedNotThrown(CapturedOutput output) {
		this.unreachableBackend.initialize();
		assertThat(output).contains("could not reach the Kubernetes API server").contains("Connection refused");
	}

	@Test
	void renewalOfLeasesIsIssuedInParallel() throws Exception {
		List<HeldLease> leases = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			leases.add(acquire(request(jobName("parallel-" + i), "node-a")));
		}
		Map<String, Boolean> threads = new java.util.concurrent.ConcurrentHashMap<>();
		KubernetesLeaseBackend counting = new KubernetesLeaseBackend(this.client, NAMESPACE,
				KubernetesLeaseBackend.DEFAULT_LEASE_PREFIX, Duration.ofSeconds(5), Clock.systemUTC(), 4, () -> {
					threads.put(Thread.currentThread().getName(), true);
					return System.nanoTime();
				});
		try {
			assertThat(counting.renew(leases, LONG_TTL)).hasSize(20);
			assertThat(threads.keySet()).filteredOn((name) -> name.startsWith("cluster-singleton-kubernetes-renewal-"))
				.hasSizeBetween(2, 4);
		}
		finally {
			counting.close();
		}
	}

	@Test
	void theRunIsWrittenInTheClaimsOwnRequestsAndTheOutcomeInTheRelease() {
		String job = jobName("run-annotations");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		Instant s2 = s1.plusSeconds(60);
		LeaseRequest first = request(job, "node-a", LONG_TTL, s1).withPolicy(RECOVER_FAILED, null);
		resetRoundTrips();
		AcquireResult result = this.backend.tryAcquire(first);
		assertThat(roundTrips()).as("GET, GET of the pause of every job, POST, GET of the pause, PUT").isEqualTo(5);
		assertThat(result.run()).isEqualTo(new SlotRun(s1, 1, RunState.RUNNING));
		assertThat(lease(job).getMetadata().getAnnotations())
			.containsEntry(KubernetesLeaseBackend.RUN_SLOT_ANNOTATION, s1.toString())
			.containsEntry(KubernetesLeaseBackend.ATTEMPT_ANNOTATION, "1")
			.containsEntry(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, "running")
			.doesNotContainKey(KubernetesLeaseBackend.RETRY_AT_ANNOTATION);
		resetRoundTrips();
		Instant released = Instant.now();
		this.backend.release(HeldLease.of(first, result.fencingToken()), Duration.ZERO,
				RunCompletion.failed(Duration.ofMinutes(1)));
		assertThat(roundTrips()).as("one PUT").isEqualTo(1);
		Map<String, String> annotations = lease(job).getMetadata().getAnnotations();
		assertThat(annotations).containsEntry(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, "failed")
			.doesNotContainKey(KubernetesLeaseBackend.LEASE_TOKEN_ANNOTATION);
		// the node's clock: Kubernetes has none to offer
		assertThat(Instant.parse(annotations.get(KubernetesLeaseBackend.RETRY_AT_ANNOTATION)))
			.isBetween(released.plusSeconds(59), Instant.now().plusSeconds(61));
		LeaseRequest next = request(job, "node-b", LONG_TTL, s2).withPolicy(RECOVER_FAILED, s1);
		resetRoundTrips();
		AcquireResult taken = this.backend.tryAcquire(next);
		assertThat(roundTrips()).as("GET and PUT").isEqualTo(2);
		assertThat(taken.run()).isEqualTo(new SlotRun(s1, 1, RunState.FAILED));
		assertThat(lease(job).getMetadata().getAnnotations())
			.containsEntry(KubernetesLeaseBackend.LAST_SLOT_ANNOTATION, s2.toString())
			.containsEntry(KubernetesLeaseBackend.RUN_SLOT_ANNOTATION, s1.toString())
			.containsEntry(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, "failed");
		this.backend.release(HeldLease.of(next, taken.fencingToken()), Duration.ZERO, RunCompletion.succeeded());
		assertThat(lease(job).getMetadata().getAnnotations())
			.containsEntry(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, "succeeded")
			.doesNotContainKey(KubernetesLeaseBackend.RETRY_AT_ANNOTATION);
	}

	@Test
	void aClaimWithoutAPolicyWritesNoRunWithoutASlot() {
		String job = jobName("no-run");
		LeaseRequest request = request(job, "node-a", LONG_TTL, null);
		AcquireResult result = this.backend.tryAcquire(request);
		assertThat(result.run()).isNull();
		assertThat(lease(job).getMetadata().getAnnotations()).doesNotContainKeys(
				KubernetesLeaseBackend.RUN_SLOT_ANNOTATION, KubernetesLeaseBackend.ATTEMPT_ANNOTATION,
				KubernetesLeaseBackend.RUN_STATE_ANNOTATION);
		this.backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
	}

	@Test
	void aClaimOfASlotWithoutAPolicyStartsItsRun() {
		String job = jobName("no-policy-run");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		Instant s2 = s1.plusSeconds(60);
		LeaseRequest first = request(job, "node-a", LONG_TTL, s1);
		AcquireResult result = this.backend.tryAcquire(first);
		assertThat(result.run()).isNull();
		assertThat(lease(job).getMetadata().getAnnotations())
			.containsEntry(KubernetesLeaseBackend.RUN_SLOT_ANNOTATION, s1.toString())
			.containsEntry(KubernetesLeaseBackend.ATTEMPT_ANNOTATION, "1")
			.containsEntry(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, "running");
		this.backend.release(HeldLease.of(first, result.fencingToken()), Duration.ZERO,
				RunCompletion.failed(Duration.ofMinutes(5)));
		LeaseRequest next = request(job, "node-b", LONG_TTL, s2);
		result = this.backend.tryAcquire(next);
		assertThat(result.isAcquired()).isTrue();
		assertThat(lease(job).getMetadata().getAnnotations())
			.containsEntry(KubernetesLeaseBackend.RUN_SLOT_ANNOTATION, s2.toString())
			.containsEntry(KubernetesLeaseBackend.ATTEMPT_ANNOTATION, "1")
			.containsEntry(KubernetesLeaseBackend.RUN_STATE_ANNOTATION, "running")
			.doesNotContainKey(KubernetesLeaseBackend.RETRY_AT_ANNOTATION);
		this.backend.release(HeldLease.of(next, result.fencingToken()), Duration.ZERO, RunCompletion.succeeded());
	}

	@Test
	void findPendingIsOneListOfTheBackendsLabel() {
		String job = jobName("pending-list");
		LeaseRequest request = request(job, "node-a", LONG_TTL, Instant.parse("2026-01-01T10:00:00Z"))
			.withPolicy(RECOVER_FAILED, null);
		this.backend.release(HeldLease.of(request, this.backend.tryAcquire(request).fencingToken()), Duration.ZERO,
				RunCompletion.failed(Duration.ZERO));
		this.sent.clear();
		assertThat(this.backend.findPending(Map.of(job, RECOVER_FAILED, jobName("never"), RECOVER_FAILED)))
			.containsExactly(job);
		assertThat(this.sent).singleElement().satisfies((request0) -> {
			assertThat(request0.method()).isEqualTo("GET");
			assertThat(request0.path()).startsWith("/apis/coordination.k8s.io/v1/namespaces/" + NAMESPACE + "/leases?")
				.contains("labelSelector=app.kubernetes.io%2Fmanaged-by%3Dcluster-singleton");
		});
		this.sent.clear();
		assertThat(this.backend.findPending(Map.of())).isEmpty();
		assertThat(this.sent).isEmpty();
	}

	@Test
	void theLedgerIsOneAnnotationWithAtMostTwentyRuns() {
		String job = jobName("ledger-size");
		Instant start = Instant.parse("2026-01-01T10:00:00Z");
		for (int fence = 1; fence <= 25; fence++) {
			this.backend.runLedger()
				.record(new RunRecord(job, null, 1, fence, "node-a", RunTrigger.DIRECT, RunState.SUCCEEDED,
						start.plusSeconds(fence), start.plusSeconds(fence + 1), null), 100);
		}
		assertThat(this.backend.runLedger().history(job, 100)).hasSize(KubernetesLeaseBackend.MAX_LEDGER_RUNS)
			.extracting(RunRecord::fencingToken)
			.startsWith(25L, 24L)
			.endsWith(6L);
		Lease lease = lease(job);
		assertThat(LeaseCodec.holder(lease)).as("a Lease created for the ledger is held by nobody").isNull();
		JsonNode runs = json.readTree(lease.getMetadata().getAnnotations().get(KubernetesLeaseBackend.RUNS_ANNOTATION));
		assertThat(runs.isArray()).isTrue();
		assertThat(runs.size()).isEqualTo(20);
		assertThat(runs.get(0).path("fencingToken").asLong()).isEqualTo(25);
		assertThat(runs.get(0).path("state").asString()).isEqualTo("succeeded");
		// a claim of the job takes the Lease the ledger created, and keeps the ledger
		HeldLease held = acquire(request(job, "node-a"));
		assertThat(this.backend.runLedger().history(job, 1)).extracting(RunRecord::fencingToken).containsExactly(25L);
		this.backend.release(held, Duration.ZERO);
	}

	@Test
	void theRecordsOfOneJobSentTogetherAreOneReadAndOneWriteOfItsLease() {
		String job = jobName("ledger-grouped");
		String other = jobName("ledger-grouped-other");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		RunRecord earlier = succeeded(job, s1, 7, "node-a");
		this.backend.runLedger().record(earlier, 10);
		Instant s2 = s1.plusSeconds(60);
		RunRecord started = new RunRecord(job, s2, 1, 8, "node-a", RunTrigger.SCHEDULED, RunState.RUNNING, s2, null,
				null);
		RunRecord ended = started.finish(RunState.FAILED, s2.plusSeconds(3), "boom");
		RunRecord otherRun = succeeded(other, s2, 3, "node-b");
		this.backend.runLedger().record(otherRun, 10);
		RunRecord otherNext = new RunRecord(other, s2.plusSeconds(60), 1, 4, "node-b", RunTrigger.SCHEDULED,
				RunState.SUCCEEDED, s2.plusSeconds(60), s2.plusSeconds(61), null);
		resetRoundTrips();
		this.backend.runLedger().recordAll(List.of(started, otherNext, ended), 10);
		// per job: a GET and a PUT, whatever the number of its records
		assertThat(roundTrips()).isEqualTo(4);
		assertThat(this.backend.runLedger().history(job, 10)).extracting(RunRecord::fencingToken, RunRecord::state)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(8L, RunState.FAILED),
					org.assertj.core.groups.Tuple.tuple(7L, RunState.SUCCEEDED));
		assertThat(this.backend.runLedger().history(other, 10)).extracting(RunRecord::fencingToken)
			.containsExactly(4L, 3L);
	}

	@Test
	void aJobWhoseLedgerCannotBeWrittenDoesNotCostTheOtherJobsTheirs() {
		String job = jobName("ledger-grouped-ok");
		String broken = jobName("ledger-grouped-broken");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		// a Lease of the same name that cluster-singleton did not create: its ledger is
		// refused
		this.client.leases()
			.inNamespace(NAMESPACE)
			.resource(new LeaseBuilder().withNewMetadata()
				.withName(this.backend.leaseName(broken))
				.withNamespace(NAMESPACE)
				.endMetadata()
				.withNewSpec()
				.endSpec()
				.build())
			.create();
		RunRecord refused = succeeded(broken, s1, 1, "node-a");
		RunRecord kept = succeeded(job, s1, 1, "node-a");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.backend.runLedger().recordAll(List.of(refused, kept), 10))
			.withMessageContaining(this.backend.leaseName(broken));
		assertThat(this.backend.runLedger().history(job, 10)).singleElement()
			.extracting(RunRecord::fencingToken)
			.isEqualTo(1L);
	}

	@Test
	void aRunsStartWrittenAgainAfterItsEndLeavesTheEnd() {
		String job = jobName("ledger-start-after-end");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		RunRecord started = new RunRecord(job, s1, 1, 4, "node-a", RunTrigger.SCHEDULED, RunState.RUNNING, s1, null,
				null);
		this.backend.runLedger().record(started.finish(RunState.LOST, null, null), 10);
		// the start of a group sent again after the node that took the job over marked it
		this.backend.runLedger().recordAll(List.of(started), 10);
		assertThat(this.backend.runLedger().history(job, 10)).singleElement()
			.extracting(RunRecord::state)
			.isEqualTo(RunState.LOST);
	}

	@Test
	void recordsWrittenAgainChangeNothingAndSendNoPut() {
		String job = jobName("ledger-again");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		RunRecord run = succeeded(job, s1, 2, "node-a");
		this.backend.runLedger().record(run, 10);
		String version = lease(job).getMetadata().getResourceVersion();
		resetRoundTrips();
		this.backend.runLedger().recordAll(List.of(run), 10);
		assertThat(roundTrips()).as("one GET, no PUT").isEqualTo(1);
		assertThat(lease(job).getMetadata().getResourceVersion()).isEqualTo(version);
	}

	@Test
	void anOutageOfTheApiServerStopsAGroupAtItsFirstJob() {
		String failing = jobName("ledger-outage-first");
		String next = jobName("ledger-outage-next");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		this.failingReads.put(this.backend.leaseName(failing), new AtomicInteger(1));
		try {
			assertThatExceptionOfType(KubernetesClientException.class).isThrownBy(() -> this.backend.runLedger()
				.recordAll(List.of(succeeded(failing, s1, 1, "node-a"), succeeded(next, s1, 1, "node-a")), 10));
			// the writer sends the whole group again later: the next job was not asked
			assertThat(this.sent).noneMatch((request) -> request.path().contains(this.backend.leaseName(next)));
		}
		finally {
			this.failingReads.clear();
		}
	}

	@Test
	void aLedgerWriteBetweenTheReadAndThePutOfAClaimDoesNotCostTheClaim() {
		String job = jobName("ledger-race");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		RunRecord run = succeeded(job, s1, 1, "node-a");
		this.backend.runLedger().record(run, 10);
		// the clock is read to judge pending work, between the claim's read and its PUT
		AtomicReference<Runnable> onClockRead = new AtomicReference<>(
				() -> this.backend.runLedger().record(run.finish(RunState.SUCCEEDED, s1.plusSeconds(2), null), 10));
		Clock clock = new Clock() {

			@Override
			public ZoneOffset getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(java.time.ZoneId zone) {
				return this;
			}

			@Override
			public Instant instant() {
				Runnable action = onClockRead.getAndSet(null);
				if (action != null) {
					action.run();
				}
				return Instant.now();
			}

		};
		KubernetesLeaseBackend node = newBackend(clock);
		try {
			LeaseRequest request = request(job, "node-b", LONG_TTL, s1.plusSeconds(60)).withPolicy(RECOVER_FAILED, s1);
			resetRoundTrips();
			AcquireResult result = node.tryAcquire(request);
			assertThat(onClockRead.get()).as("the ledger was written in between").isNull();
			assertThat(result.isAcquired()).isTrue();
			// the Lease the ledger created is read with the pause of every job until a
			// claim
			// takes it
			assertThat(roundTrips())
				.as("GET, GET of the pause, PUT (409), the ledger's GET and PUT, GET, GET of the pause, PUT")
				.isEqualTo(8);
			assertThat(node.runLedger().history(job, 10)).singleElement()
				.extracting(RunRecord::finishedAt)
				.isEqualTo(s1.plusSeconds(2));
			node.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO, RunCompletion.succeeded());
		}
		finally {
			node.close();
		}
	}

	@Test
	void ledgerWritesDoNotKeepADeadHoldersLeaseAlive() {
		String job = jobName("ledger-alive");
		Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
		ClaimPolicy policy = RECOVER_FAILED;
		LeaseRequest request = request(job, "node-a", SHORT_TTL, s1).withPolicy(policy, null);
		long fence = this.backend.tryAcquire(request).fencingToken();
		RunRecord run = new RunRecord(job, s1, 1, fence, "node-a", RunTrigger.SCHEDULED, RunState.RUNNING,
				Instant.now(), null, null);
		AtomicReference<Set<String>> pending = new AtomicReference<>(Set.of());
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
			// the holder is dead, but its ledger entry keeps being rewritten
			this.backend.runLedger().record(run, 10);
			pending.set(this.backend.findPending(Map.of(job, policy)));
			return pending.get().contains(job);
		});
		this.backend.runLedger().markLostBefore(job, fence + 1);
		assertThat(this.backend.runLedger().history(job, 1)).extracting(RunRecord::state)
			.containsExactly(RunState.LOST);
		// the first recovery claim marks the run still recorded as running; a claim takes
		// it over once this node has seen the mark for the grace (a quarter of the TTL)
		AcquireResult recovered = awaitAcquired(this.backend,
				LeaseRequest.recovery(job, "node-b", UUID.randomUUID().toString(), Duration.ofMillis(400), policy));
		assertThat(recovered.run()).isEqualTo(new SlotRun(s1, 1, RunState.RUNNING));
		assertThat(lease(job).getMetadata().getAnnotations())
			.doesNotContainKey(KubernetesLeaseBackend.RECOVER_MARK_ANNOTATION);
	}

	@Test
	void startRunRefusesALeaseThisNodeSeesExpired() {
		java.util.concurrent.atomic.AtomicLong nanoTime = new java.util.concurrent.atomic.AtomicLong();
		KubernetesLeaseBackend node = new KubernetesLeaseBackend(this.client, NAMESPACE,
				KubernetesLeaseBackend.DEFAULT_LEASE_PREFIX, Duration.ofSeconds(5), Clock.systemUTC(), 1,
				nanoTime::get);
		try {
			String job = jobName("start-run-expired");
			Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
			LeaseRequest request = request(job, "node-a", SHORT_TTL, s1).withPolicy(RECOVER_FAILED, null);
			HeldLease lease = HeldLease.of(request, node.tryAcquire(request).fencingToken());
			nanoTime.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
			assertThat(node.startRun(lease, s1, 2)).isPresent();
			// the run's write restarts the wait, as a renewal does
			nanoTime.addAndGet(TimeUnit.MILLISECONDS.toNanos(900));
			assertThat(node.startRun(lease, s1, 3)).isPresent();
			nanoTime.addAndGet(TimeUnit.SECONDS.toNanos(1));
			assertThat(node.startRun(lease, s1.plusSeconds(60), 1)).isEmpty();
			assertThat(LeaseCodec.run(lease(job))).isEqualTo(new SlotRun(s1, 3, RunState.RUNNING));
		}
		finally {
			node.close();
		}
	}

	@Test
	void startRunIsRefusedWhilePausedAndForASlotBeforeAResumeWithoutCatchUp() {
		KubernetesLeaseBackend node = new KubernetesLeaseBackend(this.client, NAMESPACE, "cs-start-run-",
				Duration.ofSeconds(5), Clock.systemUTC(), KubernetesLeaseBackend.DEFAULT_RENEWAL_CONCURRENCY,
				System::nanoTime);
		try {
			JobControls controls = node.controls().orElseThrow();
			String job = jobName("start-run-paused");
			Instant s1 = Instant.parse("2026-01-01T10:00:00Z");
			LeaseRequest request = request(job, "node-a", LONG_TTL, s1).withPolicy(RECOVER_FAILED, null);
			HeldLease lease = HeldLease.of(request, node.tryAcquire(request).fencingToken());
			assertThat(node.startRun(lease, s1, 2)).isPresent();
			controls.pause(job, "alice", null);
			assertThat(node.startRun(lease, s1.plusSeconds(60), 1)).isEmpty();
			controls.resume(job, true);
			assertThat(node.startRun(lease, s1.plusSeconds(60), 1)).isPresent();
			controls.pause(null, "alice", null);
			try {
				// the mark of the pause of every job refuses it
				assertThat(node.startRun(lease, s1.plusSeconds(120), 1)).isEmpty();
			}
			finally {
				controls.resume(null, true);
			}
			assertThat(node.startRun(lease, s1.plusSeconds(120), 1)).isPresent();
			Instant beforeResume = Instant.now();
			controls.pause(job, "alice", null);
			controls.resume(job, false);
			// neither the retry of the current slot nor a slot that passed while paused
			assertThat(node.startRun(lease, s1.plusSeconds(120), 2)).isEmpty();
			assertThat(node.startRun(lease, s1.plusSeconds(180), 1)).isEmpty();
			assertThat(node.describe(job).orElseThrow().lastSlot()).isAfterOrEqualTo(beforeResume);
			Instant next = Instant.now().plusSeconds(60);
			OptionalLong started = node.startRun(lease, next, 1);
			assertThat(started).isPresent();
			// the retry of the slot now current still starts
			assertThat(node.startRun(lease, next, 2).getAsLong()).isGreaterThan(started.getAsLong());
			node.release(lease, Duration.ZERO, RunCompletion.none());
		}
		finally {
			node.close();
		}
	}

	private static final ClaimPolicy RECOVER_FAILED = new ClaimPolicy(true, true, 3, false);

	private AcquireResult awaitAcquired(KubernetesLeaseBackend backend, LeaseRequest request) {
		java.util.concurrent.atomic.AtomicReference<AcquireResult> result = new java.util.concurrent.atomic.AtomicReference<>();
		await().atMost(Duration.ofSeconds(10))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				AcquireResult attempt = backend.tryAcquire(request);
				result.set(attempt);
				return attempt.isAcquired();
			});
		return result.get();
	}

	/**
	 * A scheduled run of a slot, its first attempt, that succeeded a second after its
	 * slot.
	 */
	private static RunRecord succeeded(String job, Instant slot, long fencingToken, String owner) {
		return new RunRecord(job, slot, 1, fencingToken, owner, RunTrigger.SCHEDULED, RunState.SUCCEEDED, slot,
				slot.plusSeconds(1), null);
	}

	private Lease lease(String job) {
		return this.client.leases().inNamespace(NAMESPACE).withName(this.backend.leaseName(job)).get();
	}

	private record SentRequest(String method, String path, String body) {
	}

	/**
	 * The mock's CRUD dispatcher, keeping a copy of every request first.
	 */
	/**
	 * Return false: renewals are conditional PUTs through the client's DSL, whose answers
	 * are not read for their {@code Date}; acquisitions report it.
	 */
	@Override
	protected boolean renewsALeaseNobodyTookAfterItsTtl() {
		// renewals are a compare-and-set on the Lease's resourceVersion: one that finds
		// the record unchanged since this node's own write proves nobody took it
		return true;
	}

	@Override
	protected boolean reportsStoreTimeOnRenewal() {
		return false;
	}

	private static final class RecordingCrudDispatcher extends KubernetesCrudDispatcher {

		private final Queue<SentRequest> sent;

		private final Map<String, AtomicInteger> conflictingUpdates;

		private final Map<String, AtomicInteger> failingReads;

		RecordingCrudDispatcher(Queue<SentRequest> sent, Map<String, AtomicInteger> conflictingUpdates,
				Map<String, AtomicInteger> failingReads) {
			this.sent = sent;
			this.conflictingUpdates = conflictingUpdates;
			this.failingReads = failingReads;
		}

		@Override
		public MockResponse dispatch(RecordedRequest request) {
			String body = (request.getBody() != null) ? request.getBody().readUtf8() : "";
			if (request.getBody() != null) {
				request.getBody().writeUtf8(body);
			}
			this.sent.add(new SentRequest(request.getMethod(), request.getPath(), body));
			if ("GET".equals(request.getMethod())) {
				String path = request.getPath();
				AtomicInteger failures = this.failingReads.get(path.substring(path.lastIndexOf('/') + 1));
				if (failures != null && failures.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
					return new MockResponse().setResponseCode(503)
						.setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
								+ "\"reason\":\"ServiceUnavailable\",\"code\":503}");
				}
			}
			if ("PUT".equals(request.getMethod())) {
				String path = request.getPath();
				String name = path.substring(path.lastIndexOf('/') + 1);
				AtomicInteger conflicts = this.conflictingUpdates.get(name);
				if (conflicts != null && conflicts.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
					// as when another writer changed the Lease after this client read it
					return new MockResponse().setResponseCode(409)
						.setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
								+ "\"reason\":\"Conflict\",\"code\":409,\"message\":\"Operation cannot be "
								+ "fulfilled on leases.coordination.k8s.io \\\"" + name + "\\\": the object has "
								+ "been modified; please apply your changes to the latest version and try again\"}");
				}
			}
			// as a real API server does, to the second
			return super.dispatch(request).setHeader("Date",
					DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)));
		}

	}

}
