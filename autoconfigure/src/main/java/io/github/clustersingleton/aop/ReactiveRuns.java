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
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ReactiveRun;
import io.github.clustersingleton.lease.JobDefinition;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Guards a {@code @ClusterSingleton} method that returns a {@link Publisher}
 * ({@code Mono}, {@code Flux}): the lease is taken when the returned publisher is
 * subscribed to, held and renewed until it completes, errors or is cancelled, and
 * released then. A lost lease or {@code lockAtMostFor} cancels the method's publisher and
 * ends the returned one with a {@link LeaseLostException}. The run's
 * {@link ClusterSingletonContext} is in the Reactor {@code Context} under the key
 * {@code ClusterSingletonContext.class}, and current on the subscribing thread while the
 * method assembles its publisher. Only loaded when Reactor is on the class path.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class ReactiveRuns {

	private ReactiveRuns() {
	}

	static Publisher<?> guard(ClusterSingletonExecutor executor, JobDefinition job, MethodInvocation invocation) {
		Flux<Object> guarded = Flux.usingWhen(Mono.fromCallable(() -> start(executor, job)),
				(run) -> body(run, copy(invocation)), (run) -> finish(run, null), (run, error) -> finish(run, error),
				(run) -> finish(run, null));
		Class<?> returnType = invocation.getMethod().getReturnType();
		return Mono.class.isAssignableFrom(returnType) ? guarded.singleOrEmpty() : guarded;
	}

	private static @Nullable ReactiveRun start(ClusterSingletonExecutor executor, JobDefinition job) {
		// the scheduler subscribes on its own thread at every trigger; anyone else's
		// subscription is a direct call without a slot
		boolean scheduled = job.schedule() != null && ClusterSingletonContext.find().isEmpty()
				&& ClusterSingletonInterceptor.calledByScheduler(ReactiveRuns.class.getName());
		Instant slot = scheduled ? executor.slotOf(job) : null;
		return executor.startReactive(job, slot, scheduled ? RunTrigger.SCHEDULED : RunTrigger.DIRECT);
	}

	/**
	 * A method invocation that can proceed once more: each subscription calls the method
	 * again.
	 */
	private static MethodInvocation copy(MethodInvocation invocation) {
		return (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : invocation;
	}

	private static Flux<Object> body(ReactiveRun run, MethodInvocation invocation) {
		Sinks.Empty<Void> lost = Sinks.empty();
		AtomicBoolean cutOff = new AtomicBoolean();
		// the watchdog's thread calls this: the cancellation, and the end of the run it
		// leads to (a store round trip), happen on another thread, so that the watchdog
		// goes on renewing and checking the other leases meanwhile
		run.cancelWith(() -> {
			cutOff.set(true);
			Schedulers.boundedElastic().schedule(lost::tryEmitEmpty);
		});
		ClusterSingletonContext context = run.context();
		Flux<Object> work = Flux.defer(() -> {
			Object publisher;
			try {
				publisher = run.invokeBound(invocation::proceed);
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
			return (publisher instanceof Publisher<?> source) ? Flux.from(source) : Flux.empty();
		});
		return work.takeUntilOther(lost.asMono())
			// only a publisher the loss of the lease cut off ends with the loss; one that
			// completed by itself, even after its deadline, ended normally and the store
			// judges its end
			.concatWith(Mono.defer(() -> cutOff.get() ? Mono.error(new LeaseLostException(context.jobName(),
					context.fencingToken(), "the lease was lost before the publisher completed")) : Mono.empty()))
			.contextWrite((reactorContext) -> reactorContext.put(ClusterSingletonContext.class, context));
	}

	private static Mono<Void> finish(ReactiveRun run, @Nullable Throwable error) {
		return Mono.fromRunnable(() -> run.finish(error));
	}

}
