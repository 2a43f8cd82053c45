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

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import org.jspecify.annotations.Nullable;

/**
 * The guarded-run protocol of one trigger that asks for a job's lease: observe, claim the
 * lease (or take the one an instant's call claimed ahead), take up the pending work the
 * claim found or run the body once, settle its outcome with the release of the lease (on
 * the leader, behind the run), and hand the caller what the body threw.
 *
 * @author cluster-singleton contributors
 */
final class RunProtocol {

	private final EngineComponents engine;

	RunProtocol(EngineComponents engine) {
		this.engine = engine;
	}

	/**
	 * The guarded-run protocol: observe, claim the lease, take up the pending work the
	 * claim found or run the body once, settle its outcome with the release of the lease,
	 * and hand the caller what the body threw.
	 */
	boolean claimAndRun(JobDefinition job, LeaseRequest request, RunTrigger trigger,
			ClusterSingletonExecutor.Invocation invocation, @Nullable AheadClaim ahead) throws Throwable {
		Instant slot = request.slot();
		RunObserver.Run observed = this.engine.claimer.startObservation(job, slot);
		long requested = this.engine.ticker.nanoTime();
		LeaseClaimer.Claimed claimed;
		if (ahead != null) {
			claimed = this.engine.claimer.accept(job, request, ahead.result(), ahead.validFrom(),
					Duration.ofNanos(ahead.tookNanos()), observed);
		}
		else {
			InstantClaims.OwnClaim together = this.engine.instantClaims.claimInstant(job, request, trigger, requested);
			claimed = (together != null)
					? this.engine.claimer.accept(job, request, together.result(), requested,
							Duration.ofNanos(together.tookNanos()), observed)
					: this.engine.claimer.claim(job, request, requested, observed);
		}
		if (claimed == null) {
			return false;
		}
		AcquireResult result = claimed.result();
		HeldLease lease = HeldLease.of(request, result.fencingToken());
		SlotRun current = result.run();
		boolean pending = request.policy().isActive() && current != null && (request.recovery() || (slot != null
				&& !(current.slot().equals(slot) && current.attempt() == 1 && current.state() == RunState.RUNNING)));
		if (pending) {
			EngineSupport.notify(() -> observed.acquired(lease));
			PendingWorkRunner.Sequence sequence;
			try {
				sequence = this.engine.pendingWork.runPending(job, lease, result, trigger, claimed.validFrom(),
						invocation);
			}
			finally {
				EngineSupport.notify(() -> observed.stop("acquired", null));
			}
			// the exception of the last run the sequence made reaches the caller, as a
			// single run's does; those of the runs before it are logged and recorded
			Throwable failure = sequence.lastFailure();
			if (failure != null && (trigger == RunTrigger.SCHEDULED || trigger == RunTrigger.DIRECT)) {
				throw failure;
			}
			return sequence.ran();
		}
		RunPlan plan = new RunPlan(slot, 1, trigger, List.of());
		GuardedRun.Outcome outcome = this.engine.guardedRun.run(job, lease, claimed.validFrom(), invocation, plan,
				observed);
		if (outcome == null) {
			return false;
		}
		boolean kept = outcome.outcome() != ClusterSingletonListener.RunOutcome.LEASE_LOST && !outcome.run().isLost();
		Duration behind = kept
				? this.engine.settleBehind.behindBy(job, slot, trigger, request.policy(), this.engine.preferredNodes)
				: null;
		if (behind != null) {
			// the scheduler's thread goes on to its next job: the run's end is recorded
			// and told here, with its own outcome, and its lease, renewed until then, is
			// given back on the settling thread (on the leader at once; with routing once
			// the instant's claims are made)
			AheadClaim held = new AheadClaim(job, request, result, outcome.validFrom(), 0,
					this.engine.settings.leaseTtl().toNanos());
			GuardedRun.Outcome recorded = this.engine.guardedRun.settleBehind(job, lease, outcome, job.lockAtLeastFor(),
					(delivery) -> this.engine.settleBehind.settle(held, delivery, behind));
			EngineSupport.notify(() -> observed.stop(recorded.outcome().tag(), outcome.failure()));
			if (outcome.failure() != null) {
				throw outcome.failure();
			}
			return true;
		}
		GuardedRun.Outcome settled = this.engine.guardedRun.settle(job, lease, outcome, job.lockAtLeastFor(), true);
		EngineSupport.notify(() -> observed.stop(settled.outcome().tag(), settled.failure()));
		if (settled.failure() != null) {
			throw settled.failure();
		}
		return true;
	}

}
