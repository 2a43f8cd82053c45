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

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.ClusterSingletonTemplate;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ReactiveRun;
import io.github.clustersingleton.lease.JobDefinition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * The {@link ClusterSingletonTemplate} of the auto-configuration: resolves each job's
 * settings once (as for an annotated job, with {@code Job} values in place of annotation
 * attributes) and runs the task through the {@link ClusterSingletonExecutor}. The lease
 * store is prepared at the first call when no annotated job prepared it at startup.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class DefaultClusterSingletonTemplate implements ClusterSingletonTemplate {

	private static final Log logger = LogFactory.getLog(DefaultClusterSingletonTemplate.class);

	private static final String SOURCE = "ClusterSingletonTemplate";

	private final JobDefinitionFactory jobFactory;

	private final SingletonSupplier<ClusterSingletonExecutor> executor;

	private final Map<Job, JobDefinition> definitions = new ConcurrentHashMap<>();

	/**
	 * Create a template.
	 * @param jobFactory resolves the settings of a job
	 * @param executor supplies the engine, at the first call
	 */
	public DefaultClusterSingletonTemplate(JobDefinitionFactory jobFactory,
			Supplier<ClusterSingletonExecutor> executor) {
		Assert.notNull(jobFactory, "'jobFactory' must not be null");
		Assert.notNull(executor, "'executor' must not be null");
		this.jobFactory = jobFactory;
		this.executor = SingletonSupplier.of(executor);
	}

	@Override
	public boolean runIfAcquired(Job job, Runnable task) {
		Assert.notNull(task, "'task' must not be null");
		return execute(job, () -> {
			task.run();
			return null;
		}, new AtomicReference<>());
	}

	@Override
	public <T> Optional<T> callIfAcquired(Job job, Callable<T> task) throws Exception {
		Assert.notNull(task, "'task' must not be null");
		AtomicReference<@Nullable T> result = new AtomicReference<>();
		try {
			execute(job, task, result);
		}
		catch (TaskException ex) {
			// the task's own checked exception, unchanged
			throw (Exception) ex.getCause();
		}
		return Optional.ofNullable(result.get());
	}

	/**
	 * Start a run of a job whose work is done elsewhere (a coroutine of the Kotlin
	 * template functions of {@code cluster-singleton-kotlin}): take the job's lease now,
	 * on the calling thread, and keep it renewed until the run is finished. A lost lease
	 * or {@code lockAtMostFor} calls the run's canceller.
	 * @param job the job
	 * @return the run, to be {@linkplain ReactiveRun#finish finished} when the work ends,
	 * or {@code null} when this node did not get the lease
	 * @since 0.1.0
	 */
	public @Nullable ReactiveRun startRun(Job job) {
		Assert.notNull(job, "'job' must not be null");
		ClusterSingletonExecutor executor = this.executor.obtain();
		JobDefinition definition = definition(job, executor);
		if (!prepared(job, executor)) {
			return null;
		}
		return executor.startReactive(definition, job.getSlot(), RunTrigger.DIRECT);
	}

	private <T> boolean execute(Job job, Callable<T> task, AtomicReference<@Nullable T> result) {
		Assert.notNull(job, "'job' must not be null");
		ClusterSingletonExecutor executor = this.executor.obtain();
		JobDefinition definition = definition(job, executor);
		if (!prepared(job, executor)) {
			return false;
		}
		try {
			return executor.execute(definition, job.getSlot(), () -> {
				T value = task.call();
				result.set(value);
				return value;
			});
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new TaskException(ex);
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static boolean prepared(Job job, ClusterSingletonExecutor executor) {
		try {
			executor.initializeBackend();
			return true;
		}
		catch (ClusterSingletonConfigurationException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton skipped job '" + job.getName() + "': the " + executor.getBackend().id()
					+ " lease store could not be prepared; the next call tries again: " + ex);
			return false;
		}
	}

	private JobDefinition definition(Job job, ClusterSingletonExecutor executor) {
		Job settings = (job.getSlot() != null) ? withoutSlot(job) : job;
		return this.definitions.computeIfAbsent(settings, (key) -> {
			try {
				executor.getBackend().validateJobName(key.getName());
			}
			catch (IllegalArgumentException ex) {
				throw new ClusterSingletonConfigurationException(
						"Invalid cluster-singleton job '" + key.getName() + "' (" + SOURCE + "): the "
								+ executor.getBackend().id() + " lease store cannot hold this name: " + ex.getMessage(),
						ex);
			}
			return this.jobFactory.create(key.getName(), key.getLockAtMostFor(), key.getLockAtLeastFor(), SOURCE);
		});
	}

	private static Job withoutSlot(Job job) {
		Job copy = ClusterSingletonTemplate.job(job.getName());
		if (job.getLockAtMostFor() != null) {
			copy = copy.lockAtMostFor(job.getLockAtMostFor());
		}
		if (job.getLockAtLeastFor() != null) {
			copy = copy.lockAtLeastFor(job.getLockAtLeastFor());
		}
		return copy;
	}

	/**
	 * Carries a checked exception of a task through the engine.
	 */
	static final class TaskException extends RuntimeException {

		TaskException(Throwable cause) {
			super(cause);
		}

	}

}
