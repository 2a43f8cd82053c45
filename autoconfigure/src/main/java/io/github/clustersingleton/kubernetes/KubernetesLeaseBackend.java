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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialRenewalException;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.StoreClockObserver;
import io.github.clustersingleton.kubernetes.OptimisticUpdate.Retry;
import io.github.clustersingleton.kubernetes.OptimisticUpdate.Step;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.util.Assert;

import static io.github.clustersingleton.kubernetes.OptimisticUpdate.CONFLICT_ATTEMPTS;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.QUICK_CONFLICT_ATTEMPTS;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.done;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.update;

/**
 * {@link LeaseBackend} that keeps each job's lease in a Kubernetes
 * {@code coordination.k8s.io/v1} Lease named {@code <prefix><job name>}
 * ({@link KubernetesLeaseNames sanitized}): {@code spec.holderIdentity} is the owner,
 * {@code spec.leaseDurationSeconds} the TTL (rounded up to whole seconds), and three
 * annotations carry what Kubernetes has no field for: {@value #FENCING_TOKEN_ANNOTATION},
 * {@value #LAST_SLOT_ANNOTATION} (an ISO-8601 instant) and
 * {@value #LEASE_TOKEN_ANNOTATION}.
 * <p>
 * <strong>Runs.</strong> A claim of a cron slot, and a claim with an
 * {@link ClaimPolicy#isActive() active policy}, records the job's current run in four
 * more annotations, in the same PUT as the claim (without an active policy nothing is
 * pending, so a claim of a slot always starts the slot's first run):
 * {@value #RUN_SLOT_ANNOTATION}, {@value #ATTEMPT_ANNOTATION},
 * {@value #RUN_STATE_ANNOTATION} and, for a failed run, {@value #RETRY_AT_ANNOTATION}
 * (this node's clock plus the retry delay: Kubernetes has no store clock, and a failed
 * run's lease has been released, so no expiry observation can stand in for it). Whether
 * work is pending is decided on the Lease as read before the PUT; the resourceVersion
 * makes the read and the PUT one atomic step. {@link #findPending} lists the Leases with
 * this backend's label once for all jobs. The {@link #runLedger() run ledger} is the
 * annotation {@value #RUNS_ANNOTATION} of each job's Lease: a JSON array of its newest
 * runs, at most {@value #MAX_LEDGER_RUNS}.
 * <p>
 * <strong>Writes.</strong> Every update is a PUT of an object read or written before,
 * carrying its {@code metadata.resourceVersion}: the API server refuses it with
 * {@code 409 Conflict} when anyone changed the Lease in between, so a read-decide-write
 * is atomic. A Lease that does not exist yet is created; {@code 409} on create means
 * another node created it first. Nothing is ever deleted: the fencing token and last slot
 * live in the Lease.
 * <p>
 * <strong>Expiry without a store clock.</strong> The API server has no notion of expiry,
 * and the nodes' wall clocks may disagree, so expiry is judged as client-go's leader
 * election does: a Lease is expired for this node when it has seen the same lease record
 * (holder, lease token, fencing token, {@code renewTime} and duration; every write of
 * ours moves {@code renewTime} forward) for longer than its {@code leaseDurationSeconds},
 * measured with this JVM's monotonic clock from the moment it first saw that record. The
 * {@code resourceVersion} is not watched: a change of labels or annotations by others
 * does not keep a dead holder's Lease alive. The {@code acquireTime} and
 * {@code renewTime} fields are written from the application's {@link Clock} for people
 * and tools to read, but never compared across nodes. A node that starts while a dead
 * node's Lease is held waits one full lease duration before it takes the Lease over.
 * <p>
 * <strong>Renewal.</strong> Kubernetes has no batch update: the leases this node holds
 * are renewed with one PUT each, issued in parallel by at most
 * {@link #DEFAULT_RENEWAL_CONCURRENCY} threads (configurable), so one tick costs about
 * one round trip for a handful of leases.
 * <p>
 * Requests use a client derived from the given one with no automatic retries and a
 * request timeout of a sixth of the lease TTL (see {@link #requestTimeout(Duration)}): a
 * failed call is retried by the engine at the next trigger or watchdog tick, never by the
 * HTTP client behind its back.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class KubernetesLeaseBackend implements LeaseBackend, AutoCloseable {

	/**
	 * The verbs on {@code leases} in API group {@code coordination.k8s.io} that the
	 * application's account needs, as the documented Role grants them: the backend uses
	 * get, create and update, and list for {@link #findPending} and the ledger's
	 * {@link RunLedger#lastSuccess last successes} (people and tools that look at the
	 * Leases with the same account use it too).
	 */
	public static final List<String> RBAC_VERBS = List.of("get", "list", "create", "update");

	/**
	 * The default prefix of the Lease names.
	 */
	public static final String DEFAULT_LEASE_PREFIX = "cluster-singleton-";

	/**
	 * Annotation holding the job's last fencing token.
	 */
	public static final String FENCING_TOKEN_ANNOTATION = "cluster-singleton.io/fencing-token";

	/**
	 * Annotation holding the job's last claimed cron slot, an ISO-8601 instant.
	 */
	public static final String LAST_SLOT_ANNOTATION = "cluster-singleton.io/last-slot";

	/**
	 * Annotation holding the random token of the current acquisition.
	 */
	public static final String LEASE_TOKEN_ANNOTATION = "cluster-singleton.io/lease-token";

	/**
	 * Annotation holding the cron slot of the job's current run, an ISO-8601 instant.
	 */
	public static final String RUN_SLOT_ANNOTATION = "cluster-singleton.io/run-slot";

	/**
	 * Annotation holding the attempt of the job's current run (1 for a slot's first run).
	 */
	public static final String ATTEMPT_ANNOTATION = "cluster-singleton.io/attempt";

	/**
	 * Annotation holding the state of the job's current run: {@code running},
	 * {@code succeeded} or {@code failed}.
	 */
	public static final String RUN_STATE_ANNOTATION = "cluster-singleton.io/run-state";

	/**
	 * Annotation holding, for a failed run, from when another attempt may be claimed: an
	 * ISO-8601 instant of the releasing node's clock.
	 */
	public static final String RETRY_AT_ANNOTATION = "cluster-singleton.io/retry-at";

	/**
	 * Annotation holding the job's run ledger: a JSON array of its newest runs.
	 */
	public static final String RUNS_ANNOTATION = "cluster-singleton.io/runs";

	/**
	 * The annotation with the lease token of the claim that took the job last, which a
	 * run's completion must carry to be recorded; unlike {@link #LEASE_TOKEN_ANNOTATION}
	 * it stays when the lease is released or expires.
	 */
	public static final String RUN_TOKEN_ANNOTATION = "cluster-singleton.io/run-token";

	/**
	 * The annotation with which the first recovery claim marks a run still recorded as
	 * running on an expired Lease (its value is that claim's lease token): a claim takes
	 * the run over only once it has seen this mark for the recovery grace.
	 */
	public static final String RECOVER_MARK_ANNOTATION = "cluster-singleton.io/recover-mark";

	/**
	 * The most runs the ledger keeps per job, whatever is asked: annotations are limited
	 * in size (256 KiB for all of an object's annotations).
	 */
	public static final int MAX_LEDGER_RUNS = 20;

	/**
	 * Annotation holding the job name the Lease belongs to (its name is sanitized).
	 */
	public static final String JOB_NAME_ANNOTATION = "cluster-singleton.io/job-name";

	/**
	 * Label on every Lease this backend creates.
	 */
	public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

	/**
	 * The default number of renewals in flight at once.
	 */
	public static final int DEFAULT_RENEWAL_CONCURRENCY = 8;

	private static final long MIN_REQUEST_TIMEOUT_MILLIS = 250;

	private static final long MAX_REQUEST_TIMEOUT_MILLIS = 10_000;

	/**
	 * Fencing tokens of a Lease start at its {@code creationTimestamp} (API server time,
	 * whole seconds) times this, so that a Lease deleted and created again still hands
	 * out tokens above every earlier one (unless a job was acquired a million times per
	 * second of its Lease's life).
	 */
	static final long FENCING_TOKENS_PER_SECOND = 1_000_000;

	private static final Log logger = LogFactory.getLog(KubernetesLeaseBackend.class);

	private static final AtomicInteger threadCounter = new AtomicInteger();

	private final KubernetesClient client;

	private final String namespace;

	private final String leasePrefix;

	private final Duration leaseTtl;

	private final Clock clock;

	private final LongSupplier nanoTime;

	/**
	 * How long a read through the HTTP client may take in all: the request timeout, and
	 * as much again for the connection.
	 */
	private final long requestTimeoutMillis;

	private final int renewalConcurrency;

	/**
	 * Per Lease name: the lease record (holder, token, renewal, duration) this node saw
	 * last, and since when.
	 */
	private final LeaseExpiryObserver expiry;

	private final LeaseApi api;

	/** Per lease token: the Lease as this node last wrote it, for renewal and release. */
	private final Map<String, Held> held = new ConcurrentHashMap<>();

	/** Lease names of the jobs checked at startup, to reject two jobs sharing one. */
	private final Map<String, String> jobsByLeaseName = new ConcurrentHashMap<>();

	/**
	 * The recovery marks this node has seen, by Lease name, with when it first saw each
	 * (monotonic): the grace is measured locally, as the Lease's expiry is.
	 */
	private final Map<String, SeenMark> marksSeen = new ConcurrentHashMap<>();

	private final KubernetesRunLedger runLedger;

	private volatile @Nullable ThreadPoolExecutor renewals;

	/**
	 * Create a new instance with the {@link #DEFAULT_LEASE_PREFIX default prefix}.
	 * @param client the Kubernetes client
	 * @param namespace the namespace of the Leases
	 * @param leaseTtl the application's lease TTL ({@code cluster-singleton.lease-ttl})
	 * @param clock the clock of the {@code acquireTime} and {@code renewTime} fields
	 */
	public KubernetesLeaseBackend(KubernetesClient client, String namespace, Duration leaseTtl, Clock clock) {
		this(client, namespace, DEFAULT_LEASE_PREFIX, leaseTtl, clock, DEFAULT_RENEWAL_CONCURRENCY, System::nanoTime);
	}

	/**
	 * Create a new instance.
	 * @param client the Kubernetes client; requests go through a client derived from it
	 * with a {@link #requestTimeout(Duration) timeout} that fits the lease TTL and no
	 * automatic retries
	 * @param namespace the namespace of the Leases
	 * @param leasePrefix the prefix of every Lease name
	 * @param leaseTtl the application's lease TTL ({@code cluster-singleton.lease-ttl}):
	 * sets the request timeout, and the duration assumed for a Lease that has none
	 * @param clock the clock of the {@code acquireTime} and {@code renewTime} fields
	 * @param renewalConcurrency the most renewals in flight at once
	 * @param nanoTime the monotonic clock expiry is measured with
	 * @throws IllegalArgumentException when the namespace or prefix is not usable
	 */
	public KubernetesLeaseBackend(KubernetesClient client, String namespace, String leasePrefix, Duration leaseTtl,
			Clock clock, int renewalConcurrency, LongSupplier nanoTime) {
		Assert.notNull(client, "'client' must not be null");
		Assert.isTrue(namespace != null && !namespace.isBlank(), "Kubernetes namespace must not be empty");
		Assert.isTrue(leaseTtl != null && !leaseTtl.isNegative() && !leaseTtl.isZero(), "'leaseTtl' must be positive");
		Assert.notNull(clock, "'clock' must not be null");
		Assert.isTrue(renewalConcurrency > 0, "'renewalConcurrency' must be positive");
		Assert.notNull(nanoTime, "'nanoTime' must not be null");
		KubernetesLeaseNames.checkPrefix(leasePrefix);
		this.client = client
			.newClient(new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
				.withRequestRetryBackoffLimit(0)
				.withRequestTimeout((int) requestTimeout(leaseTtl).toMillis())
				.build())
			.adapt(KubernetesClient.class);
		this.namespace = namespace;
		this.leasePrefix = leasePrefix;
		this.leaseTtl = leaseTtl;
		this.clock = clock;
		this.renewalConcurrency = renewalConcurrency;
		this.nanoTime = nanoTime;
		this.requestTimeoutMillis = requestTimeout(leaseTtl).toMillis() * 2;
		this.expiry = new LeaseExpiryObserver(leaseTtl, nanoTime);
		this.api = new LeaseApi(this.client, namespace, this.requestTimeoutMillis, this.expiry);
		this.runLedger = new KubernetesRunLedger(this, this.api);
	}

	@Override
	public String id() {
		return "kubernetes";
	}

	/**
	 * Return the timeout of each request for a lease TTL: a sixth of it, between
	 * {@value #MIN_REQUEST_TIMEOUT_MILLIS} ms and {@value #MAX_REQUEST_TIMEOUT_MILLIS}
	 * ms. An acquisition is a read and a write, and the client may add up to the timeout
	 * again for the response, so even a slow acquisition ends well inside one TTL and a
	 * renewal inside one watchdog tick (a third of the TTL).
	 * @param leaseTtl the lease TTL
	 * @return the request timeout
	 */
	public static Duration requestTimeout(Duration leaseTtl) {
		long millis = leaseTtl.toMillis() / 6;
		return Duration.ofMillis(Math.max(MIN_REQUEST_TIMEOUT_MILLIS, Math.min(MAX_REQUEST_TIMEOUT_MILLIS, millis)));
	}

	/**
	 * Return the namespace of the Leases.
	 * @return the namespace
	 */
	public String getNamespace() {
		return this.namespace;
	}

	/**
	 * Return the prefix of every Lease name.
	 * @return the lease prefix
	 */
	public String getLeasePrefix() {
		return this.leasePrefix;
	}

	/**
	 * Return the name of a job's Lease.
	 * @param jobName the job name
	 * @return the Lease name
	 */
	public String leaseName(String jobName) {
		return KubernetesLeaseNames.leaseName(this.leasePrefix, jobName);
	}

	/**
	 * Check that the API server answers and lets this application read Leases in the
	 * namespace. A server that cannot be reached is logged (runs are skipped until it
	 * answers); one that forbids access fails startup, since no run would ever get a
	 * lease.
	 */
	@Override
	public void initialize() {
		try {
			probe();
		}
		catch (KubernetesClientException ex) {
			if (ex.getCode() == 401 || ex.getCode() == 403) {
				throw new ClusterSingletonConfigurationException("cluster-singleton cannot read Leases in Kubernetes "
						+ "namespace '" + this.namespace + "' (HTTP " + ex.getCode() + "): the application's service "
						+ "account needs a Role that allows " + String.join(", ", RBAC_VERBS)
						+ " on 'leases' in API group "
						+ "'coordination.k8s.io' (docs/kubernetes/rbac.yaml in the cluster-singleton documentation), "
						+ "or choose the namespace with cluster-singleton.kubernetes.namespace", ex);
			}
			logger.warn("cluster-singleton could not reach the Kubernetes API server (" + this.client.getMasterUrl()
					+ ", namespace '" + this.namespace + "'); runs are skipped until it answers: " + ex.getMessage()
					+ " (" + NestedExceptionUtils.getMostSpecificCause(ex) + ")");
		}
	}

	/**
	 * Check that the job's Lease name does not collide with another job's.
	 */
	@Override
	public void validateJobName(String jobName) {
		String leaseName = leaseName(jobName);
		String other = this.jobsByLeaseName.putIfAbsent(leaseName, jobName);
		if (other != null && !other.equals(jobName)) {
			throw new IllegalArgumentException("Job names '" + other + "' and '" + jobName + "' both map to the "
					+ "Kubernetes Lease '" + leaseName + "' (a Lease name is a DNS label: lower-case letters, digits "
					+ "and '-'); give one of them another name");
		}
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		Assert.notNull(request, "'request' must not be null");
		String name = leaseName(request.jobName());
		// another write came between our read and our write: it may have been a
		// claim (then the next read shows it held or the slot done, and ends the
		// loop), or only a ledger entry, a renewal or a label, which leaves the slot
		// to this claim. Tried again for a third of the TTL, so that a grant never
		// comes near the lease's expiry
		Retry thirdOfTtl = Retry.within(request.ttl().toNanos() / 3, this.nanoTime);
		return OptimisticUpdate
			.<ClaimRead, AcquireResult>of(this.api, () -> readForClaim(name), thirdOfTtl, () -> lostRace(name, request))
			.run((read, fromServer) -> claim(name, request, read));
	}

	/**
	 * Read the Lease for a claim, with the server's time, and when the read was sent.
	 */
	private ClaimRead readForClaim(String name) {
		long sent = this.nanoTime.getAsLong();
		return new ClaimRead(this.api.read(name), sent);
	}

	/**
	 * Decide a claim on the Lease as read.
	 */
	private Step<AcquireResult> claim(String name, LeaseRequest request, ClaimRead read) {
		long sent = read.sent();
		Lease current = read.read().lease();
		Instant serverTime = read.read().latestServerTime();
		if (current != null) {
			checkJob(current, request.jobName());
		}
		if (request.recovery()) {
			return recover(name, request, current, sent);
		}
		if (serverTime != null && request.slotAheadOf(serverTime)) {
			// the API server does not compare times: this check is ours, on the time
			// its answer carried, and it refuses before anything is written
			return done(AcquireResult.clockSkew((current != null) ? LeaseCodec.lastSlot(current) : null));
		}
		if (current == null) {
			return create(name, request, sent);
		}
		Instant lastSlot = LeaseCodec.lastSlot(current);
		Instant slot = request.slot();
		if (slot != null && lastSlot != null && !slot.isAfter(lastSlot)) {
			return done(AcquireResult.slotDone(lastSlot));
		}
		String holder = LeaseCodec.holder(current);
		if (holder != null && this.expiry.isLive(name, current)) {
			return done(AcquireResult.held(holder));
		}
		ClaimPolicy policy = request.policy();
		// judged on the Lease as read: the resourceVersion makes this and the PUT atomic
		boolean pending = policy.isActive()
				&& LeaseCodec.isPending(current, policy, request.previousSlot(), true, this.clock.instant());
		if (pending && awaitsGrace(name, current, policy, request)) {
			// the run may have ended without its completion reaching the Lease yet
			return done(AcquireResult.held(holder));
		}
		long fencingToken = LeaseCodec.fencingToken(current) + 1;
		Lease next = claim(current, request, fencingToken,
				(slot != null) ? slot.toString() : LeaseCodec.annotation(current, LAST_SLOT_ANNOTATION));
		// every claim of a slot with nothing pending (always so without an active policy)
		// starts the slot's first run, so that a later claim under an active policy does
		// not take the slots run without one for unserved
		if (!pending && slot != null) {
			LeaseCodec.startRun(next.getMetadata().getAnnotations(), slot, 1);
		}
		LeaseCodec.removeNullAnnotations(next);
		// a 404 too means another node wrote the Lease between our read and our write
		return update(next, (written) -> {
			remember(written, request, sent);
			return acquired(request, fencingToken, written);
		});
	}

	/**
	 * A recovery claim: only an expired Lease with pending work is taken over, and its
	 * last slot and run stay as they are.
	 */
	private Step<AcquireResult> recover(String name, LeaseRequest request, @Nullable Lease current, long sent) {
		if (current == null) {
			return done(AcquireResult.nothingPending());
		}
		String holder = LeaseCodec.holder(current);
		if (holder != null && this.expiry.isLive(name, current)) {
			return done(AcquireResult.held(holder));
		}
		if (!LeaseCodec.isPending(current, request.policy(), null, false, this.clock.instant())) {
			return done(AcquireResult.nothingPending());
		}
		if (awaitsGrace(name, current, request.policy(), request)) {
			return (LeaseCodec.annotation(current, RECOVER_MARK_ANNOTATION) != null)
					? done(AcquireResult.nothingPending()) : mark(name, current, request);
		}
		long fencingToken = LeaseCodec.fencingToken(current) + 1;
		Lease next = claim(current, request, fencingToken, LeaseCodec.annotation(current, LAST_SLOT_ANNOTATION));
		LeaseCodec.removeNullAnnotations(next);
		return update(next, (written) -> {
			remember(written, request, sent);
			return acquired(request, fencingToken, written);
		});
	}

	/**
	 * Whether a claim must not take the Lease's run over yet: it is still recorded as
	 * running and the policy would run it again (it may have ended without its completion
	 * reaching the Lease), and this node has not seen a recovery mark on it for the
	 * recovery grace. Measured with this node's monotonic clock since it first saw the
	 * mark, as the Lease's expiry is, so that no two clocks are compared.
	 */
	private boolean awaitsGrace(String name, Lease current, ClaimPolicy policy, LeaseRequest request) {
		SlotRun run = LeaseCodec.run(current);
		if (run == null || !policy.needsRecoveryGrace(run)) {
			return false;
		}
		String mark = LeaseCodec.annotation(current, RECOVER_MARK_ANNOTATION);
		if (mark == null) {
			return true;
		}
		long now = this.nanoTime.getAsLong();
		SeenMark seen = this.marksSeen.compute(name,
				(key, known) -> (known != null && known.mark().equals(mark)) ? known : new SeenMark(mark, now));
		return now - seen.firstSeen() < request.recoveryGrace().toNanos();
	}

	/**
	 * Mark the run of an expired Lease as suspected dead (one PUT with the
	 * resourceVersion read): a later claim takes it over once the grace has passed. The
	 * recovery claim that marks fails.
	 */
	private Step<AcquireResult> mark(String name, Lease current, LeaseRequest request) {
		Lease next = new LeaseBuilder(current).editMetadata()
			.addToAnnotations(RECOVER_MARK_ANNOTATION, request.leaseToken())
			.endMetadata()
			.build();
		return update(next, (written) -> {
			// the grace counts from after the write, never from before it
			this.marksSeen.put(name, new SeenMark(request.leaseToken(), this.nanoTime.getAsLong()));
			return AcquireResult.nothingPending();
		});
	}

	/**
	 * The Lease as a claim leaves it: this request's holder, tokens and duration; run
	 * annotations as they were.
	 */
	private Lease claim(Lease current, LeaseRequest request, long fencingToken, @Nullable String lastSlot) {
		ZonedDateTime now = now(current);
		LeaseSpec spec = current.getSpec();
		String holder = LeaseCodec.holder(current);
		int transitions = (spec != null && spec.getLeaseTransitions() != null) ? spec.getLeaseTransitions() : 0;
		return new LeaseBuilder(current).editMetadata()
			.addToAnnotations(FENCING_TOKEN_ANNOTATION, Long.toString(fencingToken))
			.addToAnnotations(LEASE_TOKEN_ANNOTATION, request.leaseToken())
			.addToAnnotations(RUN_TOKEN_ANNOTATION, request.leaseToken())
			.addToAnnotations(JOB_NAME_ANNOTATION, request.jobName())
			.addToAnnotations(LAST_SLOT_ANNOTATION, lastSlot)
			.removeFromAnnotations(RECOVER_MARK_ANNOTATION)
			.endMetadata()
			.editOrNewSpec()
			.withHolderIdentity(request.owner())
			.withLeaseDurationSeconds(LeaseCodec.seconds(request.ttl()))
			.withAcquireTime(now)
			.withRenewTime(now)
			.withLeaseTransitions(request.owner().equals(holder) ? transitions : transitions + 1)
			.endSpec()
			.build();
	}

	/**
	 * The result of a successful claim: as before claim policies when the request has
	 * none, else with the last slot and run the written Lease records.
	 */
	private static AcquireResult acquired(LeaseRequest request, long fencingToken, Lease written) {
		if (!request.policy().isActive()) {
			return AcquireResult.acquired(fencingToken);
		}
		return AcquireResult.acquired(fencingToken, LeaseCodec.lastSlot(written), LeaseCodec.run(written));
	}

	private Step<AcquireResult> create(String name, LeaseRequest request, long sent) {
		ZonedDateTime now = now();
		Instant slot = request.slot();
		Lease lease = new LeaseBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(this.namespace)
			.addToLabels(MANAGED_BY_LABEL, "cluster-singleton")
			.addToAnnotations(JOB_NAME_ANNOTATION, request.jobName())
			.addToAnnotations(LEASE_TOKEN_ANNOTATION, request.leaseToken())
			.addToAnnotations(RUN_TOKEN_ANNOTATION, request.leaseToken())
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity(request.owner())
			.withLeaseDurationSeconds(LeaseCodec.seconds(request.ttl()))
			.withAcquireTime(now)
			.withRenewTime(now)
			.withLeaseTransitions(0)
			.endSpec()
			.build();
		if (slot != null) {
			lease.getMetadata().getAnnotations().put(LAST_SLOT_ANNOTATION, slot.toString());
			// a new Lease has no run yet, so nothing is pending: the slot's first run
			// starts, whatever the policy
			LeaseCodec.startRun(lease.getMetadata().getAnnotations(), slot, 1);
		}
		// a 409: another node created it first, and the next read shows it. No
		// fencing-token annotation yet: this first token comes from the API server's
		// creation time, so that it exceeds the tokens of a deleted Lease
		return OptimisticUpdate.create(lease, (created) -> {
			remember(created, request, sent);
			return acquired(request, LeaseCodec.fencingToken(created), created);
		}).ifGone((ex) -> {
			throw new IllegalStateException("cluster-singleton could not create the Kubernetes Lease '" + name
					+ "': namespace '" + this.namespace + "' does not exist (HTTP 404); create it, or choose "
					+ "another with cluster-singleton.kubernetes.namespace", ex);
		});
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		Assert.notNull(leases, "'leases' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		List<HeldLease> distinct = HeldLease.distinctByToken(leases);
		if (distinct.isEmpty()) {
			return Set.of();
		}
		if (distinct.size() == 1) {
			HeldLease lease = distinct.get(0);
			return renewOne(lease, ttl) ? Set.of(lease.leaseToken()) : Set.of();
		}
		ThreadPoolExecutor executor = renewals();
		List<Future<Boolean>> futures = new ArrayList<>(distinct.size());
		for (HeldLease lease : distinct) {
			futures.add(executor.submit(() -> renewOne(lease, ttl)));
		}
		// every renewal runs to its end even when another fails, so that the API server
		// keeps those leases; a failure is reported with what did succeed
		Set<String> renewed = new HashSet<>();
		Set<String> lost = new HashSet<>();
		RuntimeException failure = null;
		for (int i = 0; i < futures.size(); i++) {
			String token = distinct.get(i).leaseToken();
			try {
				if (futures.get(i).get()) {
					renewed.add(token);
				}
				else {
					lost.add(token);
				}
			}
			catch (InterruptedException ex) {
				// shutting down: stop waiting, and leave the rest in doubt
				futures.forEach((future) -> future.cancel(true));
				Thread.currentThread().interrupt();
				throw new PartialRenewalException(renewed, lost,
						new IllegalStateException("Interrupted while renewing Kubernetes Leases", ex));
			}
			catch (ExecutionException ex) {
				RuntimeException cause = (ex.getCause() instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException(ex.getCause());
				if (failure == null) {
					failure = cause;
				}
				else {
					failure.addSuppressed(cause);
				}
			}
		}
		if (failure != null) {
			throw new PartialRenewalException(renewed, lost, failure);
		}
		return renewed;
	}

	private boolean renewOne(HeldLease lease, Duration ttl) {
		String name = leaseName(lease.jobName());
		Held known = this.held.get(lease.leaseToken());
		return OptimisticUpdate.<@Nullable Lease, Boolean>of(this.api, () -> this.api.get(name),
				Retry.pausing(QUICK_CONFLICT_ATTEMPTS), () -> {
					throw new IllegalStateException("cluster-singleton could not renew the Kubernetes Lease '" + name
							+ "': it changed under every one of " + QUICK_CONFLICT_ATTEMPTS
							+ " attempts while still held by this run");
				})
			.startingFrom((known != null) ? known.lease() : null)
			// released meanwhile: the release's write is the one to keep
			.endingOnConflict(() -> !this.held.containsKey(lease.leaseToken()), false)
			// else changed since this node wrote it: read it again and look whose it is
			.run((base, fromServer) -> {
				if (fromServer && (base == null || !LeaseCodec.isHeldBy(base, lease))) {
					forget(lease);
					return done(false);
				}
				ZonedDateTime now = now(base);
				Lease next = new LeaseBuilder(base).editOrNewSpec()
					.withRenewTime(now)
					.withLeaseDurationSeconds(LeaseCodec.seconds(ttl))
					.endSpec()
					.build();
				return OptimisticUpdate.update(next, (written) -> {
					// only while the run still holds it: a release may have come in
					// meanwhile
					this.held.computeIfPresent(lease.leaseToken(),
							(token, held) -> new Held(written, held.acquiredAt()));
					return true;
				}).ifGone((ex) -> {
					forget(lease);
					return false;
				});
			});
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor) {
		release(lease, lockAtLeastFor, RunCompletion.none());
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		completeRun(lease, lockAtLeastFor, completion);
	}

	/**
	 * Record how the run ended, by its token ({@value #RUN_TOKEN_ANNOTATION}, which stays
	 * after the lease expired) and its fencing token ({@value #FENCING_TOKEN_ANNOTATION}
	 * still the run's: a later run started under the same token has already ended it, and
	 * is left as it is), and in the same PUT release the lease as
	 * {@link #release(HeldLease, Duration)} does if it still carries the token; a failed
	 * run's {@value #RETRY_AT_ANNOTATION} is this node's clock plus the retry delay. The
	 * resourceVersion of the Lease read makes the check and the write atomic.
	 */
	@Override
	public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.isTrue(lockAtLeastFor != null && !lockAtLeastFor.isNegative(), "'lockAtLeastFor' must not be negative");
		Assert.notNull(completion, "'completion' must not be null");
		String name = leaseName(lease.jobName());
		Held known = this.held.remove(lease.leaseToken());
		RunState state = completion.state();
		return OptimisticUpdate
			.<@Nullable Lease, Boolean>of(this.api, () -> this.api.get(name), Retry.pausing(CONFLICT_ATTEMPTS), () -> {
				throw new IllegalStateException("cluster-singleton could not release the Kubernetes Lease '" + name
						+ "': it changed under every one of " + CONFLICT_ATTEMPTS + " attempts");
			})
			.startingFrom((known != null) ? known.lease() : null)
			.run((base, fromServer) -> {
				if (base == null) {
					logNotReleased(lease);
					return done(state == null);
				}
				boolean held = LeaseCodec.isHeldBy(base, lease);
				// a Lease that still carries the token counts too: its claim was made
				// before the run token existed
				boolean runOurs = held || lease.leaseToken().equals(LeaseCodec.annotation(base, RUN_TOKEN_ANNOTATION));
				if (!held && (state == null || !runOurs)) {
					logNotReleased(lease);
					return done(state == null);
				}
				LeaseBuilder next = new LeaseBuilder(base);
				if (held) {
					Duration remaining = remaining(base, known, lockAtLeastFor);
					if (remaining.isZero() || remaining.isNegative()) {
						next.editOrNewSpec().withHolderIdentity(null).withRenewTime(now(base)).endSpec();
						next.editMetadata().removeFromAnnotations(LEASE_TOKEN_ANNOTATION).endMetadata();
					}
					else {
						// keep the holder until acquisition + lockAtLeastFor, measured
						// from now; without the lease token, so that no renewal still in
						// flight for this run can extend it again
						next.editOrNewSpec()
							.withRenewTime(now(base))
							.withLeaseDurationSeconds(LeaseCodec.seconds(remaining))
							.endSpec();
						next.editMetadata().removeFromAnnotations(LEASE_TOKEN_ANNOTATION).endMetadata();
					}
				}
				// only the run with this fencing token: a later run started under the
				// same lease token (a startRun whose answer this node may not have seen)
				// has ended this run, and must not be recorded as ended by its completion
				boolean sameRun = LeaseCodec.fencingToken(base) == lease.fencingToken();
				if (!held && !sameRun) {
					return done(true);
				}
				if (state != null && sameRun) {
					next.editMetadata()
						.addToAnnotations(RUN_STATE_ANNOTATION, state.value())
						.removeFromAnnotations(RECOVER_MARK_ANNOTATION)
						.endMetadata();
					if (state == RunState.FAILED) {
						next.editMetadata()
							.addToAnnotations(RETRY_AT_ANNOTATION,
									this.clock.instant().plus(completion.retryDelay()).toString())
							.endMetadata();
					}
					else {
						next.editMetadata().removeFromAnnotations(RETRY_AT_ANNOTATION).endMetadata();
					}
				}
				return OptimisticUpdate.update(next.build(), (written) -> true).ifGone((ex) -> {
					logNotReleased(lease);
					return state == null;
				});
			});
	}

	/**
	 * Start another run under a held lease: one PUT (with the resourceVersion this node
	 * last wrote or read) that raises the fencing token and records the run, only while
	 * the Lease carries the lease's token and has not expired by this node's observation
	 * (as another node would judge it).
	 */
	@Override
	public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		Assert.notNull(lease, "'lease' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		String name = leaseName(lease.jobName());
		Held known = this.held.get(lease.leaseToken());
		return OptimisticUpdate.<@Nullable Lease, OptionalLong>of(this.api, () -> this.api.get(name),
				Retry.pausing(CONFLICT_ATTEMPTS), () -> {
					throw new IllegalStateException(
							"cluster-singleton could not start a run under the Kubernetes Lease '" + name
									+ "': it changed under every one of " + CONFLICT_ATTEMPTS
									+ " attempts while still held by this run");
				})
			.startingFrom((known != null) ? known.lease() : null)
			// on a conflict: changed since this node wrote it, by a ledger entry or a
			// new holder
			.run((base, fromServer) -> {
				if (fromServer && (base == null || !LeaseCodec.isHeldBy(base, lease))) {
					return done(OptionalLong.empty());
				}
				if (this.expiry.hasExpired(name, base)) {
					return done(OptionalLong.empty());
				}
				long fencingToken = LeaseCodec.fencingToken(base) + 1;
				Instant lastSlot = LeaseCodec.lastSlot(base);
				Lease next = new LeaseBuilder(base).editMetadata()
					.addToAnnotations(FENCING_TOKEN_ANNOTATION, Long.toString(fencingToken))
					.addToAnnotations(LAST_SLOT_ANNOTATION,
							(lastSlot == null || slot.isAfter(lastSlot)) ? slot.toString() : lastSlot.toString())
					.endMetadata()
					.build();
				LeaseCodec.startRun(next.getMetadata().getAnnotations(), slot, attempt);
				return OptimisticUpdate.update(next, (written) -> {
					this.held.computeIfPresent(lease.leaseToken(),
							(token, held) -> new Held(written, held.acquiredAt()));
					return OptionalLong.of(fencingToken);
				}).ifGone((ex) -> {
					forget(lease);
					return OptionalLong.empty();
				});
			});
	}

	/**
	 * Find the jobs with pending work with one LIST of the Leases labelled
	 * {@value #MANAGED_BY_LABEL}{@code =cluster-singleton} in the namespace, whatever the
	 * number of jobs. A Lease is expired when this node has seen it unchanged for its
	 * duration; a failed run's retry time is compared with this node's clock.
	 */
	@Override
	public Set<String> findPending(Map<String, ClaimPolicy> policies) {
		Assert.notNull(policies, "'policies' must not be null");
		if (policies.isEmpty()) {
			return Set.of();
		}
		Map<String, Lease> leases = listLeases();
		Instant now = this.clock.instant();
		Set<String> pending = new LinkedHashSet<>();
		policies.forEach((jobName, policy) -> {
			String name = leaseName(jobName);
			Lease lease = leases.get(name);
			if (lease == null || !jobName.equals(LeaseCodec.annotation(lease, JOB_NAME_ANNOTATION))) {
				return;
			}
			if (LeaseCodec.holder(lease) != null && this.expiry.isLive(name, lease)) {
				return;
			}
			if (LeaseCodec.isPending(lease, policy, null, false, now)) {
				pending.add(jobName);
			}
		});
		return pending;
	}

	/**
	 * Return the run ledger kept in the {@value #RUNS_ANNOTATION} annotation of each
	 * job's Lease.
	 */
	@Override
	public RunLedger runLedger() {
		return this.runLedger;
	}

	/**
	 * List this backend's Leases of the namespace in one request, by name.
	 */
	Map<String, Lease> listLeases() {
		Map<String, Lease> leases = new LinkedHashMap<>();
		for (Lease lease : this.api.list(MANAGED_BY_LABEL, "cluster-singleton")) {
			leases.put(lease.getMetadata().getName(), lease);
		}
		return leases;
	}

	/**
	 * Return a Lease for a job that nobody holds, to create for its run ledger when the
	 * job never had a lease.
	 */
	Lease newLease(String jobName) {
		return new LeaseBuilder().withNewMetadata()
			.withName(leaseName(jobName))
			.withNamespace(this.namespace)
			.addToLabels(MANAGED_BY_LABEL, "cluster-singleton")
			.addToAnnotations(JOB_NAME_ANNOTATION, jobName)
			.endMetadata()
			.withNewSpec()
			.withLeaseTransitions(0)
			.endSpec()
			.build();
	}

	private Duration remaining(Lease lease, @Nullable Held known, Duration lockAtLeastFor) {
		if (lockAtLeastFor.isZero()) {
			return Duration.ZERO;
		}
		if (known != null) {
			return lockAtLeastFor.minusNanos(this.nanoTime.getAsLong() - known.acquiredAt());
		}
		// not acquired by this instance (restarted meanwhile?): use the time it wrote
		ZonedDateTime acquired = (lease.getSpec() != null) ? lease.getSpec().getAcquireTime() : null;
		return (acquired != null) ? lockAtLeastFor.minus(Duration.between(acquired.toInstant(), this.clock.instant()))
				: lockAtLeastFor;
	}

	private void logNotReleased(HeldLease lease) {
		if (logger.isDebugEnabled()) {
			logger.debug("cluster-singleton did not release the Kubernetes Lease of job '" + lease.jobName()
					+ "': it no longer carries this run's token");
		}
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		String name = leaseName(jobName);
		Lease lease = this.api.get(name);
		if (lease == null) {
			return Optional.empty();
		}
		checkJob(lease, jobName);
		String holder = LeaseCodec.holder(lease);
		LeaseSpec spec = lease.getSpec();
		Instant acquiredAt = (spec != null && spec.getAcquireTime() != null) ? spec.getAcquireTime().toInstant() : null;
		Instant renewedAt = (spec != null && spec.getRenewTime() != null) ? spec.getRenewTime().toInstant() : null;
		Integer duration = (spec != null) ? spec.getLeaseDurationSeconds() : null;
		Instant expiresAt = (renewedAt != null && duration != null) ? renewedAt.plusSeconds(duration) : null;
		return Optional.of(new LeaseInfo(jobName, holder, holder != null && this.expiry.isLive(name, lease), acquiredAt,
				expiresAt, LeaseCodec.fencingToken(lease), LeaseCodec.lastSlot(lease)));
	}

	@Override
	public boolean forceRelease(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		String name = leaseName(jobName);
		return OptimisticUpdate.<@Nullable Lease, Boolean>of(this.api, () -> this.api.get(name),
				Retry.immediately(CONFLICT_ATTEMPTS), () -> {
					throw new IllegalStateException("cluster-singleton could not force-release the Kubernetes Lease '"
							+ name + "': it changed under every one of " + CONFLICT_ATTEMPTS + " attempts");
				})
			.run((lease, fromServer) -> {
				if (lease == null) {
					return done(false);
				}
				checkJob(lease, jobName);
				if (LeaseCodec.holder(lease) == null) {
					return done(false);
				}
				boolean live = this.expiry.isLive(name, lease);
				Lease next = new LeaseBuilder(lease).editOrNewSpec()
					.withHolderIdentity(null)
					.withRenewTime(now(lease))
					.endSpec()
					.editMetadata()
					.removeFromAnnotations(LEASE_TOKEN_ANNOTATION)
					.endMetadata()
					.build();
				return OptimisticUpdate.update(next, (written) -> live).ifGone((ex) -> false);
			});
	}

	/**
	 * Read one Lease (which need not exist): the cheapest request that shows the API
	 * server answers and lets this application read Leases.
	 */
	@Override
	public void probe() {
		this.client.leases().inNamespace(this.namespace).withName(this.leasePrefix + "probe").get();
	}

	/**
	 * Stop the renewal threads. The Kubernetes client is not closed: it belongs to the
	 * application.
	 */
	@Override
	public void close() {
		ThreadPoolExecutor executor = this.renewals;
		if (executor != null) {
			executor.shutdown();
		}
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		Assert.notNull(observer, "'observer' must not be null");
		this.api.setStoreClockObserver(observer);
	}

	private void remember(Lease written, LeaseRequest request, long sent) {
		this.held.put(request.leaseToken(), new Held(written, sent));
	}

	private void forget(HeldLease lease) {
		this.held.remove(lease.leaseToken());
	}

	void checkJob(Lease lease, String jobName) {
		String owner = LeaseCodec.annotation(lease, JOB_NAME_ANNOTATION);
		if (owner == null) {
			throw new IllegalStateException("The Kubernetes Lease '" + lease.getMetadata().getName()
					+ "' in namespace '" + this.namespace + "' was not created by cluster-singleton (it has no "
					+ JOB_NAME_ANNOTATION + " annotation), so job '" + jobName + "' does not use it: it may be "
					+ "another component's leader election. Choose another cluster-singleton.kubernetes.lease-prefix");
		}
		if (!owner.equals(jobName)) {
			throw new IllegalStateException("The Kubernetes Lease '" + lease.getMetadata().getName()
					+ "' in namespace '" + this.namespace + "' belongs to job '" + owner + "', not to job '" + jobName
					+ "': both names map to one Lease name. Rename one of the jobs, or give the applications "
					+ "different cluster-singleton.kubernetes.lease-prefix values");
		}
	}

	/**
	 * Classify an acquisition that lost the race for the Lease to another node's write:
	 * {@code slot-done} when the winner claimed this slot or a later one, otherwise
	 * {@code held}. Costs one read, on a lost race only.
	 */
	private AcquireResult lostRace(String name, LeaseRequest request) {
		try {
			Lease winner = this.api.get(name);
			if (winner != null) {
				return AcquireResult.notAcquired(request, LeaseCodec.holder(winner), LeaseCodec.lastSlot(winner));
			}
		}
		catch (RuntimeException ex) {
			// the race is lost either way; the read only names the outcome
			if (logger.isDebugEnabled()) {
				logger.debug("Could not read the Kubernetes Lease '" + name + "' after losing the race for it", ex);
			}
		}
		return AcquireResult.held(null);
	}

	private ZonedDateTime now() {
		// MicroTime: the API server keeps microseconds
		return ZonedDateTime.ofInstant(this.clock.instant().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
	}

	/**
	 * The time to write as the {@code renewTime} of a new version of a Lease: now, but
	 * always after the Lease's current one, so that every write changes the record the
	 * other nodes watch, even on a clock that stands still or steps back.
	 */
	private ZonedDateTime now(Lease current) {
		ZonedDateTime now = now();
		ZonedDateTime renewed = (current.getSpec() != null) ? current.getSpec().getRenewTime() : null;
		return (renewed != null && !now.isAfter(renewed)) ? renewed.plus(1, ChronoUnit.MICROS) : now;
	}

	private ThreadPoolExecutor renewals() {
		ThreadPoolExecutor executor = this.renewals;
		if (executor == null) {
			synchronized (this) {
				executor = this.renewals;
				if (executor == null) {
					executor = new ThreadPoolExecutor(this.renewalConcurrency, this.renewalConcurrency, 60,
							TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
								Thread thread = new Thread(task,
										"cluster-singleton-kubernetes-renewal-" + threadCounter.incrementAndGet());
								thread.setDaemon(true);
								return thread;
							});
					executor.allowCoreThreadTimeOut(true);
					this.renewals = executor;
				}
			}
		}
		return executor;
	}

	@Override
	public String toString() {
		return "KubernetesLeaseBackend [namespace=" + this.namespace + ", leasePrefix=" + this.leasePrefix + ", server="
				+ this.client.getMasterUrl() + "]";
	}

	private record Held(Lease lease, long acquiredAt) {
	}

	/**
	 * A Lease read for a claim, and when (monotonic) the read was sent.
	 */
	private record ClaimRead(LeaseApi.ServerRead read, long sent) {
	}

	/**
	 * A recovery mark, and when (monotonic) this node first saw it.
	 */
	private record SeenMark(String mark, long firstSeen) {
	}

}
