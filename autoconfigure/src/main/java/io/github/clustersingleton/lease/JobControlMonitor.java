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

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.describeFailure;

/**
 * Follows the cluster-wide controls of the registered jobs: once per watchdog period (a
 * third of the lease TTL) it reads them from the store in one call and keeps the latest
 * view per job (for the endpoint, the health indicator and the overdue check), hands the
 * pending run-now requests of the jobs registered here to the background workers, applies
 * the cron overrides, and fails the run-now requests whose node stopped while running
 * them. A store error is logged (at most once a minute as a warning) and the next period
 * tries again.
 *
 * @author cluster-singleton contributors
 */
final class JobControlMonitor {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	/**
	 * Every how many periods the run-now requests still recorded as running are checked
	 * against their leases: about twice the lease TTL.
	 */
	private static final int STALE_CHECK_PERIODS = 6;

	/**
	 * How many of a job's latest ledger records are searched for the run of a run-now
	 * request whose end was not recorded.
	 */
	private static final int LEDGER_LOOKBACK = 50;

	private final EngineComponents engine;

	private final CronOverrides overrides;

	private final ManualRunner runner;

	private volatile Map<String, JobControl> view = Map.of();

	/**
	 * The run-now requests found running without a live lease of their fencing token at
	 * the last check, by request id: failed when the next check finds them so again.
	 */
	private final Map<String, Long> suspectedStale = new ConcurrentHashMap<>();

	private final Map<String, Instant> resumedAt = new ConcurrentHashMap<>();

	private volatile long lastWarning = Long.MIN_VALUE;

	private int polls;

	JobControlMonitor(EngineComponents engine, CronOverrides overrides) {
		this.engine = engine;
		this.overrides = overrides;
		this.runner = new ManualRunner(engine);
	}

	/**
	 * Return the store's controls.
	 * @return the controls, or empty when the store keeps none
	 */
	Optional<JobControls> controls() {
		return this.engine.backend.controls();
	}

	/**
	 * Return the latest view of a job's controls.
	 * @param jobName the job
	 * @return the controls as last read, or {@code null} before any read that covered the
	 * job
	 */
	@Nullable JobControl cached(String jobName) {
		return this.view.get(jobName);
	}

	/**
	 * Return the latest view of every registered job's controls.
	 * @return the controls as last read, by job
	 */
	Map<String, JobControl> cached() {
		return this.view;
	}

	/**
	 * Return whether the latest view shows a job paused.
	 * @param jobName the job
	 * @return {@code true} when paused as of the last read
	 */
	boolean isPaused(String jobName) {
		JobControl control = this.view.get(jobName);
		return control != null && control.paused();
	}

	/**
	 * Return when this node saw a job resumed, for the overdue check.
	 * @param jobName the job
	 * @return the time this node's view found the job no longer paused, or {@code null}
	 */
	@Nullable Instant resumedAt(String jobName) {
		return this.resumedAt.get(jobName);
	}

	/**
	 * Read the controls of the registered jobs and act on them: one period's work.
	 * @param jobs the registered jobs
	 * @param workers runs a job's run-now request in the background, one job at a time,
	 * or {@code null} when this node runs no requests (it is not the leader)
	 */
	void poll(Collection<RegisteredJob> jobs, @Nullable PendingWorkMonitor workers) {
		JobControls controls = controls().orElse(null);
		if (controls == null || jobs.isEmpty() || this.engine.state.isClosing()) {
			return;
		}
		Map<String, RegisteredJob> byName = new HashMap<>();
		jobs.forEach((registered) -> byName.put(registered.job().name(), registered));
		Map<String, JobControl> read;
		try {
			read = Map.copyOf(controls.read(List.copyOf(byName.keySet())));
		}
		catch (RuntimeException ex) {
			failed("read the cluster-wide controls of its jobs from", ex);
			return;
		}
		Map<String, JobControl> previous = this.view;
		this.view = read;
		Instant now = this.engine.clock.instant();
		read.forEach((name, control) -> {
			JobControl before = previous.get(name);
			if (before != null && before.paused() && !control.paused()) {
				this.resumedAt.put(name, now);
			}
		});
		for (RegisteredJob registered : byName.values()) {
			JobControl control = read.get(registered.job().name());
			if (registered.job().schedule() != null) {
				this.overrides.update(registered.job(), (control != null) ? control.cronOverride() : null);
			}
			if (workers != null && control != null && !control.pendingRuns().isEmpty() && registered.runsNow()) {
				ManualRun request = control.pendingRuns().get(0);
				workers.submit(registered, () -> runNow(registered, controls, request));
			}
		}
		this.runner.retryFinishes(controls);
		if (workers != null && ++this.polls % STALE_CHECK_PERIODS == 1) {
			failStaleRuns(controls, byName.keySet());
		}
	}

