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
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.kubernetes.OptimisticUpdate.Retry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

import static io.github.clustersingleton.kubernetes.LeaseAnnotations.ALL_PAUSED_AT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.CONTROLS;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.CRON_OVERRIDE;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.JOB_NAME;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.MANAGED_BY;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.MANAGED_BY_LABEL;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.MANUAL_RUNS;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.PAUSED_AT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.PAUSED_BY;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.PAUSE_REASON;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.done;

/**
 * {@link JobControls} of the {@link KubernetesLeaseBackend}, kept as annotations of each
 * job's Lease ({@value LeaseAnnotations#PAUSED_AT}, {@value LeaseAnnotations#PAUSED_BY},
 * {@value LeaseAnnotations#PAUSE_REASON}, {@value LeaseAnnotations#ALL_PAUSED_AT},
 * {@value LeaseAnnotations#CRON_OVERRIDE} and {@value LeaseAnnotations#MANUAL_RUNS}, a
 * JSON array), and the pause of every job on a Lease of its own, named
 * {@code <lease-prefix>controls.pause-all} (a name no job's Lease can have), with the
 * same three pause annotations. Every write is one read and one PUT with the
 * resourceVersion read ({@link OptimisticUpdate}); times are this node's clock, as for
 * the rest of the backend.
 * <p>
 * <strong>What is atomic.</strong> A claim decides on the job's Lease as read and PUTs it
 * with that resourceVersion; a pause PUTs the same Lease, so of a pause and a claim the
 * later write fails with {@code 409} and the claim reads again and sees the pause. A
 * pause of a job whose Lease does not exist creates it, which a racing claim's create
 * then loses. A pause of every job writes its Lease, then marks every job Lease of this
 * prefix ({@value LeaseAnnotations#ALL_PAUSED_AT}), listed twice. A job Lease is always
 * created unheld, with {@value LeaseAnnotations#PAUSE_ALL_UNCHECKED}; a claim of a Lease
 * that carries it reads the pause-of-every-job Lease after reading the job's, and takes
 * the annotation away in its PUT only when no pause was there. A pause of every job
 * written after that read lists the job's Lease, which existed before it, and marks it,
 * so the claim's PUT conflicts or the claim was made before the mark, as for any Lease.
 * The first claim of a job creates its Lease this way and then claims it with a PUT. A
 * pause of every job that completed is therefore atomic for every job, whether its Lease
 * existed or not. One that failed half-way (after writing its Lease, before marking every
 * job Lease) refuses the claims of the Leases it marked and of those still carrying
 * {@value LeaseAnnotations#PAUSE_ALL_UNCHECKED}, not of the others, until it is sent
 * again. A run under a held lease reads the pause of every job too when its Lease still
 * carries that annotation (the lease of a run-now claim, which overrides the pause).
 * <p>
 * A run under a held lease ({@link KubernetesLeaseBackend#startRun}) is refused like a
 * claim while the Lease is paused or marked, and, after a resume without catch-up, for a
 * slot before the resume.
 * <p>
 * A run-now request starts only from {@code pending}, in a PUT on a Lease read with this
 * caller as live holder and with its fencing token: of two starts, the later PUT
 * conflicts, reads again and finds the request running.
 *
 * @author cluster-singleton contributors
 */
final class KubernetesJobControls implements JobControls {

	/**
	 * How many ended run-now requests are kept per job.
	 */
	static final int KEEP_ENDED = 20;

	private static final int ATTEMPTS = OptimisticUpdate.CONFLICT_ATTEMPTS;

	/**
	 * How long a control's write is tried again while other writes of the Lease come in
	 * between.
	 */
	private static final Duration WRITE_BUDGET = Duration.ofSeconds(15);

	private final LeaseApi api;

	private final JobLeases jobLeases;

	private final LeaseExpiryObserver expiry;

	private final Clock clock;

	private final String pauseAllName;

