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

import io.github.clustersingleton.HeldLease;
import org.jspecify.annotations.Nullable;

/**
 * Brackets each guarded trigger that reaches the lease store, for tracing. Where a
 * {@link ClusterSingletonListener} is told after the fact, an observer is called
 * <em>around</em> the trigger on the thread that runs it: {@link #start} before the lease
 * is requested, {@link Run#acquired} when it was granted, and {@link Run#stop} exactly
 * once when the trigger ends (skipped, failed or run). So an implementation can open a
 * tracing scope in {@code start} and close it in {@code stop}, and the job's own spans
 * become children of it.
 * <p>
 * Implementations must be fast and must not throw: exceptions are logged at DEBUG and
 * ignored, never reaching the job or the scheduler.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@FunctionalInterface
public interface RunObserver {

	/**
	 * An observer that does nothing.
	 */
	RunObserver NONE = (job, slot, backend) -> Run.NONE;

	/**
	 * Called on the triggering thread before the lease of {@code job} is requested.
	 * @param job the job
	 * @param slot the cron slot the trigger claims, if any
	 * @param backend the {@link io.github.clustersingleton.LeaseBackend#id() id} of the
	 * lease store
	 * @return the handle of this trigger, never {@code null}
	 */
	Run start(JobDefinition job, @Nullable Instant slot, String backend);

	/**
	 * Called before the lease of a run whose work may end on another thread (a reactive
	 * job) is requested: like {@link #start}, but the handle's methods may be called on
	 * any thread, so nothing is bound to the calling thread.
	 * @param job the job
	 * @param slot the cron slot the trigger claims, if any
	 * @param backend the {@link io.github.clustersingleton.LeaseBackend#id() id} of the
	 * lease store
	 * @return the handle of this trigger, never {@code null}
	 */
	default Run startDetached(JobDefinition job, @Nullable Instant slot, String backend) {
		return start(job, slot, backend);
	}

	/**
	 * One observed trigger. Every method is called on the thread that called
	 * {@link RunObserver#start}.
	 */
	interface Run {

		/**
		 * A handle that does nothing.
		 */
		Run NONE = new Run() {
		};

		/**
		 * Called when the lease was granted, right before the job's body runs.
		 * @param lease the lease
		 */
		default void acquired(HeldLease lease) {
		}

		/**
		 * Called exactly once when the trigger ends.
		 * @param outcome {@code held}, {@code slot-done} or {@code error} for a trigger
		 * that did not get the lease (the {@code cluster.singleton.acquire} outcomes);
		 * {@code success}, {@code failure} or {@code lease-lost} for a run (the
		 * {@code cluster.singleton.execution} outcomes); {@code acquired} for a lease
		 * granted while the application began shutting down, given back without running
		 * @param error the store error or the job's exception, if any
		 */
		default void stop(String outcome, @Nullable Throwable error) {
		}

	}

}
