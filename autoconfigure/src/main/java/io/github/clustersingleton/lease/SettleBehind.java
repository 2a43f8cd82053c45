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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.lease.EngineSupport.rethrowIfFatal;

/**
 * The ends of the leader's scheduled runs, settled behind them: in leader mode one node
 * runs every job, on its scheduler's threads, and the release of each run's lease with
 * the record of its end (a store round trip, {@link GuardedRun#settle}) is made on a
 * thread of its own, so that the scheduler's thread goes on to the instant's next job.
 * <p>
 * A run's end is settled once, by whoever comes first: the settling thread, the job's
 * next trigger on this node (which settles it itself before it claims, rather than be
 * refused by its own lease), or the shutdown. Until then the run stays among the running
 * ones, so that this node does not take it up again, and the shutdown waits for it as for
 * a run.
 *
 * @author cluster-singleton contributors
 */
final class SettleBehind {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final EngineState state;

	private final EngineExecutors executors;

	/** The ends not settled yet, by job: one per job, the last run's. */
	private final Map<String, End> ends = new ConcurrentHashMap<>();

	private @Nullable ExecutorService settling;

	SettleBehind(EngineState state, EngineExecutors executors) {
		this.state = state;
		this.executors = executors;
	}

	/**
	 * Whether a run's end is settled behind it: a scheduled run of a slot in leader mode,
	 * while the node is not closing.
	 * @param slot the run's slot
	 * @param trigger why the run started
	 * @return whether to hand its end to {@link #settle}
	 */
	boolean takes(@Nullable Instant slot, RunTrigger trigger) {
		return slot != null && trigger == RunTrigger.SCHEDULED && this.state.leader() != null
				&& !this.state.isClosing();
	}

	/**
	 * Settle a run's end behind it.
	 * @param jobName the run's job
	 * @param settle what settles it
	 */
	void settle(String jobName, Runnable settle) {
		End end = new End(jobName, settle);
		End earlier = this.ends.put(jobName, end);
		if (earlier != null) {
			// a run's end is settled before its job's next claim here: not expected
			earlier.settleOnce();
		}
		if (this.state.isClosing()) {
			// the shutdown may have settled the others already
			end.settleOnce();
			return;
		}
		try {
			settling().execute(end::settleOnce);
		}
		catch (RejectedExecutionException ex) {
			end.settleOnce();
		}
	}

	/**
	 * Settle the end of the job's last run here, if it waits, on this thread; or wait for
	 * the thread settling it.
	 * @param jobName the job
	 */
	void settled(String jobName) {
		End end = this.ends.get(jobName);
		if (end != null) {
			end.settleOnce();
		}
	}

	/**
	 * Settle every end that waits, on this thread: the node shuts down.
	 */
	void settleAll() {
		this.ends.values().forEach(End::settleOnce);
	}

	/**
	 * Stop the settling thread once the ends handed to it are settled.
	 */
	void close() {
		settleAll();
		ExecutorService settling;
		synchronized (this) {
			settling = this.settling;
			this.settling = null;
		}
		if (settling != null) {
			settling.shutdown();
		}
	}

	private synchronized ExecutorService settling() {
		ExecutorService settling = this.settling;
		if (settling == null) {
			settling = this.executors.completionRetries();
			this.settling = settling;
		}
		return settling;
	}

	/**
	 * One run's end, settled once.
	 */
	private final class End {

		private final String jobName;

		private final Runnable settle;

		private final AtomicBoolean taken = new AtomicBoolean();

		private final CountDownLatch done = new CountDownLatch(1);

		End(String jobName, Runnable settle) {
			this.jobName = jobName;
			this.settle = settle;
		}

		void settleOnce() {
			if (!this.taken.compareAndSet(false, true)) {
				awaitDone();
				return;
			}
			try {
				this.settle.run();
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				logger.error("cluster-singleton could not settle the end of a run of job '" + this.jobName + "'", ex);
			}
			finally {
				SettleBehind.this.ends.remove(this.jobName, this);
				this.done.countDown();
			}
		}

		private void awaitDone() {
			boolean interrupted = false;
			while (true) {
				try {
					this.done.await();
					break;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