	private final String namespace;

	KubernetesJobControls(LeaseApi api, JobLeases jobLeases, LeaseExpiryObserver expiry, Clock clock,
			String leasePrefix, String namespace) {
		this.api = api;
		this.jobLeases = jobLeases;
		this.expiry = expiry;
		this.clock = clock;
		this.pauseAllName = leasePrefix + "controls.pause-all";
		this.namespace = namespace;
	}

	/**
	 * Return the name of the Lease holding the pause of every job.
	 * @return the name
	 */
	String pauseAllName() {
		return this.pauseAllName;
	}

	/**
	 * Return whether every job is paused, by one read.
	 * @return whether every job is paused
	 */
	boolean pausedAll() {
		Lease lease = this.api.get(this.pauseAllName);
		return lease != null && LeaseCodec.annotation(lease, PAUSED_AT) != null;
	}

	/**
	 * Return whether a job's Lease is paused, by itself or by a pause of every job.
	 * @param lease the job's Lease
	 * @return whether its claims are refused
	 */
	static boolean isPaused(Lease lease) {
		return LeaseCodec.annotation(lease, PAUSED_AT) != null || LeaseCodec.annotation(lease, ALL_PAUSED_AT) != null;
	}

	/**
	 * Read with one LIST of the Leases of the namespace, which includes the Lease of the
	 * pause of every job.
	 */
	@Override
	public Map<String, JobControl> read(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		Map<String, Lease> leases = this.jobLeases.list();
		Lease all = leases.get(this.pauseAllName);
		Map<String, JobControl> controls = new LinkedHashMap<>();
		for (String jobName : new LinkedHashSet<>(jobNames)) {
			Assert.hasText(jobName, "'jobNames' must not contain an empty name");
			Lease lease = leases.get(this.jobLeases.leaseName(jobName));
			if (lease != null && !JobLeases.isOf(lease, jobName)) {
				lease = null;
			}
			controls.put(jobName, control(jobName, lease, all));
		}
		return controls;
	}

	private static JobControl control(String jobName, @Nullable Lease lease, @Nullable Lease all) {
		String cron = (lease != null) ? LeaseCodec.annotation(lease, CRON_OVERRIDE) : null;
		List<ManualRun> pending = new ArrayList<>();
		if (lease != null) {
			for (ManualRun run : ManualRuns.read(lease, jobName)) {
				if (run.state() == ManualRun.State.PENDING) {
					pending.add(run);
				}
			}
		}
		Lease pausedBy = null;
		if (lease != null && LeaseCodec.annotation(lease, PAUSED_AT) != null) {
			pausedBy = lease;
		}
		else if (all != null && LeaseCodec.annotation(all, PAUSED_AT) != null) {
			pausedBy = all;
		}
		if (pausedBy != null) {
			return new JobControl(jobName, true, LeaseCodec.annotation(pausedBy, PAUSED_BY),
					ManualRuns.instant(LeaseCodec.annotation(pausedBy, PAUSED_AT)),
					LeaseCodec.annotation(pausedBy, PAUSE_REASON), cron, pending);
		}
		if (lease != null && LeaseCodec.annotation(lease, ALL_PAUSED_AT) != null) {
			return new JobControl(jobName, true, null, ManualRuns.instant(LeaseCodec.annotation(lease, ALL_PAUSED_AT)),
					null, cron, pending);
		}
		return new JobControl(jobName, false, null, null, null, cron, pending);
	}

