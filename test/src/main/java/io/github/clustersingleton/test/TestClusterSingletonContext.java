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

package io.github.clustersingleton.test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.RunTrigger;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link ClusterSingletonContext} chosen by a test, to unit-test a job that reads its
 * context without a Spring context or a lease store: <pre class="code">
 * TestClusterSingletonContext context = TestClusterSingletonContext.forJob("billing")
 *     .fencingToken(42)
 *     .slot(Instant.parse("2026-01-01T10:00:00Z"));
 * context.run(() -&gt; billing.bill());
 * assertThat(ledger.lastFencingToken()).isEqualTo(42);
 * </pre> {@link #run} and {@link #call} make this context
 * {@link ClusterSingletonContext#current() current} on the calling thread while the code
 * runs, then restore whatever was current before. {@link #lose(String)} ends the lease
 * while the code runs, from the code itself or from another thread:
 * {@link #isLeaseValid()} then returns {@code false} and {@link #checkLease()} throws
 * {@link LeaseLostException}. Unlike the engine, it does not interrupt the running
 * thread.
 * <p>
 * The settings are mutable and thread-safe; each setter returns this context.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class TestClusterSingletonContext extends ClusterSingletonContext {

	private static final String DEFAULT_LOSS_REASON = "the test made the lease invalid";

	private final String jobName;

	private volatile long fencingToken = 1;

	private volatile @Nullable Instant slot;

	private volatile @Nullable String lossReason;

	private volatile int attempt = 1;

	private volatile @Nullable RunTrigger trigger;

	private volatile List<Instant> missedSlots = List.of();

	private TestClusterSingletonContext(String jobName) {
		this.jobName = jobName;
	}

	/**
	 * Return a context for a run of the given job, with fencing token 1, no slot and a
	 * valid lease.
	 * @param jobName the job name
	 * @return the context
	 */
	public static TestClusterSingletonContext forJob(String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		return new TestClusterSingletonContext(jobName);
	}

	/**
	 * Set the fencing token of the run.
	 * @param fencingToken the fencing token, positive as the store's are
	 * @return this context
	 */
	public TestClusterSingletonContext fencingToken(long fencingToken) {
		Assert.isTrue(fencingToken > 0, "'fencingToken' must be positive");
		this.fencingToken = fencingToken;
		return this;
	}

	/**
	 * Set the cron slot the run owns.
	 * @param slot the slot, or {@code null} for a run without a slot (fixed-rate,
	 * fixed-delay, direct call)
	 * @return this context
	 */
	public TestClusterSingletonContext slot(@Nullable Instant slot) {
		this.slot = slot;
		return this;
	}

	/**
	 * Set which attempt at its slot the run is, as a recovery run sees it.
	 * @param attempt the attempt, 1 for the slot's first run
	 * @return this context
	 */
	public TestClusterSingletonContext attempt(int attempt) {
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		this.attempt = attempt;
		return this;
	}

	/**
	 * Set why the run started. Unset, it is {@link RunTrigger#SCHEDULED} for a run with a
	 * slot and {@link RunTrigger#DIRECT} otherwise.
	 * @param trigger the trigger
	 * @return this context
	 */
	public TestClusterSingletonContext trigger(RunTrigger trigger) {
		Assert.notNull(trigger, "'trigger' must not be null");
		this.trigger = trigger;
		return this;
	}

	/**
	 * Set the other missed slots a {@code run-once} catch-up run stands for.
	 * @param missedSlots the missed slots, oldest first
	 * @return this context
	 */
	public TestClusterSingletonContext missedSlots(List<Instant> missedSlots) {
		Assert.notNull(missedSlots, "'missedSlots' must not be null");
		this.missedSlots = List.copyOf(missedSlots);
		return this;
	}

	/**
	 * Set whether the run holds its lease. {@code false} is {@link #lose(String)} with a
	 * generic reason; {@code true} holds the lease again.
	 * @param leaseValid whether the lease is held
	 * @return this context
	 */
	public TestClusterSingletonContext leaseValid(boolean leaseValid) {
		this.lossReason = leaseValid ? null : DEFAULT_LOSS_REASON;
		return this;
	}

	/**
	 * End the lease of the run, as the engine does when a renewal fails, another node
	 * takes the lease over or the run exceeds its {@code lockAtMostFor}: from now on
	 * {@link #isLeaseValid()} returns {@code false} and {@link #checkLease()} throws a
	 * {@link LeaseLostException} whose message ends with the reason.
	 * @param reason why the lease was lost
	 * @return this context
	 */
	public TestClusterSingletonContext lose(String reason) {
		Assert.hasText(reason, "'reason' must not be empty");
		this.lossReason = reason;
		return this;
	}

	/**
	 * Run a task with this context as the current one on this thread.
	 * @param task the task
	 */
	public void run(Runnable task) {
		Assert.notNull(task, "'task' must not be null");
		ClusterSingletonContext previous = bind(this);
		try {
			task.run();
		}
		finally {
			restore(previous);
		}
	}

	/**
	 * Call a task with this context as the current one on this thread.
	 * @param <T> the result type
	 * @param task the task
	 * @return what the task returned
	 * @throws Exception what the task threw
	 */
	public <T extends @Nullable Object> T call(Callable<T> task) throws Exception {
		Assert.notNull(task, "'task' must not be null");
		ClusterSingletonContext previous = bind(this);
		try {
			return task.call();
		}
		finally {
			restore(previous);
		}
	}

	@Override
	public String jobName() {
		return this.jobName;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	@Override
	public Optional<Instant> slot() {
		return Optional.ofNullable(this.slot);
	}

	@Override
	public int attempt() {
		return this.attempt;
	}

	@Override
	public RunTrigger trigger() {
		RunTrigger trigger = this.trigger;
		return (trigger != null) ? trigger : super.trigger();
	}

	@Override
	public List<Instant> missedSlots() {
		return this.missedSlots;
	}

	@Override
	public boolean isLeaseValid() {
		return this.lossReason == null;
	}

	@Override
	protected @Nullable String lossReason() {
		return this.lossReason;
	}

	@Override
	public String toString() {
		return "TestClusterSingletonContext[jobName=" + this.jobName + ", fencingToken=" + this.fencingToken + ", slot="
				+ this.slot + ", lossReason=" + this.lossReason + "]";
	}

}
