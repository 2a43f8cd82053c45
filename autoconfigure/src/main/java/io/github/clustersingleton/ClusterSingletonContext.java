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

package io.github.clustersingleton;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * What a guarded run knows about its lease. Obtain it with {@link #current()} from the
 * thread that runs a {@link ClusterSingleton @ClusterSingleton} method:
 *
 * <pre class="code">
 * &#64;Scheduled(cron = "0 *&#47;5 * * * *")
 * &#64;ClusterSingleton(name = "billing")
 * public void bill() {
 *     ClusterSingletonContext run = ClusterSingletonContext.current();
 *     for (Invoice invoice : invoices()) {
 *         run.checkLease(); // stop early if another node may have taken over
 *         ledger.write(invoice, run.fencingToken());
 *     }
 * }
 * </pre>
 *
 * The engine creates one instance per run; this type is not meant to be implemented by
 * applications.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public abstract class ClusterSingletonContext {

	private static final ThreadLocal<@Nullable ClusterSingletonContext> CURRENT = new ThreadLocal<>();

	/**
	 * Return the context of the guarded run on the current thread.
	 * @return the context of the current run
	 * @throws IllegalStateException when the current thread is not inside a guarded run
	 */
	public static ClusterSingletonContext current() {
		ClusterSingletonContext context = CURRENT.get();
		if (context == null) {
			throw new IllegalStateException("No cluster-singleton run on thread '" + Thread.currentThread().getName()
					+ "': ClusterSingletonContext.current() is only available inside a method annotated with "
					+ "@ClusterSingleton, on the thread that runs it, while this node holds the job's lease");
		}
		return context;
	}

	/**
	 * Return the context of the guarded run on the current thread, if any.
	 * @return the context of the current run, or empty outside a guarded run
	 */
	public static Optional<ClusterSingletonContext> find() {
		return Optional.ofNullable(CURRENT.get());
	}

	/**
	 * Make {@code context} the current one on this thread.
	 * @param context the context of the run that starts
	 * @return the context it replaces (a guarded method may call another one), to be
	 * passed to {@link #restore}
	 */
	protected static @Nullable ClusterSingletonContext bind(ClusterSingletonContext context) {
		ClusterSingletonContext previous = CURRENT.get();
		CURRENT.set(context);
		return previous;
	}

	/**
	 * Restore the context that {@link #bind} replaced.
	 * @param previous the context returned by {@link #bind}
	 */
	protected static void restore(@Nullable ClusterSingletonContext previous) {
		if (previous != null) {
			CURRENT.set(previous);
		}
		else {
			CURRENT.remove();
		}
	}

	/**
	 * Return the name of the job this run belongs to.
	 * @return the job name
	 */
	public abstract String jobName();

	/**
	 * Return the fencing token of this run's lease: strictly greater than the token of
	 * every earlier run of this job anywhere in the cluster. Pass it to the systems the
	 * job writes to, so they can reject writes of a run that lost its lease.
	 * @return the fencing token
	 */
	public abstract long fencingToken();

	/**
	 * Return the cron fire time this run owns, for a {@code @Scheduled(cron = ...)}
	 * trigger. Empty for fixed-rate and fixed-delay triggers and for direct calls.
	 * @return the slot of this run
	 */
	public abstract Optional<Instant> slot();

	/**
	 * Return which attempt at its slot this run is: 1 for the slot's first run, higher
	 * for a recovery run ({@code recovery = "lost"} or {@code "failed"}).
	 * @return the attempt, 1 when the run has no slot
	 */
	public int attempt() {
		return 1;
	}

	/**
	 * Return why this run started: its trigger fired, it catches up missed slots, it
	 * recovers a slot whose run died or failed, or application code called it.
	 * @return the trigger of this run
	 */
	public RunTrigger trigger() {
		return slot().isPresent() ? RunTrigger.SCHEDULED : RunTrigger.DIRECT;
	}

	/**
	 * Return the other missed slots a {@code misfire = "run-once"} catch-up run stands
	 * for, oldest first ({@link #slot()} is the latest missed one). Empty for every other
	 * run.
	 * @return the missed slots this run stands for besides its own
	 */
	public List<Instant> missedSlots() {
		return List.of();
	}

	/**
	 * Return whether this node still holds the lease of this run: it was renewed in time
	 * and the run is within its {@code lockAtMostFor}.
	 * @return {@code true} while the lease is held
	 */
	public abstract boolean isLeaseValid();

	/**
	 * Return why the lease was lost.
	 * @return the reason, or {@code null} while the lease is held
	 */
	protected abstract @Nullable String lossReason();

	/**
	 * Throw if this run no longer holds its lease. Long jobs call it between units of
	 * work.
	 * @throws LeaseLostException when the lease was lost
	 */
	public void checkLease() {
		if (!isLeaseValid()) {
			String reason = lossReason();
			throw new LeaseLostException(jobName(), fencingToken(), (reason != null) ? reason : "lease expired");
		}
	}

}
