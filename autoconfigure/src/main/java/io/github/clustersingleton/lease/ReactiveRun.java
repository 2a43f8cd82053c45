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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import org.jspecify.annotations.Nullable;

/**
 * A run whose work a reactive publisher does, started by
 * {@link ClusterSingletonExecutor#startReactive}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class ReactiveRun {

	private final JobDefinition job;

	private final ActiveRun run;

	private final ScheduledFuture<?> capTimer;

	private final RunRecord record;

	private final Instant startedAt;

	private final long started;

	private final AtomicBoolean finished = new AtomicBoolean();

	private final RunObserver.Run observed;

	private final GuardedRun guardedRun;

	private final LeaseWatchdog watchdog;

	private final Ticker ticker;

	private final Duration leaseTtl;

	private ReactiveRun(JobDefinition job, ActiveRun run, ScheduledFuture<?> capTimer, RunRecord record,
			Instant startedAt, long started, RunObserver.Run observed, GuardedRun guardedRun, LeaseWatchdog watchdog,
			Ticker ticker, Duration leaseTtl) {
		this.guardedRun = guardedRun;
		this.watchdog = watchdog;
		this.ticker = ticker;
		this.leaseTtl = leaseTtl;
		this.job = job;
		this.observed = observed;
		this.run = run;
		this.capTimer = capTimer;
		this.record = record;
		this.startedAt = startedAt;
		this.started = started;
	}

	/**
	 * Return the context of this run.
	 * @return the context
	 */
	public ClusterSingletonContext context() {
		return this.run;
	}

	/**
	 * Set what cancels the run's subscription when the lease is lost or
	 * {@code lockAtMostFor} passes.
	 * @param canceller cancels the subscription
	 */
	public void cancelWith(Runnable canceller) {
		this.run.cancelWith(canceller);
	}

	/**
	 * Call the job's method with this run's context current on this thread: a reactive
	 * method assembles its publisher there.
	 * @param invocation the job's method
	 * @return what it returned
	 * @throws Throwable what it threw
	 */
	public @Nullable Object invokeBound(ClusterSingletonExecutor.Invocation invocation) throws Throwable {
		ClusterSingletonContext previous = this.run.bindToThread();
		try {
			return invocation.proceed();
		}
		finally {
			ActiveRun.restoreOnThread(previous);
		}
	}

	/**
	 * Return whether the run lost its lease.
	 * @return {@code true} once the lease is lost
	 */
	public boolean isLost() {
		return this.run.isLost();
	}

	/**
	 * End the run: stop renewing, release the lease (honouring {@code lockAtLeastFor})
	 * and record the outcome. Only the first call counts.
	 * @param failure what the publisher signalled, or {@code null} on completion
	 */
	public void finish(@Nullable Throwable failure) {
		if (!this.finished.compareAndSet(false, true)) {
			return;
		}
		this.run.finish();
		this.watchdog.unregister(this.run, this.capTimer);
		this.guardedRun.noteLossAtFinish(this.run);
		Duration duration = Duration.ofNanos(this.ticker.nanoTime() - this.started);
		GuardedRun.Outcome outcome = new GuardedRun.Outcome(GuardedRun.outcomeOf(this.run, failure), failure,
				this.run.deadlineNanos() - this.leaseTtl.toNanos(), this.record, this.startedAt, duration, this.run);
		GuardedRun.Outcome settled = this.guardedRun.settle(this.job, this.run.lease(), outcome,
				this.job.lockAtLeastFor(), true);
		EngineSupport.notify(() -> this.observed.stop(settled.outcome().tag(), failure));
	}

	/**
	 * Start a reactive run ({@link ClusterSingletonExecutor#startReactive}).
	 * @param engine the engine
	 * @param job the job
	 * @param slot the slot the run claims, or {@code null}
	 * @param trigger why the run starts
	 * @return the run, or {@code null} when this node did not get the lease
	 */
	static @Nullable ReactiveRun start(EngineComponents engine, JobDefinition job, @Nullable Instant slot,
			RunTrigger trigger) {
		// the end of the job's last run here, if it waits, reaches the store first
		engine.settleBehind.settled(job.name());
		AheadClaim ahead = (slot != null && trigger == RunTrigger.SCHEDULED) ? engine.instantClaims.take(job, slot)
				: null;
		if (ahead != null && (engine.state.isClosing() || !job.enabled())) {
			// logs why the trigger is skipped
			engine.claimer.skippedLocally(job, slot);
			engine.delivery.releaseQuietly(ahead.lease(), ahead.job());
			return null;
		}
		if (ahead == null
				&& (engine.claimer.skippedLocally(job, slot) || engine.claimer.pausedLocally(job, slot, trigger))) {
			return null;
		}
		LeaseRequest request = (ahead != null) ? ahead.request() : new LeaseRequest(job.name(), engine.settings.owner(),
				EngineSupport.newLeaseToken(), engine.settings.leaseTtl(), slot, engine.settings.slotTolerance());
		long requested = engine.ticker.nanoTime();
		RunObserver.Run observed = engine.claimer.startDetachedObservation(job, slot);
		// a lease the leader claimed with the instant's other jobs runs here even if this
		// node no longer leads
		LeaseClaimer.Claimed claimed = (ahead != null)
				? engine.claimer.accept(job, request, ahead.result(), ahead.validFrom(),
						java.time.Duration.ofNanos(ahead.tookNanos()), observed)
				: engine.claimer.claim(job, request, requested, observed);
		if (claimed == null) {
			return null;
		}
		HeldLease lease = HeldLease.of(request, claimed.result().fencingToken());
		ActiveRun run = new ActiveRun(job, lease, Thread.currentThread(), claimed.validFrom(),
				engine.settings.leaseTtl().toNanos(), 1, trigger, List.of(), engine.ticker);
		engine.state.running().add(run);
		ScheduledFuture<?> capTimer = engine.watchdog.register(run);
		if (capTimer == null) {
			run.finish();
			engine.state.running().remove(run);
			engine.delivery.releaseQuietly(lease, job);
			EngineSupport.notify(() -> observed.stop("acquired", null));
			return null;
		}
		EngineSupport.notify(() -> observed.acquired(lease));
		Instant startedAt = engine.clock.instant();
		RunRecord record = new RunRecord(job.name(), slot, 1, lease.fencingToken(), lease.owner(), trigger,
				RunState.RUNNING, startedAt, null, null);
		engine.ledger.record(record);
		return new ReactiveRun(job, run, capTimer, record, startedAt, engine.ticker.nanoTime(), observed,
				engine.guardedRun, engine.watchdog, engine.ticker, engine.settings.leaseTtl());
	}

}
