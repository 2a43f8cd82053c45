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

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.PreparedInvocation;
import io.github.clustersingleton.lease.ScheduledFireTime;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link ClusterSingleton @ClusterSingleton} method only when this node gets the
 * job's lease. A run that is skipped returns {@code null} (the method is {@code void}).
 * Failures of the lease machinery are logged and turn into a skipped run; exceptions of
 * the method itself propagate unchanged.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class ClusterSingletonInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(ClusterSingletonInterceptor.class);

	private static final String SCHEDULED_METHOD_RUNNABLE = "org.springframework.scheduling.support.ScheduledMethodRunnable";

	/**
	 * How deep to look for the scheduler's runnable: the proxy, AOP chain and reflection
	 * frames between it and this interceptor are about twenty, and about a hundred for a
	 * Kotlin suspend function, which the scheduler starts through Kotlin reflection and a
	 * coroutine.
	 */
	private static final int SCHEDULER_FRAME_DEPTH = 160;

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			ClusterSingletonInterceptor.class.getClassLoader());

	private static final String SUBSCRIBING_RUNNABLE = "org.springframework.scheduling.annotation."
			+ "ScheduledAnnotationReactiveSupport$SubscribingRunnable";

	private static final StackWalker stackWalker = StackWalker.getInstance();

	private final JobDefinitionFactory jobFactory;

	private final JobRegistry registry;

	private final SingletonSupplier<ClusterSingletonExecutor> executor;

	ClusterSingletonInterceptor(JobDefinitionFactory jobFactory, JobRegistry registry,
			Supplier<ClusterSingletonExecutor> executor) {
		this.jobFactory = jobFactory;
		this.registry = registry;
		this.executor = SingletonSupplier.of(executor);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		JobDefinition job = job(invocation);
		if (PreparedInvocation.consume(job.name())) {
			// the engine's own call of a recovery or catch-up run, whose lease it holds
			return invocation.proceed();
		}
		ClusterSingletonExecutor executor;
		try {
			executor = this.executor.obtain();
		}
		catch (RuntimeException ex) {
			logger.error("cluster-singleton skipped job '" + job.name() + "': no lease store is available: " + ex);
			return null;
		}
		// a guarded method called from inside another guarded run is a direct call, even
		// when the outer run came from the scheduler
		// fixed-rate and fixed-delay triggers are scheduled runs too, without a slot; a
		// cron trigger run by the decorated scheduler marks its thread for its job, which
		// spares the walk up the stack when this is the proxy's first advice (an advice
		// in front of it, @Async's say, may have run the call elsewhere, or on this
		// thread with a task of its own in between)
		boolean triggered = ScheduledFireTime.takeTriggerOf(job.name()) && isFirstAdvice(invocation);
		if (triggered) {
			// the scheduler decorator may now skip the job's triggers left to other nodes
			this.registry.triggeredThroughGuard(job.name());
		}
		boolean scheduled = ClusterSingletonContext.find().isEmpty() && (triggered || calledByScheduler());
		if (SuspendFunctions.isSuspending(invocation.getMethod())) {
			// Spring's proxy awaits what this returns in the caller's coroutine; the
			// startup checks made sure a runner is there
			SuspendFunctionRunner runner = SuspendFunctions.runner();
			Assert.state(runner != null, "No SuspendFunctionRunner: add cluster-singleton-kotlin");
			return runner.run(new SuspendFunctionCall(executor, job, scheduled, invocation));
		}
		if (REACTOR_PRESENT && Publisher.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
			// Spring calls a reactive @Scheduled method once and subscribes to what it
			// returns at every trigger: each subscription is a run
			return ReactiveRuns.guard(executor, job, invocation);
		}
		executor.execute(job, scheduled, repeatable(invocation));
		return null;
	}

	/**
	 * The job's body for the engine, which may run it more than once in one trigger (a
	 * recovery or catch-up sequence): every run after the first proceeds on a fresh copy
	 * of the invocation, taken before the first one proceeded, so that each run passes
	 * through every advisor after this one ({@code @Transactional}, {@code @Retryable},
	 * ...) and not only the first.
	 */
	static ClusterSingletonExecutor.Invocation repeatable(MethodInvocation invocation) {
		if (!(invocation instanceof ProxyMethodInvocation proxied)) {
			return invocation::proceed;
		}
		// the copy is taken when the body first runs, not at every trigger: most triggers
		// of a cluster never run the body here
		AtomicReference<@Nullable MethodInvocation> pristine = new AtomicReference<>();
		return () -> {
			if (pristine.get() == null && pristine.compareAndSet(null, proxied.invocableClone())) {
				return invocation.proceed();
			}
			return ((ProxyMethodInvocation) pristine.get()).invocableClone().proceed();
		};
	}

	private JobDefinition job(MethodInvocation invocation) {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target)
				: invocation.getMethod().getDeclaringClass();
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		Method method = BridgeMethodResolver
			.findBridgedMethod(ClassUtils.getMostSpecificMethod(invocation.getMethod(), userClass));
		JobDefinition job = this.registry.forMethod(method);
		if (job == null) {
			// a bean that was never post-processed (created outside the container and
			// proxied by hand): resolve, validate and register it now
			ClusterSingleton annotation = AnnotatedElementUtils.findMergedAnnotation(method, ClusterSingleton.class);
			if (annotation == null) {
				annotation = AnnotatedElementUtils.findMergedAnnotation(invocation.getMethod(), ClusterSingleton.class);
			}
			if (annotation == null) {
				throw new IllegalStateException("No @ClusterSingleton found on " + method);
			}
			job = this.registry.register(method, this.jobFactory.create(userClass, method, annotation));
		}
		return job;
	}

	/**
	 * Whether this interceptor is the first advice of the proxy the call came through:
	 * nothing of the application's or of another advisor ran between the proxy and here.
	 */
	private boolean isFirstAdvice(MethodInvocation invocation) {
		return invocation instanceof ProxyMethodInvocation proxied && proxied.getProxy() instanceof Advised advised
				&& advised.indexOf(this) == 0;
	}

	/**
	 * Whether the current call is the scheduler's own invocation of the guarded method,
	 * rather than application code calling it: only a scheduled trigger owns a cron slot.
	 * Walking out from this interceptor, only proxy, AOP, reflection and other Spring
	 * frames may come before the scheduler's {@code ScheduledMethodRunnable}; a frame of
	 * application code in between (another {@code @Scheduled} method that calls this one,
	 * say) makes it a direct call.
	 */
	private static boolean calledByScheduler() {
		return calledByScheduler(ClusterSingletonInterceptor.class.getName());
	}

	/**
	 * Whether the first frame outside this library, Spring and Reactor, walking out from
	 * the frames of {@code from}, is the scheduler's runnable of a scheduled method (or
	 * of a reactive scheduled method's subscription).
	 */
	static boolean calledByScheduler(String from) {
		return stackWalker.walk((frames) -> frames.limit(SCHEDULER_FRAME_DEPTH)
			.map(StackWalker.StackFrame::getClassName)
			.dropWhile((className) -> !className.equals(from))
			.dropWhile(from::equals)
			.filter((className) -> !isInvocationInfrastructure(className))
			.findFirst()
			.map((className) -> SCHEDULED_METHOD_RUNNABLE.equals(className) || SUBSCRIBING_RUNNABLE.equals(className))
			.orElse(false));
	}

	/**
	 * Whether a frame's class only carries a call to the guarded method (a proxy, an
	 * interceptor, reflection) without being application code that decided to call it.
	 */
	private static boolean isInvocationInfrastructure(String className) {
		if (className.equals(SCHEDULED_METHOD_RUNNABLE) || className.equals(SUBSCRIBING_RUNNABLE)) {
			return false;
		}
		return className.startsWith("org.springframework.") || className.contains("$$SpringCGLIB$$")
				|| className.startsWith("java.lang.reflect.") || className.startsWith("java.lang.invoke.")
				|| className.startsWith("jdk.internal.reflect.") || className.startsWith("jdk.proxy")
				|| className.startsWith("io.micrometer.observation.") || className.startsWith("reactor.core.")
				|| className.startsWith("kotlin.") || className.startsWith("kotlinx.coroutines.")
				|| className.startsWith("io.github.clustersingleton.aop.");
	}

}
