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
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongSupplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.StoreClockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.util.Assert;

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

	/** Annotation holding the job's last fencing token. */
	public static final String FENCING_TOKEN_ANNOTATION = LeaseAnnotations.FENCING_TOKEN;

	/** Annotation holding the job's last claimed cron slot, an ISO-8601 instant. */
	public static final String LAST_SLOT_ANNOTATION = LeaseAnnotations.LAST_SLOT;

	/** Annotation holding the random token of the current acquisition. */
	public static final String LEASE_TOKEN_ANNOTATION = LeaseAnnotations.LEASE_TOKEN;

	/** Annotation holding the cron slot of the job's current run, an ISO-8601 instant. */
	public static final String RUN_SLOT_ANNOTATION = LeaseAnnotations.RUN_SLOT;

	/**
	 * Annotation holding the attempt of the job's current run (1 for a slot's first run).
	 */
	public static final String ATTEMPT_ANNOTATION = LeaseAnnotations.ATTEMPT;

	/** Annotation holding the state of the job's current run. */
	public static final String RUN_STATE_ANNOTATION = LeaseAnnotations.RUN_STATE;

	/** Annotation holding, for a failed run, from when another attempt may be claimed. */
	public static final String RETRY_AT_ANNOTATION = LeaseAnnotations.RETRY_AT;

	/** Annotation holding the job's run ledger: a JSON array of its newest runs. */
	public static final String RUNS_ANNOTATION = LeaseAnnotations.RUNS;

	/** Annotation with the lease token of the claim that took the job last. */
	public static final String RUN_TOKEN_ANNOTATION = LeaseAnnotations.RUN_TOKEN;

	/** Annotation with which the first recovery claim marks a run of an expired Lease. */
	public static final String RECOVER_MARK_ANNOTATION = LeaseAnnotations.RECOVER_MARK;

	/** The most runs the ledger keeps per job, whatever is asked. */
	public static final int MAX_LEDGER_RUNS = LeaseAnnotations.MAX_LEDGER_RUNS;

	/** Annotation holding the job name the Lease belongs to (its name is sanitized). */
	public static final String JOB_NAME_ANNOTATION = LeaseAnnotations.JOB_NAME;

	/** Label on every Lease this backend creates. */
	public static final String MANAGED_BY_LABEL = LeaseAnnotations.MANAGED_BY_LABEL;

	/**
	 * The default number of renewals in flight at once.
	 */
	public static final int DEFAULT_RENEWAL_CONCURRENCY = 8;

	private static final long MIN_REQUEST_TIMEOUT_MILLIS = 250;

	private static final long MAX_REQUEST_TIMEOUT_MILLIS = 10_000;

	private static final Log logger = LogFactory.getLog(KubernetesLeaseBackend.class);

	private final KubernetesClient client;

	private final String namespace;

	private final String leasePrefix;

	private final Clock clock;

	/**
	 * Per Lease name: the lease record (holder, token, renewal, duration) this node saw
	 * last, and since when.
	 */
	private final LeaseExpiryObserver expiry;

	private final LeaseApi api;

	private final JobLeases jobLeases;

	private final LeaseClaims claims;

	private final KubernetesJobControls controls;

	private final LeaseUpdates updates;

	private final ParallelRenewal renewal;

	private final KubernetesRunLedger runLedger;

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
		this.clock = clock;
		// how long a read through the HTTP client may take in all: the request timeout,
		// and as much again for the connection
		long requestTimeoutMillis = requestTimeout(leaseTtl).toMillis() * 2;
		this.expiry = new LeaseExpiryObserver(leaseTtl, nanoTime);
		this.api = new LeaseApi(this.client, namespace, requestTimeoutMillis, this.expiry);
		this.jobLeases = new JobLeases(this.api, namespace, leasePrefix);
		HeldLeases held = new HeldLeases();
		this.controls = new KubernetesJobControls(this.api, this.jobLeases, this.expiry, clock, leasePrefix, namespace);
		this.claims = new LeaseClaims(this.api, this.jobLeases, namespace, this.expiry, held, clock, nanoTime,
				this.controls::pausedAll);
		this.updates = new LeaseUpdates(this.api, this.jobLeases, this.expiry, held, clock, nanoTime,
				this.controls::pausedAll);
		this.renewal = new ParallelRenewal(renewalConcurrency);
		this.runLedger = new KubernetesRunLedger(this.jobLeases, this.api);
	}

	@Override
	public String id() {
		return "kubernetes";
	}

	/**
	 * Return the timeout of each request for a lease TTL: a sixth of it, between
	 * {@value #MIN_REQUEST_TIMEOUT_MILLIS} ms and {@value #MAX_REQUEST_TIMEOUT_MILLIS}
	 * ms. An acquisition is a read and a write (a job's first, five requests), and the
	 * client may add up to the timeout again for the response, so even a slow acquisition
	 * of a Lease that exists ends well inside one TTL, and a renewal inside one watchdog
	 * tick (a third of the TTL); the engine gives back a grant that came too late.
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
		return this.jobLeases.leaseName(jobName);
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
		this.jobLeases.validateJobName(jobName);
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		Assert.notNull(request, "'request' must not be null");
		return this.claims.tryAcquire(request);
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		Assert.notNull(leases, "'leases' must not be null");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		return this.renewal.renew(leases, (lease) -> this.updates.renew(lease, ttl));
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
		return this.updates.completeRun(lease, lockAtLeastFor, completion);
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
		return this.updates.startRun(lease, slot, attempt);
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
		Map<String, Lease> leases = this.jobLeases.list();
		Instant now = this.clock.instant();
		Set<String> pending = new LinkedHashSet<>();
		policies.forEach((jobName, policy) -> {
			String name = leaseName(jobName);
			Lease lease = leases.get(name);
			if (lease == null || !JobLeases.isOf(lease, jobName)) {
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
	/**
	 * Return the controls kept as annotations of each job's Lease; see
	 * {@link KubernetesJobControls} for the annotations and for what is atomic.
	 */
	@Override
	public Optional<JobControls> controls() {
		return Optional.of(this.controls);
	}

	@Override
	public RunLedger runLedger() {
		return this.runLedger;
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		String name = leaseName(jobName);
		Lease lease = this.api.get(name);
		if (lease == null) {
			return Optional.empty();
		}
		this.jobLeases.checkJob(lease, jobName);
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
		return this.updates.forceRelease(jobName);
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
		this.renewal.close();
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		Assert.notNull(observer, "'observer' must not be null");
		this.api.setStoreClockObserver(observer);
	}

	@Override
	public String toString() {
		return "KubernetesLeaseBackend [namespace=" + this.namespace + ", leasePrefix=" + this.leasePrefix + ", server="
				+ this.client.getMasterUrl() + "]";
	}

}