	/**
	 * Pause a job on its Lease (created when it does not exist); or every job: the
	 * pause-of-every-job Lease first, then a mark on every job Lease of this prefix,
	 * listed twice. A pause of every job that fails half-way is safe to repeat.
	 */
	@Override
	public void pause(@Nullable String jobName, String pausedBy, @Nullable String reason) {
		Assert.hasText(pausedBy, "'pausedBy' must not be empty");
		String at = this.clock.instant().toString();
		Function<Lease, @Nullable Lease> pause = (lease) -> new LeaseBuilder(lease).editMetadata()
			.addToAnnotations(PAUSED_AT, at)
			.addToAnnotations(PAUSED_BY, pausedBy)
			.removeFromAnnotations(PAUSE_REASON)
			.addToAnnotations((reason != null) ? Map.of(PAUSE_REASON, reason) : Map.of())
			.endMetadata()
			.build();
		if (jobName != null) {
			Assert.hasText(jobName, "'jobName' must not be empty");
			updateJob(jobName, true, pause);
			return;
		}
		update(this.pauseAllName, this::newPauseAllLease, pause);
		Set<String> marked = new HashSet<>();
		for (int pass = 0; pass < 2; pass++) {
			for (Map.Entry<String, String> job : jobLeaseNames().entrySet()) {
				if (marked.add(job.getKey())) {
					updateJob(job.getValue(), false,
							(lease) -> new LeaseBuilder(lease).editMetadata()
								.addToAnnotations(ALL_PAUSED_AT, at)
								.endMetadata()
								.build());
				}
			}
		}
	}

	/**
	 * Resume a job on its Lease; or every job: every job Lease of this prefix first, then
	 * the pause-of-every-job Lease. A resume of every job that fails half-way is safe to
	 * repeat.
	 */
	@Override
	public void resume(@Nullable String jobName, boolean catchUp) {
		if (jobName != null) {
			Assert.hasText(jobName, "'jobName' must not be empty");
			updateJob(jobName, false, (lease) -> resumed(lease, catchUp, false));
			return;
		}
		for (String job : jobLeaseNames().values()) {
			updateJob(job, false, (lease) -> resumed(lease, catchUp, true));
		}
		update(this.pauseAllName, null, (lease) -> {
			if (LeaseCodec.annotation(lease, PAUSED_AT) == null) {
				return null;
			}
			return new LeaseBuilder(lease).editMetadata()
				.removeFromAnnotations(PAUSED_AT)
				.removeFromAnnotations(PAUSED_BY)
				.removeFromAnnotations(PAUSE_REASON)
				.endMetadata()
				.build();
		});
	}

	/**
	 * The Lease resumed, or {@code null} when it is not paused. Skipping (no catch-up),
	 * once the job is no longer paused at all, moves the last slot to now and leaves
	 * nothing to recover: without a live holder the current run is removed; with one, its
	 * slot moves to now when it was before, so that the holder starts no run of a slot
	 * before the resume.
	 */
	private @Nullable Lease resumed(Lease lease, boolean catchUp, boolean all) {
		boolean own = LeaseCodec.annotation(lease, PAUSED_AT) != null;
		boolean marked = LeaseCodec.annotation(lease, ALL_PAUSED_AT) != null;
		if (!own && !(all && marked)) {
			return null;
		}
		Lease next = new LeaseBuilder(lease).editMetadata()
			.removeFromAnnotations(PAUSED_AT)
			.removeFromAnnotations(PAUSED_BY)
			.removeFromAnnotations(PAUSE_REASON)
			.endMetadata()
			.build();
		Map<String, String> annotations = next.getMetadata().getAnnotations();
		if (all) {
			annotations.remove(ALL_PAUSED_AT);
		}
		boolean stillPaused = !all && marked;
		if (!catchUp && !stillPaused) {
			Instant now = this.clock.instant();
			Instant last = LeaseCodec.lastSlot(lease);
			boolean live = LeaseCodec.holder(lease) != null && this.expiry.isLive(lease.getMetadata().getName(), lease);
			if (last == null || last.isBefore(now)) {
				annotations.put(LeaseAnnotations.LAST_SLOT, now.toString());
			}
			SlotRun current = LeaseCodec.run(lease);
			if (live && current != null && current.slot().isBefore(now)) {
				// the holder's sequence starts no run of a slot before its current run's
				// (startRun), so none of a slot that passed while paused
				annotations.put(LeaseAnnotations.RUN_SLOT, now.toString());
			}
			if (!live) {
				annotations.remove(LeaseAnnotations.RUN_SLOT);
				annotations.remove(LeaseAnnotations.ATTEMPT);
				annotations.remove(LeaseAnnotations.RUN_STATE);
				annotations.remove(LeaseAnnotations.RETRY_AT);
				annotations.remove(LeaseAnnotations.RECOVER_MARK);
			}
		}
		return next;
	}

