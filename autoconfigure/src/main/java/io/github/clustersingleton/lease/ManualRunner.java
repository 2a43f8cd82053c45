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

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.describeFailure;

/**
 * Runs a run-now request on this node: claims the job's lease without a slot, starts the
 * request in the store under that lease (so that one node, once, runs it), runs the job
 * through the guarded-run protocol with trigger {@link RunTrigger#MANUAL}, attempt 1 and
 * no slot, and records how the request ended.
 *
 * @author cluster-singleton contributors
 */
final class ManualRunner {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final EngineComponents engine;

	private final Map<String, Finish> undelivered = new ConcurrentHashMap<>();

	ManualRunner(EngineComponents engine) {
		this.engine = engine;
	}

	/**
	 * Run a pending request if this node gets the job's lease and starts the request.
	 * @param job the job
	 * @param invocation the job's body
	 * @param controls the store's controls
	 * @param request the pending request
	 * @return whether this node ran the request
	 */
	boolean run(JobDefinition job, ClusterSingletonExecutor.Invocation invocation, JobControls controls,
			ManualRun request) {
		if (this.engine.claimer.skippedLocally(job, null)) {
			return false;
		}
		ClusterSingletonExecutor.Settings settings = this.engine.settings;
		if (!stillPending(controls, job, request)) {
			// another node ran it, or is running it, since this node's view was read: a
			// claim now would only take the lease from the job's next slot
			return false;
		}
		// the operator asked for this run also while the job is paused: the one claim
		// that the store does not refuse for a pause
		LeaseRequest leaseRequest = LeaseRequest.overridingPause(job.name(), settings.owner(),
				EngineSupport.newLeaseToken(), settings.leaseTtl());
		// with the job's policy, as a direct call claims: a run still recorded as running
		// on an expired lease keeps its recovery grace, so that its late completion is
		// not
		// superseded by this claim and its slot run again
		ClaimPolicy policy = LeaseClaimer.claimPolicy(job, null, RunTrigger.MANUAL);
		if (policy.isActive()) {
			leaseRequest = leaseRequest.withPolicy(policy, null);
		}
		long requested = this.engine.ticker.nanoTime();
		LeaseClaimer.Claimed claimed = this.engine.claimer.claim(job, leaseRequest, requested, RunObserver.Run.NONE);
		if (claimed == null) {
			return false;
		}
		HeldLease lease = HeldLease.of(leaseRequest, claimed.result().fencingToken());
		boolean started;
		try {
			started = controls.startManualRun(job.name(), request.id(), settings.owner(), lease.fencingToken());
		}
		catch (RuntimeException ex) {
			// the start may have reached the store: only this call can have started it,
			// under this node's live lease and fencing token, so a request found running
			// with them is this node's to run, once
			started = startedHere(controls, job, request, lease.fencingToken());
			if (!started) {
				logger.warn("cluster-singleton could not start run-now request " + request.id() + " of job '"
						+ job.name() + "' in the " + this.engine.backend.id() + " lease store; the next look tries "
						+ "again: " + describeFailure(ex));
			}
		}
		if (!started) {
			this.engine.delivery.releaseQuietly(lease, job);
			return false;
		}
		logger.info("cluster-singleton runs job '" + job.name() + "' now, as " + request.requestedBy()
				+ " asked (request " + request.id() + ", fencing token " + lease.fencingToken() + ")");
		RunObserver.Run observed = this.engine.claimer.startObservation(job, null);
		RunPlan plan = new RunPlan(null, 1, RunTrigger.MANUAL, List.of());
		GuardedRun.Outcome outcome = this.engine.guardedRun.run(job, lease, claimed.validFrom(), invocation, plan,
				observed);
		if (outcome == null) {
			finish(controls, job, request, ManualRun.State.FAILED,
					"node " + settings.owner() + " shut down before the run started");
			return false;
		}
		GuardedRun.Outcome settled = this.engine.guardedRun.settle(job, lease, outcome, job.lockAtLeastFor(), true);
		EngineSupport.notify(() -> observed.stop(settled.outcome().tag(), settled.failure()));
		switch (settled.outcome()) {
			case SUCCESS -> finish(controls, job, request, ManualRun.State.SUCCEEDED, null);
			case LEASE_LOST -> finish(controls, job, request, ManualRun.State.FAILED, "lease lost");
			case FAILURE -> finish(controls, job, request, ManualRun.State.FAILED,
					(settled.failure() != null) ? describeFailure(settled.failure()) : "failed");
		}
		return true;
	}

	/**
	 * Whether a request is still pending, as the store says now.
	 */
	private boolean stillPending(JobControls controls, JobDefinition job, ManualRun request) {
		try {
			return controls.manualRun(job.name(), request.id())
				.map((current) -> current.state() == ManualRun.State.PENDING)
				.orElse(false);
		}
		catch (RuntimeException ex) {
			EngineSupport.debug(logger, () -> "cluster-singleton could not read run-now request " + request.id()
					+ " of job '" + job.name() + "'; the next look tries again", ex);
			return false;
		}
	}

	/**
	 * Whether a start whose answer was lost did start the request under this node's
	 * lease.
	 */
	private boolean startedHere(JobControls controls, JobDefinition job, ManualRun request, long fencingToken) {
		String owner = this.engine.settings.owner();
		try {
			return controls.manualRun(job.name(), request.id())
				.map((current) -> current.state() == ManualRun.State.RUNNING && owner.equals(current.owner())
						&& current.fencingToken() == fencingToken)
				.orElse(false);
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Record how a request ended; when the store cannot be reached, keep the end to try
	 * again at every later period, until the store takes it or the node stops.
	 */
	private void finish(JobControls controls, JobDefinition job, ManualRun request, ManualRun.State state,
			@Nullable String error) {
		Finish end = new Finish(job.name(), request.id(), state, error);
		if (!deliver(controls, end, true)) {
			this.undelivered.put(request.id(), end);
		}
	}

	/**
	 * Try again to record the ends the store could not take before.
	 * @param controls the store's controls
	 */
	void retryFinishes(JobControls controls) {
		for (Finish end : List.copyOf(this.undelivered.values())) {
			if (this.engine.state.isClosing()) {
				return;
			}
			if (deliver(controls, end, false)) {
				this.undelivered.remove(end.requestId(), end);
			}
		}
	}

	/**
	 * Whether this node still has to record the end of a request.
	 * @param requestId the request's id
	 * @return {@code true} while the end is not recorded yet
	 */
	boolean endPending(String requestId) {
		return this.undelivered.containsKey(requestId);
	}

	private boolean deliver(JobControls controls, Finish end, boolean first) {
		try {
			controls.finishManualRun(end.jobName(), end.requestId(), end.state(), end.error());
			return true;
		}
		catch (RuntimeException ex) {
			String message = "cluster-singleton could not record the end ("
					+ end.state().name().toLowerCase(Locale.ROOT) + ") of run-now request " + end.requestId()
					+ " of job '" + end.jobName() + "' in the " + this.engine.backend.id()
					+ " lease store; it is tried again: " + describeFailure(ex);
			if (first) {
				logger.warn(message);
			}
			else {
				EngineSupport.debug(logger, () -> message);
			}
			return false;
		}
	}

	/**
	 * The end of a run-now request that the store has still to record.
	 */
	private record Finish(String jobName, String requestId, ManualRun.State state, @Nullable String error) {

	}

}