	private void runNow(RegisteredJob registered, JobControls controls, ManualRun request) {
		JobDefinition job = registered.job();
		// the end of the job's last run here, if it waits, reaches the store first
		this.engine.settleBehind.settled(job.name());
		if (this.engine.watchdog.heldJobs().contains(job.name()) || this.engine.delivery.endingHere(job.name())) {
			// a run of the job is under way here: the request waits for the next period
			return;
		}
		try {
			this.runner.run(job, registered.invocation(), controls, request);
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton could not run run-now request " + request.id() + " of job '" + job.name()
					+ "': " + describeFailure(ex), logger.isDebugEnabled() ? ex : null);
		}
	}

	/**
	 * Fail the run-now requests still recorded as running whose lease, with their fencing
	 * token, was not live at two checks in a row: their node stopped before the run
	 * ended.
	 */
	private void failStaleRuns(JobControls controls, Set<String> jobNames) {
		try {
			for (String jobName : jobNames) {
				List<ManualRun> running = controls.manualRuns(jobName, 20)
					.stream()
					.filter((run) -> run.state() == ManualRun.State.RUNNING)
					.toList();
				if (running.isEmpty()) {
					continue;
				}
				LeaseInfo lease = this.engine.backend.describe(jobName).orElse(null);
				for (ManualRun run : running) {
					boolean live = lease != null && lease.live() && lease.fencingToken() == run.fencingToken();
					if (live) {
						this.suspectedStale.remove(run.id());
					}
					else if (this.runner.endPending(run.id())) {
						// ran here: its end is still on its way to the store
						this.suspectedStale.remove(run.id());
					}
					else if (this.suspectedStale.remove(run.id()) != null) {
						finishStale(controls, jobName, run);
					}
					else {
						this.suspectedStale.put(run.id(), run.fencingToken());
					}
				}
			}
		}
		catch (RuntimeException ex) {
			failed("check the running run-now requests in", ex);
		}
	}

	/**
	 * Record the end of a request still recorded as running without a live lease: as its
	 * run's ledger record (by the request's fencing token) says, when the run ended
	 * there, else failed because its node stopped.
	 */
	private void finishStale(JobControls controls, String jobName, ManualRun run) {
		RunRecord record = this.engine.backend.runLedger()
			.history(jobName, LEDGER_LOOKBACK)
			.stream()
			.filter((candidate) -> candidate.fencingToken() == run.fencingToken()
					&& candidate.trigger() == RunTrigger.MANUAL && candidate.slot() == null)
			.findFirst()
			.orElse(null);
		if (record != null && record.state() == RunState.SUCCEEDED) {
			controls.finishManualRun(jobName, run.id(), ManualRun.State.SUCCEEDED, null);
			logger.info("cluster-singleton recorded run-now request " + run.id() + " of job '" + jobName
					+ "' as succeeded, as its run's ledger record says");
			return;
		}
		if (record != null && record.state() == RunState.FAILED) {
			controls.finishManualRun(jobName, run.id(), ManualRun.State.FAILED,
					(record.error() != null) ? record.error() : "failed");
			logger.warn("cluster-singleton recorded run-now request " + run.id() + " of job '" + jobName
					+ "' as failed, as its run's ledger record says");
			return;
		}
		String owner = (run.owner() != null) ? run.owner() : "unknown";
		String error = (record != null && record.state() == RunState.LOST) ? "lease lost"
				: "node " + owner + " stopped before the run ended";
		controls.finishManualRun(jobName, run.id(), ManualRun.State.FAILED, error);
		logger.warn(
				"cluster-singleton marked run-now request " + run.id() + " of job '" + jobName + "' failed: " + error);
	}

	/**
	 * Record in the run ledger that a slot of a job was skipped because the job is
	 * paused: the same record on every node that skipped it.
	 * @param job the job
	 * @param slot the slot
	 * @param lastSlot the job's last claimed slot as the refusal found it: when another
	 * node claimed the slot (or a later one) before the pause, nothing is recorded
	 */
	void recordPaused(JobDefinition job, Instant slot, @Nullable Instant lastSlot) {
		if (lastSlot != null && !lastSlot.isBefore(slot)) {
			return;
		}
		JobControl control = this.view.get(job.name());
		String error = "paused";
		if (control != null && control.paused() && control.pausedBy() != null) {
			error = "paused by " + control.pausedBy()
					+ ((control.pauseReason() != null) ? ": " + control.pauseReason() : "");
		}
		Instant now = this.engine.clock.instant();
		this.engine.ledger.record(new RunRecord(job.name(), slot, 0, RunState.pausedFencingToken(slot),
				this.engine.settings.owner(), RunTrigger.SCHEDULED, RunState.PAUSED, now, now, error));
	}

	private void failed(String what, RuntimeException ex) {
		long now = this.engine.ticker.nanoTime();
		boolean warn = this.lastWarning == Long.MIN_VALUE || now - this.lastWarning >= WARN_INTERVAL_NANOS;
		String message = "cluster-singleton could not " + what + " the " + this.engine.backend.id()
				+ " lease store; the next period tries again: " + describeFailure(ex);
		if (warn) {
			this.lastWarning = now;
			logger.warn(message + " (repeated at most once a minute)", logger.isDebugEnabled() ? ex : null);
		}
		else {
			EngineSupport.debug(logger, () -> message, ex);
		}
	}

}
