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

package io.github.clustersingleton.aop;

import java.time.Instant;

import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ReactiveRun;
import io.github.clustersingleton.lease.JobDefinition;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * One call of a guarded Kotlin {@code suspend} function, handed to the
 * {@link SuspendFunctionRunner}. Its slot is resolved when the call is made, on the
 * scheduler's thread; the lease is taken by {@link #start()}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class SuspendFunctionCall {

	private final ClusterSingletonExecutor executor;

	private final JobDefinition job;

	private final @Nullable Instant slot;

	private final RunTrigger trigger;

	private final MethodInvocation invocation;

	SuspendFunctionCall(ClusterSingletonExecutor executor, JobDefinition job, boolean scheduled,
			MethodInvocation invocation) {
		this.executor = executor;
		this.job = job;
		this.slot = scheduled ? executor.slotOf(job) : null;
		this.trigger = scheduled ? RunTrigger.SCHEDULED : RunTrigger.DIRECT;
		this.invocation = invocation;
	}

	/**
	 * Return the name of the job.
	 * @return the job name
	 */
	public String jobName() {
		return this.job.name();
	}

	/**
	 * Return the continuation the caller passed: its context is the caller's coroutine
	 * context.
	 * @return the caller's {@code kotlin.coroutines.Continuation}
	 */
	public Object continuation() {
		Object[] arguments = this.invocation.getArguments();
		Object continuation = arguments[arguments.length - 1];
		if (continuation == null) {
			throw new IllegalStateException(
					"No continuation passed to suspend function " + this.invocation.getMethod());
		}
		return continuation;
	}

	/**
	 * Take the job's lease, unless another node holds it or this node skips the trigger.
	 * @return the run, to be finished when the function ends, or {@code null} when the
	 * call is skipped
	 */
	public @Nullable ReactiveRun start() {
		return this.executor.startReactive(this.job, this.slot, this.trigger);
	}

	/**
	 * Call the function through the advisors after this one, with the given continuation
	 * in place of the caller's. Spring's AOP infrastructure returns a publisher of the
	 * function's result, which runs the function in a coroutine whose context is the
	 * continuation's (without its {@code Job}) when subscribed to.
	 * @param continuation the {@code kotlin.coroutines.Continuation} whose context the
	 * function runs in
	 * @return what the call returned
	 * @throws Throwable what the call threw
	 */
	public @Nullable Object proceed(Object continuation) throws Throwable {
		Object[] arguments = this.invocation.getArguments();
		arguments[arguments.length - 1] = continuation;
		return this.invocation.proceed();
	}

}
