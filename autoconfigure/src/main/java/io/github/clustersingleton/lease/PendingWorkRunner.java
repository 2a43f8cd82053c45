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
import java.util.OptionalLong;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

import static io.github.clustersingleton.lease.EngineSupport.describeFailure;
import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * Takes over, under one claim, the work the store reported pending on a job: the runs
 * {@link RunPlanner} plans, one after the other, each a {@link GuardedRun} with a fencing
 * token of its own, renewing the lease between runs.
 *
 * @author cluster-singleton contributors
 */
final class PendingWorkRunner {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final LeaseBackend backend;

	private final ClusterSingletonExecutor.Settings settings;

	private final RunLedgerWriter ledger;

	private final GuardedRun guardedRun;

	private final CompletionDelivery delivery;

	private final Ticker ticker;

	PendingWorkRunner(LeaseBackend backend, ClusterSingletonExecutor.Settings settings, RunLedgerWriter ledger,
			GuardedRun guardedRun, CompletionDelivery delivery, Ticker ticker) {
		this.backend = backend;
		this.settings = settings;
		this.ledger = ledger;
		this.guardedRun = guardedRun;
		this.delivery = delivery;
		this.ticker = ticker;
	}

	/**
	 * Take over the work the store reported pending on a job whose lease this node just
	 * claimed: run again the slot whose run died or failed (when the policy recovers it),
	 * then the slots after it that no run served yet, by the misfire policy, then the
	 * claimed slot itself; each run with a fencing token of its own
	 * ({@link LeaseBackend#startRun}) and each through the whole advice chain of the
	 * job's method ({@link ClusterSingletonExecutor.Invocation#proceed()} is called once
	 * per run). A failure that the policy retries later ends the sequence; so does the
	 * loss of the lease.
	 */
	Sequence runPending(JobDefinition job, HeldLease claimed, AcquireResult result, RunTrigger trigger, long requested,
			ClusterSingletonExecutor.Invocation invocation) {
		SlotRun current = result.run();
		Assert.state(current != null, "No run reported");
		Instant lastSlot = (result.lastSlot() != null) ? result.lastSlot() : current.slot();
		if (current.state() == RunState.RUNNING) {
			// the run the store still calls running died with its node or lost its
			// lease, and so did every earlier run still recorded as running (a takeover
			// claim may itself have died before its first run): all of them have a
			// lower fencing token than the claim that took the lease over
			this.ledger.markLostBefore(job.name(), claimed.fencingToken());
		}
		List<RunPlan> plans = RunPlanner.plan(job, current, lastSlot, trigger);
		if (plans.isEmpty()) {
			this.delivery.release(claimed, job, Duration.ZERO, RunCompletion.none());
			return Sequence.NONE;
		}
		long validFrom = requested;
		boolean ran = false;
		// the run before this one, whose end only the next startRun records: when the
		// next run does not start, or its start's answer is lost, the store must still
		// learn how it ended, by its own lease and fencing tokens, or a policy that
		// recovers lost runs runs its slot again
		HeldLease previous = null;
		RunCompletion previousCompletion = RunCompletion.none();
		RunRecord previousFinished = null;
		for (int i = 0; i < plans.size(); i++) {
			RunPlan plan = plans.get(i);
			OptionalLong fence;
			boolean interrupted = Thread.interrupted();
			try {
				// between runs no watchdog renews the lease: a sequence of short runs
				// renews it itself, as the watchdog would, once a third of the TTL passed
				long ttl = this.settings.leaseTtl().toNanos();
				if (this.ticker.nanoTime() - validFrom > ttl / 3) {
					long sent = this.ticker.nanoTime();
					if (!this.backend.renew(List.of(claimed), this.settings.leaseTtl())
						.contains(claimed.leaseToken())) {
						logger.warn("cluster-singleton could not start the " + plan.describe() + " of job '"
								+ job.name() + "': this node no longer holds its lease");
						completePrevious(previous, job, previousCompletion, previousFinished);
						return new Sequence(ran, null);
					}
					validFrom = sent;
				}
				fence = this.backend.startRun(claimed, plan.slot(), plan.attempt());
			}
			catch (RuntimeException ex) {
				logger.warn("cluster-singleton could not start the " + plan.describe() + " of job '" + job.name()
						+ "': the " + this.backend.id() + " lease store could not be reached; the lease expires "
						+ "and the work is taken up again: " + describeFailure(ex),
						logger.isDebugEnabled() ? ex : null);
				// whether or not the start reached the store, the previous run's end is
				// sent: the store records it only while that run, by its fencing token,
				// is still the current one, so a start that did reach the store (and
				// already ended the previous run) is never recorded as done by it
				completePrevious(previous, job, previousCompletion, previousFinished);
				return new Sequence(ran, null);
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
			if (fence.isEmpty()) {
				logger.warn("cluster-singleton could not start the " + plan.describe() + " of job '" + job.name()
						+ "': this node no longer holds its lease");
				completePrevious(previous, job, previousCompletion, previousFinished);
				return new Sequence(ran, null);
			}
			HeldLease lease = new HeldLease(job.name(), claimed.owner(), claimed.leaseToken(), fence.getAsLong(),
					plan.slot());
			if (this.ticker.nanoTime() - (validFrom + this.settings.leaseTtl().toNanos()) >= 0) {
				// the store granted the run after this node's view of the lease ended (a
				// slow store, a pause): another node may already have taken it over
				logger.warn("cluster-singleton did not start the " + plan.describe() + " of job '" + job.name()
						+ "': the lease's local deadline passed while the store answered; whoever takes the lease "
						+ "over next carries on");
				return new Sequence(ran, null);
			}
			logger.info("cluster-singleton runs the " + plan.describe() + " of job '" + job.name() + "' (fencingToken="
					+ fence.getAsLong() + ")");
			GuardedRun.Outcome outcome;
			try {
				outcome = this.guardedRun.run(job, lease, validFrom, invocation, plan, RunObserver.Run.NONE);
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				return new Sequence(ran, null);
			}
			if (outcome == null) {
				return new Sequence(ran, null);
			}
			ran = true;
			validFrom = outcome.validFrom();
			boolean last = i == plans.size() - 1;
			ClaimPolicy policy = job.policies().claimPolicy();
			RunCompletion completion = GuardedRun.completion(job, plan.slot(), outcome);
			boolean retried = completion.state() == RunState.FAILED && policy.recovers(RunState.FAILED, plan.attempt());
			boolean ends = last || retried || outcome.outcome() == RunOutcome.LEASE_LOST;
			if (outcome.outcome() == RunOutcome.LEASE_LOST) {
				// no completion: the store keeps the run as running, and a policy that
				// recovers lost runs takes it up again once the lease expired; a lease
				// still live (the run reached its lockAtMostFor) is given back at once
				outcome = this.guardedRun.settle(job, lease, outcome, Duration.ZERO, true);
			}
			else if (ends) {
				// a failure the policy retries ends the sequence: the store keeps it
				// pending, and whoever retries it carries on with the slots after it
				outcome = this.guardedRun.settle(job, lease, outcome, last ? job.lockAtLeastFor() : Duration.ZERO,
						true);
			}
			else {
				outcome = this.guardedRun.settle(job, lease, outcome, Duration.ZERO, false);
			}
			if (outcome.failure() != null) {
				logger.error("cluster-singleton job '" + job.name() + "' failed in its " + plan.describe(),
						outcome.failure());
			}
			if (ends) {
				return new Sequence(true, outcome.failure());
			}
			previous = lease;
			previousCompletion = completion;
			previousFinished = outcome.record();
		}
		return new Sequence(ran, null);
	}

	/**
	 * Record how the previous run of a sequence ended when the next one could not start
	 * (the store refused it, was not reached, or its answer was lost): the completion by
	 * the previous run's lease token is recorded while no other claim took the job, and
	 * only while the store's current run still has the previous run's fencing token (a
	 * start that reached the store has already ended the previous run, and the run it
	 * started is left as it is); it is retried in the background like any other.
	 */
	private void completePrevious(@Nullable HeldLease previous, JobDefinition job, RunCompletion completion,
			@Nullable RunRecord finished) {
		if (previous != null && completion.state() != null) {
			CompletionDelivery.Delivery delivery = this.delivery.release(previous, job, Duration.ZERO, completion,
					finished);
			if (delivery == CompletionDelivery.Delivery.SUPERSEDED && finished != null
					&& finished.state() == RunState.SUCCEEDED) {
				// another claim took the job over before the store heard of the run's
				// end: the store no longer records it as the job's current run
				this.ledger.record(new RunRecord(finished.jobName(), finished.slot(), finished.attempt(),
						finished.fencingToken(), finished.owner(), finished.trigger(), RunState.LOST,
						finished.startedAt(), finished.finishedAt(), null));
			}
		}
	}

	/**
	 * What a sequence of runs did.
	 *
	 * @param ran whether any run started
	 * @param lastFailure the exception of the last run it made, if that run threw
	 */
	record Sequence(boolean ran, @Nullable Throwable lastFailure) {

		static final Sequence NONE = new Sequence(false, null);

	}

}
