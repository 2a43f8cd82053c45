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
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.describe;
import static io.github.clustersingleton.lease.EngineSupport.describeFailure;
import static io.github.clustersingleton.lease.EngineSupport.describeSlot;
import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * Delivers the ends of runs to the store with the release of their leases: a completion
 * the store does not take (it cannot be reached) is retried in the background until the
 * store answers definitively or the retry period ends, and meanwhile this node does not
 * claim the job ({@link #endingHere}).
 *
 * @author cluster-singleton contributors
 */
final class CompletionDelivery {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	/**
	 * The longest pause between two attempts to record a run's completion that the store
	 * did not take: well within the recovery grace (a quarter of the TTL) of any TTL the
	 * engine accepts, so that a store that answers again hears of the completion before
	 * another node's recovery claim may take the run over.
	 */
	private static final long MAX_COMPLETION_RETRY_PAUSE_MILLIS = 250;

	/**
	 * How long at least the engine keeps trying to record a completion, whatever the
	 * job's {@code lockAtMostFor}.
	 */
	private static final Duration MIN_COMPLETION_RETRY_PERIOD = Duration.ofMinutes(2);

	private final LeaseBackend backend;

	private final ClusterSingletonExecutor.Settings settings;

	private final RunLedgerWriter ledger;

	private final EngineState state;

	private final Ticker ticker;

	private final EngineExecutors executors;

	private final Sleeper sleeper;

	/**
	 * Completions of runs here that the store has not taken yet (it could not be
	 * reached), by lease token and fencing token: retried until the store answers
	 * definitively; meanwhile this node does not claim their jobs.
	 */
	private final Map<String, UndeliveredCompletion> undeliveredCompletions = new ConcurrentHashMap<>();

	private @Nullable ScheduledExecutorService completionRetries;

	CompletionDelivery(LeaseBackend backend, ClusterSingletonExecutor.Settings settings, RunLedgerWriter ledger,
			EngineState state, Ticker ticker, EngineExecutors executors, Sleeper sleeper) {
		this.backend = backend;
		this.settings = settings;
		this.ledger = ledger;
		this.state = state;
		this.ticker = ticker;
		this.executors = executors;
		this.sleeper = sleeper;
	}

	/**
	 * Whether a run of the job ended here and the store has not taken its completion yet,
	 * its first attempt included: this node must not claim the job meanwhile, or it could
	 * take over (and run again) a run it knows has ended. A run still under way holds its
	 * lease, which the store refuses to others.
	 */
	boolean endingHere(String name) {
		for (ActiveRun run : this.state.running()) {
			if (run.isFinished() && run.jobName().equals(name)) {
				return true;
			}
		}
		return completedHereUndelivered(name);
	}

	/**
	 * Whether a run of the job ended here and the store has not taken its completion yet:
	 * this node must not claim the job meanwhile, or it would take up (and run again) a
	 * run it knows has ended.
	 */
	boolean completedHereUndelivered(String name) {
		for (UndeliveredCompletion undelivered : this.undeliveredCompletions.values()) {
			// only a policy that recovers runs could take the ended run up again
			if (undelivered.job.name().equals(name) && undelivered.recovers()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Give back a lease no run used, without keeping it for lockAtLeastFor.
	 */
	void releaseQuietly(HeldLease lease, JobDefinition job) {
		release(lease, job, Duration.ZERO, RunCompletion.none());
	}

	Delivery release(HeldLease lease, JobDefinition job, Duration lockAtLeastFor, RunCompletion completion) {
		return release(lease, job, lockAtLeastFor, completion, null);
	}

	/**
	 * What became of a completion sent with a release.
	 */
	enum Delivery {

		/** No completion was sent: the lease was only released. */
		RELEASED,

		/** The store recorded the completion. */
		RECORDED,

		/** The store refused it: another claim took the job over. */
		SUPERSEDED,

		/** The store did not answer: retried in the background. */
		PENDING

	}

	Delivery release(HeldLease lease, JobDefinition job, Duration lockAtLeastFor, RunCompletion completion,
			@Nullable RunRecord finished) {
		// a thread someone else interrupted (the scheduler's shutdownNow, a cancelled
		// future) must still give its lease back: clients such as Redisson and fabric8
		// abandon a request on an interrupted thread
		boolean interrupted = Thread.interrupted();
		try {
			if (completion.state() == null) {
				this.backend.release(lease, lockAtLeastFor);
				return Delivery.RELEASED;
			}
			UndeliveredCompletion undelivered = new UndeliveredCompletion(lease, job, lockAtLeastFor, completion,
					finished);
			if (!undelivered.attempt()) {
				// the store must learn how the run ended, or a policy that recovers lost
				// runs runs the slot again: the store records it by the run's token even
				// after the lease expired, until another claim took the job, and a
				// recovery claim waits a grace before it takes a run still marked running
				retryInBackground(undelivered);
				return Delivery.PENDING;
			}
			return undelivered.recorded ? Delivery.RECORDED : Delivery.SUPERSEDED;
		}
		catch (Throwable ex) {
			rethrowIfFatal(ex);
			logger.warn("cluster-singleton could not release the lease of job '" + job.name() + "' (fencingToken="
					+ lease.fencingToken() + "); it expires by itself within " + this.settings.leaseTtl() + ": " + ex,
					logger.isDebugEnabled() ? ex : null);
			return Delivery.RELEASED;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void retryInBackground(UndeliveredCompletion undelivered) {
		long pause = completionRetryPauseMillis();
		synchronized (this.undeliveredCompletions) {
			ScheduledExecutorService retries = this.completionRetries;
			if (retries == null) {
				retries = this.executors.completionRetries();
				this.completionRetries = retries;
			}
			this.undeliveredCompletions.put(undelivered.key(), undelivered);
			try {
				undelivered.future = retries.scheduleWithFixedDelay(undelivered::retry, pause, pause,
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.undeliveredCompletions.remove(undelivered.key());
				undelivered.giveUp("this node is shutting down");
			}
		}
	}

	/**
	 * Return the pause between two attempts to record a completion: an eighth of the TTL,
	 * at most {@value #MAX_COMPLETION_RETRY_PAUSE_MILLIS} ms, at least 10 ms.
	 */
	long completionRetryPauseMillis() {
		return Math.max(10, Math.min(MAX_COMPLETION_RETRY_PAUSE_MILLIS, this.settings.leaseTtl().toMillis() / 8));
	}

	/**
	 * Return how many completions of runs here the store has not taken yet.
	 * @return the number of undelivered completions
	 */
	int undeliveredCompletions() {
		return this.undeliveredCompletions.size();
	}

	/**
	 * Keep trying, until the deadline (ticker time), to record the completions the store
	 * has not taken yet; then stop retrying and give up those still undelivered.
	 * @param deadline the end of the shutdown grace period
	 */
	void drain(long deadline) {
		// completions the store has not taken yet: keep trying within the same grace
		// period
		while (!this.undeliveredCompletions.isEmpty() && deadline - this.ticker.nanoTime() > 0) {
			try {
				this.sleeper.sleep(Math.min(50, Math.max(1, (deadline - this.ticker.nanoTime()) / 1_000_000)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		synchronized (this.undeliveredCompletions) {
			ScheduledExecutorService retries = this.completionRetries;
			if (retries != null) {
				retries.shutdownNow();
			}
			for (UndeliveredCompletion undelivered : this.undeliveredCompletions.values()) {
				undelivered.done();
				undelivered.giveUp("this node shut down");
			}
		}
	}

	/**
	 * The completion of a run that ended here, until the store takes it (recorded) or
	 * answers that another claim superseded the run; given up after the job's
	 * {@code lockAtMostFor} (at least {@link #MIN_COMPLETION_RETRY_PERIOD}).
	 */
	private final class UndeliveredCompletion {

		private final HeldLease lease;

		private final JobDefinition job;

		private final Duration lockAtLeastFor;

		private final RunCompletion completion;

		/**
		 * The run's ledger record as it ended: written again once the store answers,
		 * since the ledger lives in the same store and its first write may have failed
		 * too.
		 */
		private final @Nullable RunRecord finished;

		private final long since = CompletionDelivery.this.ticker.nanoTime();

		private final long giveUpAt;

		private int attempts;

		private volatile @Nullable ScheduledFuture<?> future;

		private @Nullable RuntimeException lastFailure;

		private boolean recorded;

		UndeliveredCompletion(HeldLease lease, JobDefinition job, Duration lockAtLeastFor, RunCompletion completion,
				@Nullable RunRecord finished) {
			this.lease = lease;
			this.job = job;
			this.lockAtLeastFor = lockAtLeastFor;
			this.completion = completion;
			this.finished = finished;
			Duration period = (job.lockAtMostFor().compareTo(MIN_COMPLETION_RETRY_PERIOD) > 0) ? job.lockAtMostFor()
					: MIN_COMPLETION_RETRY_PERIOD;
			this.giveUpAt = this.since + ActiveRun.saturatedNanos(period);
		}

		String key() {
			return this.lease.leaseToken() + "/" + this.lease.fencingToken();
		}

		/**
		 * Try once to record the completion.
		 * @return whether the store answered definitively
		 */
		boolean attempt() {
			this.attempts++;
			boolean recorded;
			try {
				recorded = CompletionDelivery.this.backend.completeRun(this.lease, this.lockAtLeastFor,
						this.completion);
			}
			catch (RuntimeException ex) {
				this.lastFailure = ex;
				if (this.attempts == 1) {
					logger.warn("cluster-singleton could not record the end of job '" + this.job.name() + "'"
							+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
							+ describeState() + ") in the " + CompletionDelivery.this.backend.id()
							+ " lease store; trying again every " + completionRetryPauseMillis() + " ms"
							+ (recovers() ? ", and this node does not claim the job meanwhile" : "") + ": "
							+ describeFailure(ex), logger.isDebugEnabled() ? ex : null);
				}
				else {
					logger.debug("cluster-singleton could not record the end of job '" + this.job.name()
							+ "' (fencingToken=" + this.lease.fencingToken() + "); trying again", ex);
				}
				return false;
			}
			this.recorded = recorded;
			if (this.attempts > 1) {
				// written as the run ended, also when this attempt finds the run
				// superseded:
				// an earlier attempt whose answer was lost may have been the one recorded
				RunRecord run = this.finished;
				if (run != null) {
					// the ledger's write at the end of the run most likely failed with
					// the
					// store: the run ended as it says, whoever took the job over since
					CompletionDelivery.this.ledger.record(run);
				}
				if (recorded) {
					logger.info("cluster-singleton recorded the end of job '" + this.job.name() + "'"
							+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
							+ describeState() + ") after " + this.attempts + " attempts over "
							+ Duration.ofNanos(CompletionDelivery.this.ticker.nanoTime() - this.since));
				}
			}
			if (!recorded) {
				String message = "cluster-singleton could not record the end of job '" + this.job.name() + "'"
						+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
						+ describeState() + "): another claim took the job over first";
				if (recovers()) {
					logger.warn(message + " and may run the slot again (recovery="
							+ describe(this.job.policies().recovery()) + ")");
				}
				else {
					// without a recovery policy nobody runs the slot again
					logger.debug(message);
				}
			}
			return true;
		}

		/**
		 * Whether the job's policy runs a run again that the store still records as
		 * running.
		 */
		boolean recovers() {
			return this.job.policies().claimPolicy().recoverLost();
		}

		/**
		 * One retry from the background: stop on a definitive answer, or after the
		 * give-up time.
		 */
		void retry() {
			if (attempt()) {
				done();
				return;
			}
			if (CompletionDelivery.this.ticker.nanoTime() - this.giveUpAt >= 0) {
				done();
				giveUp("the store did not answer for "
						+ Duration.ofNanos(CompletionDelivery.this.ticker.nanoTime() - this.since)
							.truncatedTo(ChronoUnit.SECONDS));
			}
		}

		void done() {
			CompletionDelivery.this.undeliveredCompletions.remove(key(), this);
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

		void giveUp(String reason) {
			RuntimeException failure = this.lastFailure;
			logger.warn("cluster-singleton gave up recording the end of job '" + this.job.name() + "'"
					+ describeSlot(this.lease.slot()) + " (fencingToken=" + this.lease.fencingToken() + ", "
					+ describeState() + ") after " + this.attempts + " attempts: " + reason
					+ (this.job.policies().claimPolicy().recoverLost()
							? "; another node may run the slot again (recovery="
									+ describe(this.job.policies().recovery()) + ")"
							: "")
					+ ((failure != null) ? ": " + describeFailure(failure) : ""));
		}

		private String describeState() {
			RunState state = this.completion.state();
			return (state != null) ? state.value() : "released";
		}

	}

}