	@Override
	public void reschedule(String jobName, @Nullable String cron) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		updateJob(jobName, cron != null, (lease) -> {
			if (java.util.Objects.equals(cron, LeaseCodec.annotation(lease, CRON_OVERRIDE))) {
				return null;
			}
			Lease next = new LeaseBuilder(lease).build();
			if (cron != null) {
				next.getMetadata().getAnnotations().put(CRON_OVERRIDE, cron);
			}
			else {
				next.getMetadata().getAnnotations().remove(CRON_OVERRIDE);
			}
			return next;
		});
	}

	@Override
	public ManualRun requestRun(String jobName, String requestedBy) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestedBy, "'requestedBy' must not be empty");
		ManualRun run = new ManualRun(UUID.randomUUID().toString(), jobName, requestedBy, this.clock.instant(),
				ManualRun.State.PENDING, null, 0, null, null);
		updateJob(jobName, true, (lease) -> {
			List<ManualRun> runs = new ArrayList<>(ManualRuns.read(lease, jobName));
			runs.add(run);
			return ManualRuns.written(lease, runs);
		});
		return run;
	}

	/**
	 * Start the request on a Lease read with {@code owner} as its live holder and
	 * {@code fencingToken} as its fencing token, with one PUT of that read.
	 */
	@Override
	public boolean startManualRun(String jobName, String requestId, String owner, long fencingToken) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		Assert.hasText(owner, "'owner' must not be empty");
		String name = this.jobLeases.leaseName(jobName);
		return OptimisticUpdate
			.<@Nullable Lease, Boolean>of(this.api, () -> this.api.get(name), Retry.pausing(ATTEMPTS), () -> false)
			.run((lease, fromServer) -> {
				if (lease == null || !JobLeases.isOf(lease, jobName) || !owner.equals(LeaseCodec.holder(lease))
						|| LeaseCodec.annotation(lease, LeaseAnnotations.LEASE_TOKEN) == null
						|| LeaseCodec.fencingToken(lease) != fencingToken || !this.expiry.isLive(name, lease)) {
					return done(false);
				}
				List<ManualRun> runs = new ArrayList<>(ManualRuns.read(lease, jobName));
				int index = ManualRuns.indexOf(runs, requestId);
				if (index < 0 || runs.get(index).state() != ManualRun.State.PENDING) {
					return done(false);
				}
				ManualRun run = runs.get(index);
				runs.set(index, new ManualRun(run.id(), jobName, run.requestedBy(), run.requestedAt(),
						ManualRun.State.RUNNING, owner, fencingToken, null, null));
				return OptimisticUpdate.update(ManualRuns.written(lease, runs), (written) -> true);
			});
	}

	@Override
	public void finishManualRun(String jobName, String requestId, ManualRun.State state, @Nullable String error) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		Assert.isTrue(state != null && state.isEnded(), "'state' must be SUCCEEDED or FAILED");
		Instant now = this.clock.instant();
		updateJob(jobName, false, (lease) -> {
			List<ManualRun> runs = new ArrayList<>(ManualRuns.read(lease, jobName));
			int index = ManualRuns.indexOf(runs, requestId);
			if (index < 0 || runs.get(index).state() != ManualRun.State.RUNNING) {
				return null;
			}
			ManualRun run = runs.get(index);
			runs.set(index, new ManualRun(run.id(), jobName, run.requestedBy(), run.requestedAt(), state, run.owner(),
					run.fencingToken(), now, error));
			return ManualRuns.written(lease, ManualRuns.trimmed(runs, KEEP_ENDED));
		});
	}

	@Override
	public Optional<ManualRun> manualRun(String jobName, String requestId) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		Lease lease = this.api.get(this.jobLeases.leaseName(jobName));
		if (lease == null || !JobLeases.isOf(lease, jobName)) {
			return Optional.empty();
		}
		return ManualRuns.read(lease, jobName).stream().filter((run) -> run.id().equals(requestId)).findFirst();
	}

	@Override
	public List<ManualRun> manualRuns(String jobName, int limit) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Lease lease = this.api.get(this.jobLeases.leaseName(jobName));
		if (limit <= 0 || lease == null || !JobLeases.isOf(lease, jobName)) {
			return List.of();
		}
		List<ManualRun> runs = new ArrayList<>(ManualRuns.read(lease, jobName));
		java.util.Collections.reverse(runs);
		return List.copyOf(runs.subList(0, Math.min(limit, runs.size())));
	}

	/**
	 * The job Leases of this prefix, by Lease name, with their job names.
	 */
	private Map<String, String> jobLeaseNames() {
		Map<String, String> jobs = new LinkedHashMap<>();
		this.jobLeases.list().forEach((name, lease) -> {
			String jobName = LeaseCodec.annotation(lease, JOB_NAME);
			if (jobName != null && name.equals(this.jobLeases.leaseName(jobName))) {
				jobs.put(name, jobName);
			}
		});
		return jobs;
	}

	private void updateJob(String jobName, boolean create, Function<Lease, @Nullable Lease> change) {
		update(this.jobLeases.leaseName(jobName), create ? () -> this.jobLeases.newLease(jobName) : null, (lease) -> {
			this.jobLeases.checkJob(lease, jobName);
			return change.apply(lease);
		});
	}

	/**
	 * Read a Lease, change it and PUT it with the resourceVersion read (or create it when
	 * it does not exist and {@code create} is given); again on a conflict.
	 * @param name the Lease
	 * @param create the new Lease, or {@code null} to leave a missing Lease missing
	 * @param change the changed Lease, or {@code null} for no change
	 */
	private void update(String name, java.util.function.@Nullable Supplier<Lease> create,
			Function<Lease, @Nullable Lease> change) {
		// an operator's write must win against a busy job's claims and renewals: tried
		// again for as long as WRITE_BUDGET, each time on the Lease as read again
		OptimisticUpdate.<@Nullable Lease, @Nullable Void>of(this.api, () -> this.api.get(name),
				Retry.within(WRITE_BUDGET.toNanos(), System::nanoTime), () -> {
					throw new IllegalStateException("cluster-singleton could not write the controls on the Kubernetes "
							+ "Lease '" + name + "': it changed under every attempt for " + WRITE_BUDGET);
				})
			.run((lease, fromServer) -> {
				if (lease == null) {
					if (create == null) {
						return done(null);
					}
					Lease created = change.apply(create.get());
					if (created == null) {
						return done(null);
					}
					return OptimisticUpdate.<@Nullable Void>create(created, (written) -> null).ifGone((ex) -> {
						throw ex;
					});
				}
				Lease next = change.apply(lease);
				if (next == null) {
					return done(null);
				}
				return OptimisticUpdate.update(next, (written) -> null);
			});
	}

	private Lease newPauseAllLease() {
		return new LeaseBuilder().withNewMetadata()
			.withName(this.pauseAllName)
			.withNamespace(this.namespace)
			.addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
			.addToAnnotations(CONTROLS, "pause-all")
			.endMetadata()
			.withNewSpec()
			.endSpec()
			.build();
	}

	@Override
	public String toString() {
		return "KubernetesJobControls [pauseAll=" + this.pauseAllName + "]";
	}

}
