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
		LeaseRequest leaseRequest = new LeaseRequest(job.name(), settings.owner(), EngineSupport.newLeaseToken(),
				settings.leaseTtl(), null, settings.slotTolerance());
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
			logger.warn("cluster-singleton could not start run-now request " + request.id() + " of job '" + job.name()
					+ "' in the " + this.engine.backend.id() + " lease store; the next look tries again: "
					+ describeFailure(ex));
			started = false;
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

	private void finish(JobControls controls, JobDefinition job, ManualRun request, ManualRun.State state,
			@Nullable String error) {
		try {
			controls.finishManualRun(job.name(), request.id(), state, error);
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton could not record the end (" + state.name().toLowerCase(java.util.Locale.ROOT)
					+ ") of run-now request " + request.id() + " of job '" + job.name() + "' in the "
					+ this.engine.backend.id() + " lease store: " + describeFailure(ex));
		}
	}

}
