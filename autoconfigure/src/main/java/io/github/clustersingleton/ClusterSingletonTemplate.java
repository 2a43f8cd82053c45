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

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Runs code once across the cluster without a {@code @Scheduled} method: a queue
 * listener, a Spring Batch launcher, a task at startup. The same engine as
 * {@link ClusterSingleton @ClusterSingleton} runs it, with the same lease, watchdog,
 * fencing token, {@link ClusterSingletonContext}, meters and settings
 * ({@code cluster-singleton.jobs.<name>.*} win over what the code sets, and
 * {@code cluster-singleton.default-*} fill in what neither sets). <pre class="code">
 * boolean ran = template.runIfAcquired("nightly-import", () -&gt; importer.run());
 *
 * Optional&lt;Report&gt; report = template.callIfAcquired(
 *         ClusterSingletonTemplate.job("report").lockAtMostFor(Duration.ofMinutes(10)),
 *         () -&gt; reports.build());
 * </pre> A call that does not get the lease (another node holds it, the slot was already
 * run, the store cannot be reached) returns at once without running the code; the code's
 * own exceptions propagate unchanged.
 * <p>
 * The auto-configuration provides a bean whenever the starter is on the class path,
 * whether or not the application has annotated jobs. With
 * {@code cluster-singleton.enabled=false} the bean stays, and runs every call at once,
 * without a lease.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface ClusterSingletonTemplate {

	/**
	 * Return a job of the given name, with the configured settings.
	 * @param name the job name, as in {@code @ClusterSingleton(name = ...)}
	 * @return the job
	 */
	static Job job(String name) {
		return new Job(name, null, null, null);
	}

	/**
	 * Run a task if this node gets the lease of the job of the given name.
	 * @param name the job name
	 * @param task the task
	 * @return whether the task ran
	 */
	default boolean runIfAcquired(String name, Runnable task) {
		return runIfAcquired(job(name), task);
	}

	/**
	 * Run a task if this node gets the job's lease.
	 * @param job the job
	 * @param task the task
	 * @return whether the task ran
	 */
	boolean runIfAcquired(Job job, Runnable task);

	/**
	 * Call a task if this node gets the lease of the job of the given name.
	 * @param <T> the result type
	 * @param name the job name
	 * @param task the task
	 * @return the task's result, or empty when it did not run (or returned {@code null})
	 * @throws Exception what the task threw
	 */
	default <T> Optional<T> callIfAcquired(String name, Callable<T> task) throws Exception {
		return callIfAcquired(job(name), task);
	}

	/**
	 * Call a task if this node gets the job's lease.
	 * @param <T> the result type
	 * @param job the job
	 * @param task the task
	 * @return the task's result, or empty when it did not run (or returned {@code null})
	 * @throws Exception what the task threw
	 */
	<T> Optional<T> callIfAcquired(Job job, Callable<T> task) throws Exception;

	/**
	 * A job run through the template: its name and what the code sets for it. Immutable;
	 * each {@code lockAtMostFor}, {@code lockAtLeastFor} and {@code slot} method returns
	 * a copy.
	 */
	final class Job {

		private final String name;

		private final @Nullable Duration lockAtMostFor;

		private final @Nullable Duration lockAtLeastFor;

		private final @Nullable Instant slot;

		private Job(String name, @Nullable Duration lockAtMostFor, @Nullable Duration lockAtLeastFor,
				@Nullable Instant slot) {
			Assert.hasText(name, "'name' must not be empty");
			this.name = name;
			this.lockAtMostFor = lockAtMostFor;
			this.lockAtLeastFor = lockAtLeastFor;
			this.slot = slot;
		}

		/**
		 * Return a copy with the hard cap of one run's lease (unless
		 * {@code cluster-singleton.jobs.<name>.lock-at-most-for} sets it).
		 * @param lockAtMostFor the cap
		 * @return the new job
		 */
		public Job lockAtMostFor(Duration lockAtMostFor) {
			Assert.notNull(lockAtMostFor, "'lockAtMostFor' must not be null");
			return new Job(this.name, lockAtMostFor, this.lockAtLeastFor, this.slot);
		}

		/**
		 * Return a copy with the minimum time the lease is kept after a run starts
		 * (unless {@code cluster-singleton.jobs.<name>.lock-at-least-for} sets it).
		 * @param lockAtLeastFor the minimum
		 * @return the new job
		 */
		public Job lockAtLeastFor(Duration lockAtLeastFor) {
			Assert.notNull(lockAtLeastFor, "'lockAtLeastFor' must not be null");
			return new Job(this.name, this.lockAtMostFor, lockAtLeastFor, this.slot);
		}

		/**
		 * Return a copy that claims a slot: a run for a slot at or before the last
		 * claimed slot of the job is refused, cluster-wide, as for a cron trigger.
		 * @param slot the slot, such as the scheduled time of a batch
		 * @return the new job
		 */
		public Job slot(Instant slot) {
			Assert.notNull(slot, "'slot' must not be null");
			return new Job(this.name, this.lockAtMostFor, this.lockAtLeastFor, slot);
		}

		/**
		 * Return the job name.
		 * @return the name
		 */
		public String getName() {
			return this.name;
		}

		/**
		 * Return the lockAtMostFor the code set.
		 * @return the duration, or {@code null} for the configured one
		 */
		public @Nullable Duration getLockAtMostFor() {
			return this.lockAtMostFor;
		}

		/**
		 * Return the lockAtLeastFor the code set.
		 * @return the duration, or {@code null} for the configured one
		 */
		public @Nullable Duration getLockAtLeastFor() {
			return this.lockAtLeastFor;
		}

		/**
		 * Return the slot the run claims.
		 * @return the slot, or {@code null} for none
		 */
		public @Nullable Instant getSlot() {
			return this.slot;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return (other instanceof Job job) && this.name.equals(job.name)
					&& Objects.equals(this.lockAtMostFor, job.lockAtMostFor)
					&& Objects.equals(this.lockAtLeastFor, job.lockAtLeastFor) && Objects.equals(this.slot, job.slot);
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.name, this.lockAtMostFor, this.lockAtLeastFor, this.slot);
		}

		@Override
		public String toString() {
			return "Job[name=" + this.name + ", lockAtMostFor=" + this.lockAtMostFor + ", lockAtLeastFor="
					+ this.lockAtLeastFor + ", slot=" + this.slot + "]";
		}

	}

}
