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

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;

/**
 * Every {@code @ClusterSingleton} job of the application, by name and by method. Filled
 * while beans are post-processed; a job name claimed by two different methods fails
 * startup.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class JobRegistry {

	private static final String AMBIGUOUS = "";

	private final Map<String, Registration> byName = new ConcurrentHashMap<>();

	private final Map<Method, JobDefinition> byMethod = new ConcurrentHashMap<>();

	private final Map<String, Target> targets = new ConcurrentHashMap<>();

	/**
	 * The job of each task name a reactive or suspending method's task gets: the class of
	 * a bean that runs the job (its proxy) and the method's name; {@link #AMBIGUOUS} for
	 * a name two jobs share.
	 */
	private final Map<String, String> beanTaskNames = new ConcurrentHashMap<>();

	/**
	 * The jobs whose cron triggers were seen to reach the guard as the first advice of
	 * their proxy, on the scheduler's thread.
	 */
	private final Set<String> triggeredThroughGuard = ConcurrentHashMap.newKeySet();

	/**
	 * Register the job of a method.
	 * @param method the annotated method
	 * @param job the resolved job
	 * @return the registered job (the existing one when the method was registered before,
	 * for example for a second bean of the same class)
	 * @throws ClusterSingletonConfigurationException when another method already uses the
	 * job's name
	 */
	public synchronized JobDefinition register(Method method, JobDefinition job) {
		JobDefinition known = this.byMethod.get(method);
		if (known != null) {
			return known;
		}
		Registration existing = this.byName.get(job.name());
		if (existing != null && !existing.method().equals(method)) {
			throw new ClusterSingletonConfigurationException("Duplicate cluster-singleton job name '" + job.name()
					+ "': it is used by " + existing.job().source() + " and by " + job.source()
					+ ". Give one of them another @ClusterSingleton(name = ...): two jobs with one name would share "
					+ "one lease and one slot history");
		}
		this.byName.put(job.name(), new Registration(method, job));
		this.byMethod.put(method, job);
		return job;
	}

	/**
	 * Record the bean whose method runs a registered job, as the container exposes it
	 * (its proxy), so that the engine can call the job outside a trigger: for recovery
	 * and catch-up runs.
	 * @param method the job's method, as registered
	 * @param bean the bean to call it on
	 */
	public void registerTarget(Method method, Object bean) {
		JobDefinition job = this.byMethod.get(method);
		if (job != null) {
			this.targets.putIfAbsent(job.name(), new Target(bean, method));
			// every bean of the job, whose proxy classes may differ (a subclass, another
			// advisor); not a JDK proxy, whose class every bean with the same interfaces
			// shares
			if (withoutParameters(method) && !Proxy.isProxyClass(bean.getClass())) {
				this.beanTaskNames.merge(bean.getClass().getName() + "." + method.getName(), job.name(),
						(known, added) -> known.equals(added) ? known : AMBIGUOUS);
			}
		}
	}

	/**
	 * Return the bean and method that run a job, if known.
	 * @param jobName the job name
	 * @return the target, or empty for a job without a registered bean
	 */
	public Optional<Target> target(String jobName) {
		return Optional.ofNullable(this.targets.get(jobName));
	}

	/**
	 * The bean and method that run a job.
	 *
	 * @param bean the bean as the container exposes it
	 * @param method the method
	 */
	public record Target(Object bean, Method method) {

	}

	/**
	 * Return the job of a method.
	 * @param method the annotated method
	 * @return the job, or {@code null} when the method has none registered
	 */
	public @Nullable JobDefinition forMethod(Method method) {
		return this.byMethod.get(method);
	}

	/**
	 * Return the job a scheduler's task runs: the task of a {@code @Scheduled} method
	 * describes itself by the method's declaring class and name (Spring's
	 * {@code ScheduledMethodRunnable}, also when wrapped), the task of a reactive or
	 * suspending one by the class of the bean it runs on, the job's proxy, and the name
	 * (not a JDK proxy's task: its class does not tell the bean).
	 * @param task the task as the scheduler receives it
	 * @return the job, or {@code null} when the task runs no registered job
	 */
	public @Nullable JobDefinition forScheduledTask(Runnable task) {
		String description = task.toString();
		for (Map.Entry<Method, JobDefinition> entry : this.byMethod.entrySet()) {
			Method method = entry.getKey();
			// a scheduled method has no parameters: a guarded overload with some, called
			// directly only, shares the description but not the task
			if (method.getParameterCount() == 0
					&& description.equals(method.getDeclaringClass().getName() + "." + method.getName())) {
				return entry.getValue();
			}
		}
		String name = this.beanTaskNames.get(description);
		return (name != null && !name.equals(AMBIGUOUS)) ? forName(name).orElse(null) : null;
	}

	/**
	 * Whether a method can be a scheduled one: without parameters, or a suspend function,
	 * whose one parameter is its continuation.
	 */
	private static boolean withoutParameters(Method method) {
		return method.getParameterCount() == 0
				|| (method.getParameterCount() == 1 && KotlinDetector.isSuspendingFunction(method));
	}

	/**
	 * Note that a cron trigger of the job reached the guard as the first advice of the
	 * job's proxy, on the scheduler's thread: its scheduled calls are scheduled runs, and
	 * the scheduler decorator may skip a trigger that the node leaves to another one
	 * without calling the method.
	 * @param name the job name
	 */
	public void triggeredThroughGuard(String name) {
		if (!this.triggeredThroughGuard.contains(name)) {
			this.triggeredThroughGuard.add(name);
		}
	}

	/**
	 * Whether a cron trigger of the job was seen to reach the guard as the first advice
	 * of its proxy ({@link #triggeredThroughGuard(String)}); not when advice in front of
	 * it ({@code @Async}, say) makes its calls direct ones.
	 * @param name the job name
	 * @return whether its triggers reach the guard first
	 */
	public boolean isTriggeredThroughGuard(String name) {
		return this.triggeredThroughGuard.contains(name);
	}

	/**
	 * Return the job of a name.
	 * @param name the job name
	 * @return the job
	 */
	public Optional<JobDefinition> forName(String name) {
		Registration registration = this.byName.get(name);
		return (registration != null) ? Optional.of(registration.job()) : Optional.empty();
	}

	/**
	 * Return all jobs, sorted by name.
	 * @return the jobs
	 */
	public List<JobDefinition> jobs() {
		List<JobDefinition> jobs = new ArrayList<>(this.byName.values().stream().map(Registration::job).toList());
		jobs.sort((a, b) -> a.name().compareTo(b.name()));
		return Collections.unmodifiableList(jobs);
	}

	/**
	 * Return the job names.
	 * @return the names
	 */
	public Collection<String> names() {
		return Collections.unmodifiableSet(this.byName.keySet());
	}

	/**
	 * Return whether no job is registered.
	 * @return {@code true} when there is none
	 */
	public boolean isEmpty() {
		return this.byName.isEmpty();
	}

	private record Registration(Method method, JobDefinition job) {

	}

}
