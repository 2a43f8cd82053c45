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

package io.github.clustersingleton.lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells overdue jobs: the cluster-wide last successes, read from the run ledger in one
 * round trip per refresh and updated by the runs here, against each job's
 * {@code alert-after}.
 *
 * @author cluster-singleton contributors
 */
final class OverdueTracker {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final RunLedgerWriter ledger;

	private final Clock clock;

	private final Map<String, Instant> clusterLastSuccess = new ConcurrentHashMap<>();

	/**
	 * When the run ledger was last read successfully for the cluster-wide last successes
	 * (this node's clock), or {@code null} before the first read.
	 */
	private volatile @Nullable Instant lastSuccessesReadAt;

	private final Duration lastSuccessRefresh;

	private volatile Instant monitoringSince;

	private volatile @Nullable JobControlMonitor controls;

	OverdueTracker(RunLedgerWriter ledger, Clock clock, Duration leaseTtl) {
		this.ledger = ledger;
		this.clock = clock;
		this.monitoringSince = clock.instant();
		this.lastSuccessRefresh = Duration.ofMillis(Math.max(1000, Math.min(leaseTtl.toMillis(), 30_000)));
	}

	/**
	 * Start watching now: before the ledger knows a success of a job, a job is overdue
	 * once its alert-after passed since then.
	 */
	void startWatching() {
		this.monitoringSince = this.clock.instant();
	}

	void setControlMonitor(JobControlMonitor controls) {
		this.controls = controls;
	}

	/**
	 * Return how often the last successes are read from the run ledger.
	 */
	Duration refreshPeriod() {
		return this.lastSuccessRefresh;
	}

	/**
	 * Read the cluster-wide last successes of the jobs with an alert-after from the run
	 * ledger, in one round trip; every min(lease TTL, 30 s), at least every second.
	 */
	void refreshLastSuccesses(Collection<RegisteredJob> jobs) {
		try {
			List<String> names = jobs.stream()
				.filter((registered) -> registered.job().policies().alertAfter() != null)
				.map((registered) -> registered.job().name())
				.toList();
			if (!names.isEmpty()) {
				Instant readAt = this.clock.instant();
				this.ledger.ledger().lastSuccess(names).forEach(this::noteSuccess);
				this.lastSuccessesReadAt = readAt;
			}
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not read the last successful runs from the run ledger", ex);
		}
	}

	private void noteSuccess(String jobName, Instant endedAt) {
		this.clusterLastSuccess.merge(jobName, endedAt, (known, seen) -> seen.isAfter(known) ? seen : known);
	}

	void noteFinished(RunRecord finished) {
		Instant endedAt = finished.finishedAt();
		if (finished.state() == RunState.SUCCEEDED && endedAt != null) {
			noteSuccess(finished.jobName(), endedAt);
		}
	}

	/**
	 * Return when a job last ended a run successfully anywhere in the cluster, as the run
	 * ledger told at its last refresh, or later when this node has run it since.
	 * @param jobName the job name
	 * @return the end of the latest successful run, or empty when none is known
	 */
	Optional<Instant> clusterLastSuccess(String jobName) {
		return Optional.ofNullable(this.clusterLastSuccess.get(jobName));
	}

	/**
	 * Return whether no node has run a job successfully within its {@code alert-after},
	 * judged from the cluster-wide run ledger (and, while the ledger knows no success,
	 * from when this node started watching). Always {@code false} on a store without a
	 * run ledger.
	 * @param job the job
	 * @return {@code true} when the job is overdue; {@code false} also for a job without
	 * an alert-after
	 */
	boolean isOverdue(JobDefinition job) {
		Duration alertAfter = job.policies().alertAfter();
		if (alertAfter == null || !job.enabled()) {
			return false;
		}
		if (this.ledger.ledger() == io.github.clustersingleton.RunLedger.NONE) {
			// without a cluster-wide ledger no node can tell
			return false;
		}
		// the ledger's last success, the same for every node (or this node's own, when
		// later); before the first one, the time this node started watching
		JobControlMonitor controls = this.controls;
		if (controls != null && controls.isPaused(job.name())) {
			// a paused job is not expected to run
			return false;
		}
		Instant lastSuccess = this.clusterLastSuccess.get(job.name());
		Instant reference = (lastSuccess != null) ? lastSuccess : this.monitoringSince;
		Instant resumedAt = (controls != null) ? controls.resumedAt(job.name()) : null;
		if (resumedAt != null && resumedAt.isAfter(reference)) {
			// the time paused does not count
			reference = resumedAt;
		}
		// judged as of the last read of the ledger, so that a success elsewhere since
		// that
		// read does not make the job look overdue until the next one; a read older than
		// two
		// refresh periods (the store cannot be reached) no longer holds the answer back
		Instant now = this.clock.instant();
		Instant readAt = this.lastSuccessesReadAt;
		Instant asOf = (readAt != null
				&& Duration.between(readAt, now).compareTo(this.lastSuccessRefresh.multipliedBy(2)) <= 0) ? readAt
						: now;
		return Duration.between(reference, asOf).compareTo(alertAfter) > 0;
	}

}
