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
import java.util.function.Consumer;
import java.util.concurrent.ScheduledFuture;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * One run of a job's body under a lease this node holds: watched by the watchdog, bound
 * to the thread as the job's context and recorded in the run ledger; then settled by the
 * outcome rule ({@link #outcomeOf}) and the delivery of its completion ({@link #settle}).
 *
 * @author cluster-singleton contributors
 */
final class GuardedRun {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final ClusterSingletonExecutor.Settings settings;

	private final Clock clock;

	private final ClusterSingletonListener listener;

	private final LeaseWatchdog watchdog;

	private final RunLedgerWriter ledger;

	private final EngineState state;

	private final CompletionDelivery delivery;

	private final OverdueTracker overdue;

	private final Ticker ticker;

	GuardedRun(ClusterSingletonExecutor.Settings settings, Clock clock, ClusterSingletonListener listener,
			LeaseWatchdog watchdog, RunLedgerWriter ledger, EngineState state, CompletionDelivery delivery,
			OverdueTracker overdue, Ticker ticker) {
		this.settings = settings;
		this.clock = clock;
		this.listener = listener;
		this.watchdog = watchdog;
		this.ledger = ledger;
		this.state = state;
		this.delivery = delivery;
		this.overdue = overdue;
		this.ticker = ticker;
	}

	/**
	 * Run the job's body once under a lease this node holds, watched by the watchdog, and
	 * record it; the caller releases the lease.
	 * @return how the run went, or {@code null} when it did not start (shutdown)
	 */
	@Nullable Outcome run(JobDefinition job, HeldLease lease, long validFrom, ClusterSingletonExecutor.Invocation invocation,
			RunPlan plan, RunObserver.Run observed) {
		ActiveRun run = new ActiveRun(job, lease, Thread.currentThread(), validFrom, this.settings.leaseTtl().toNanos(),
				plan.attempt(), plan.trigger(), plan.missedSlots(), this.ticker);
		this.state.running().add(run);
		ScheduledFuture<?> capTimer = this.watchdog.register(run);
		if (capTimer == null) {
			// the watchdog closed between the shutdown check and here: nothing would
			// renew the lease, so give it back and skip the run
			if (run.finish()) {
				Thread.interrupted();
			}
			this.state.running().remove(run);
			this.delivery.releaseQuietly(lease, job);
			EngineSupport.debug(logger,
					() -> "cluster-singleton skipped job '" + job.name() + "': the application is shutting down");
			EngineSupport.notify(() -> observed.stop("acquired", null));
			return null;
		}
		EngineSupport.notify(() -> observed.acquired(lease));
		ClusterSingletonContext previous = run.bindToThread();
		Instant startedAt = this.clock.instant();
		RunRecord record = new RunRecord(job.name(), lease.slot(), plan.attempt(), lease.fencingToken(), lease.owner(),
				plan.trigger(), RunState.RUNNING, startedAt, null, null);
		this.ledger.record(record);
		long started = this.ticker.nanoTime();
		EngineSupport.debug(logger,
				() -> "cluster-singleton running job '" + job.name() + "' (fencingToken=" + lease.fencingToken()
						+ ", slot=" + lease.slot() + ", attempt=" + plan.attempt() + ", trigger=" + plan.trigger()
						+ ")");
		Throwable failure = null;
		boolean fatal = true;
		try {
			invocation.proceed();
			fatal = false;
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			failure = ex;
			fatal = false;
		}
		finally {
			boolean interrupted = run.finish();
			this.watchdog.unregister(run, capTimer);
			ActiveRun.restoreOnThread(previous);
			if (interrupted) {
				// our interrupt must not leak into whatever this thread runs next
				Thread.interrupted();
			}
			if (fatal) {
				// a VirtualMachineError leaves without settling: the store keeps the run
				// as running, and recovery must not wait for this node
				this.state.running().remove(run);
			}
			// otherwise the run stays in `running` until settle() has tried once to
			// record its end: meanwhile this node must not take the run over itself
		}
		Duration duration = Duration.ofNanos(this.ticker.nanoTime() - started);
		noteLossAtFinish(run);
		RunOutcome outcome = outcomeOf(run, failure);
		if (outcome == RunOutcome.LEASE_LOST && failure != null) {
			logger.warn("cluster-singleton job '" + job.name() + "' ended with " + failure.getClass().getSimpleName()
					+ " after it lost its lease (fencingToken=" + lease.fencingToken() + ", slot=" + lease.slot()
					+ "): recorded as lost, not as failed: " + run.lostBecause());
		}
		return new Outcome(outcome, failure, run.deadlineNanos() - this.settings.leaseTtl().toNanos(), record,
				startedAt, duration, run);
	}

	/**
	 * Decide how a run ended, by the lease rather than by which thread noticed first: a
	 * run that ends with a {@link io.github.clustersingleton.LeaseLostException} (the
	 * job's own {@code checkLease()}), or with any exception after its lease stopped
	 * being valid (an interrupt of the watchdog's included), lost its lease; any other
	 * exception is a failure. A run that returned normally is a success here; for a run
	 * of a slot the store then judges it: it is recorded as succeeded while the store
	 * still records it as the job's current run, and as lost when another claim took the
	 * job over ({@link #settle}). A run without a slot, which the store keeps no record
	 * of, lost its lease when it returned after the lease stopped being valid.
	 */
	static RunOutcome outcomeOf(ActiveRun run, @Nullable Throwable failure) {
		boolean lost = run.isLost();
		if (failure != null) {
			return (lost || isLeaseLoss(failure, run)) ? RunOutcome.LEASE_LOST : RunOutcome.FAILURE;
		}
		return (lost && run.lease().slot() == null) ? RunOutcome.LEASE_LOST : RunOutcome.SUCCESS;
	}

	/**
	 * Whether the exception is this run's own {@code LeaseLostException}, also when an
	 * advisor wrapped it; that of a nested guarded run (another job, another fencing
	 * token) is a failure like any other.
	 */
	private static boolean isLeaseLoss(Throwable failure, ActiveRun run) {
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < 16; depth++) {
			if (cause instanceof io.github.clustersingleton.LeaseLostException lost
					&& lost.getJobName().equals(run.jobName()) && lost.getFencingToken() == run.fencingToken()) {
				return true;
			}
			cause = cause.getCause();
		}
		return false;
	}

	/**
	 * End a run that {@link #run} made: deliver its completion with the release of its
	 * lease when {@code deliver} is true (the last run of a claim), then write its end to
	 * the run ledger and tell the listener. A run of a slot that returned normally and
	 * whose completion the store refused, because another claim took the job over, is
	 * recorded as lost.
	 * @return the outcome as finally recorded
	 */
	Outcome settle(JobDefinition job, HeldLease lease, Outcome outcome, Duration lockAtLeastFor, boolean deliver) {
		try {
			return deliverAndRecord(job, lease, outcome, lockAtLeastFor, deliver);
		}
		finally {
			this.state.running().remove(outcome.run());
		}
	}

	private Outcome deliverAndRecord(JobDefinition job, HeldLease lease, Outcome outcome, Duration lockAtLeastFor,
			boolean deliver) {
		RunCompletion completion = completion(job, lease.slot(), outcome);
		RunRecord finished = ended(outcome);
		RunOutcome result = outcome.outcome();
		if (deliver) {
			CompletionDelivery.Delivery delivery = this.delivery.release(lease, job, lockAtLeastFor, completion,
					finished);
			if (delivery == CompletionDelivery.Delivery.SUPERSEDED && result == RunOutcome.SUCCESS) {
				result = RunOutcome.LEASE_LOST;
				finished = outcome.record().finish(RunState.LOST, finished.finishedAt(), null);
			}
		}
		return record(job, lease, outcome, result, finished);
	}

	/**
	 * The run's ledger record as it ended now, with the run's own outcome.
	 */
	private RunRecord ended(Outcome outcome) {
		String error = (outcome.failure() != null) ? outcome.failure().toString() : null;
		return outcome.record().finish(stateOf(outcome.outcome()), this.clock.instant(), error);
	}

	/**
	 * Write a run's end to the run ledger and tell the listener.
	 */
	private Outcome record(JobDefinition job, HeldLease lease, Outcome outcome, RunOutcome told, RunRecord finished) {
		this.ledger.record(finished);
		this.overdue.noteFinished(finished);
		return tell(job, lease, outcome, told, finished);
	}

	/**
	 * Tell the listener of a run's end.
	 */
	private Outcome tell(JobDefinition job, HeldLease lease, Outcome outcome, RunOutcome told, RunRecord finished) {
		EngineSupport.debug(logger,
				() -> "cluster-singleton finished job '" + job.name() + "' (fencingToken=" + lease.fencingToken()
						+ ", slot=" + lease.slot() + ", outcome=" + told.tag() + ", duration=" + outcome.duration()
						+ ")");
		EngineSupport.notify(() -> this.listener.runFinished(job, lease, told, outcome.startedAt(), outcome.duration(),
				outcome.failure()));
		return new Outcome(told, outcome.failure(), outcome.validFrom(), finished, outcome.startedAt(),
				outcome.duration(), outcome.run());
	}

	/**
	 * End a run that {@link #run} made, whose lease is given back on another thread
	 * ({@link SettleBehind}): hand the delivery of its completion with the release of its
	 * lease to {@code handOver}, then write its end to the run ledger and tell the
	 * listener, on this thread, with the run's own outcome. A completion the store then
	 * refuses, because another claim took the job over, is written to the run ledger
	 * again, as lost. The run counts as running here until the delivery is done.
	 * @return the outcome as recorded
	 */
	Outcome settleBehind(JobDefinition job, HeldLease lease, Outcome outcome, Duration lockAtLeastFor,
			Consumer<Runnable> handOver) {
		RunCompletion completion = completion(job, lease.slot(), outcome);
		RunRecord finished = ended(outcome);
		Runnable delivery = () -> {
			try {
				CompletionDelivery.Delivery delivered = this.delivery.release(lease, job, lockAtLeastFor, completion,
						finished);
				if (delivered == CompletionDelivery.Delivery.SUPERSEDED && outcome.outcome() == RunOutcome.SUCCESS) {
					logger.warn("cluster-singleton job '" + job.name() + "' (fencingToken=" + lease.fencingToken()
							+ ", slot=" + lease.slot() + ") returned, but another claim took the job over before its"
							+ " end reached the store: recorded as lost");
					this.ledger.record(outcome.record().finish(RunState.LOST, finished.finishedAt(), null));
				}
			}
			finally {
				this.state.running().remove(outcome.run());
			}
		};
		// written before the store can answer, so that a run the store refuses is
		// written again as lost after it
		this.ledger.record(finished);
		this.overdue.noteFinished(finished);
		handOver.accept(delivery);
		return tell(job, lease, outcome, outcome.outcome(), finished);
	}

	/**
	 * Tell the listener of a lease loss that the end of the run noticed before the
	 * watchdog's thread did, as the watchdog would have.
	 */
	void noteLossAtFinish(ActiveRun run) {
		if (run.lostAtFinish()) {
			String reason = run.lostBecause();
			logger.error(
					"cluster-singleton job '" + run.jobName() + "' lost its lease (fencingToken=" + run.fencingToken()
							+ ", slot=" + run.lease().slot() + "): " + reason + "; noticed as the run ended");
			EngineSupport.notify(
					() -> this.listener.leaseLost(run.job(), run.lease(), (reason != null) ? reason : "lease lost"));
		}
	}

	/**
	 * How a run of a slot ended, for the store: every slot run records it, whatever the
	 * job's policies (a policy switched on later must not take an old, finished run for a
	 * dead one); runs without a slot record nothing.
	 */
	static RunCompletion completion(JobDefinition job, @Nullable Instant slot, Outcome outcome) {
		if (slot == null) {
			return RunCompletion.none();
		}
		return switch (outcome.outcome()) {
			case SUCCESS -> RunCompletion.succeeded();
			case FAILURE -> RunCompletion.failed(job.policies().retryDelay());
			case LEASE_LOST -> RunCompletion.none();
		};
	}

	private static RunState stateOf(RunOutcome outcome) {
		return switch (outcome) {
			case SUCCESS -> RunState.SUCCEEDED;
			case FAILURE -> RunState.FAILED;
			case LEASE_LOST -> RunState.LOST;
		};
	}

	/**
	 * How one run went.
	 *
	 * @param outcome the outcome
	 * @param failure what the job threw, or {@code null}
	 * @param validFrom when (nano time) the lease was last known to be extended by a full
	 * TTL
	 * @param record the run's ledger record: as it started, or as it ended once settled
	 * @param startedAt when the run started
	 * @param duration how long the body ran
	 * @param run the run
	 */
	record Outcome(RunOutcome outcome, @Nullable Throwable failure, long validFrom, RunRecord record, Instant startedAt,
			Duration duration, ActiveRun run) {

	}

}
