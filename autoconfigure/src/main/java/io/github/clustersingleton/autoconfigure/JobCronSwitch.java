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
package io.github.clustersingleton.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.ScheduledFireTime;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.util.function.SingletonSupplier;

/**
 * Lets the cron tasks of guarded jobs follow the jobs' cluster-wide cron overrides: tells
 * {@link ScheduledFireTime} which job a task runs (by the scheduled method the task
 * describes) and the trigger the job follows now.
 *
 * @author cluster-singleton contributors
 */
final class JobCronSwitch implements ScheduledFireTime.CronSwitch {

	private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

	private final AtomicBoolean subscribed = new AtomicBoolean();

	/** The engine, once the context has it: looked up at every fire time otherwise. */
	private final SingletonSupplier<ClusterSingletonExecutor> executor;

	/** The registry, once the context has it. */
	private final SingletonSupplier<JobRegistry> registry;

	JobCronSwitch(ListableBeanFactory beanFactory) {
		this.executor = SingletonSupplier
			.of(() -> beanFactory.getBeanProvider(ClusterSingletonExecutor.class).getIfAvailable());
		this.registry = SingletonSupplier.of(() -> beanFactory.getBeanProvider(JobRegistry.class).getIfAvailable());
	}

	@Override
	public @Nullable String jobOf(Runnable task, Trigger trigger) {
		if (!(trigger instanceof CronTrigger)) {
			return null;
		}
		JobRegistry registry = this.registry.get();
		if (registry == null) {
			return null;
		}
		JobDefinition job = registry.forScheduledTask(task);
		CronSlotSchedule schedule = (job != null) ? job.schedule() : null;
		if (job == null || schedule == null || schedule.size() != 1) {
			return null;
		}
		ClusterSingletonExecutor executor = this.executor.get();
		if (executor == null) {
			return null;
		}
		if (this.subscribed.compareAndSet(false, true)) {
			executor.cronOverrides().addListener((name) -> this.listeners.forEach((listener) -> listener.accept(name)));
		}
		return job.name();
	}

	@Override
	public @Nullable Trigger triggerOf(String jobName) {
		// asked at every fire time of every guarded cron task: the override first, a map
		// read, and the beans only when there is one
		ClusterSingletonExecutor executor = this.executor.get();
		String expression = (executor != null) ? executor.cronOverrides().expression(jobName) : null;
		if (expression == null) {
			return null;
		}
		JobRegistry registry = this.registry.get();
		CronSlotSchedule schedule = (registry != null)
				? registry.forName(jobName).map(JobDefinition::schedule).orElse(null) : null;
		return (schedule != null) ? new CronTrigger(expression, schedule.zone()) : null;
	}

	@Override
	public boolean defers(String jobName, Instant fireTime) {
		// asked at every fire time of every guarded cron task, as triggerOf is
		ClusterSingletonExecutor executor = this.executor.get();
		JobRegistry registry = this.registry.get();
		if (executor == null || registry == null) {
			return false;
		}
		JobDefinition job = registry.forName(jobName).orElse(null);
		return job != null && executor.defersTrigger(job, fireTime);
	}

	@Override
	public boolean skip(String jobName, Instant fireTime) {
		ClusterSingletonExecutor executor = this.executor.get();
		JobRegistry registry = this.registry.get();
		// only a job whose triggers were seen to reach the guard first: behind other
		// advice (@Async, say) the guard makes the call a direct one, not routed
		if (executor == null || registry == null || !registry.isTriggeredThroughGuard(jobName)) {
			return false;
		}
		JobDefinition job = registry.forName(jobName).orElse(null);
		return job != null && executor.skipTrigger(job, fireTime);
	}

	@Override
	public void dropped(String jobName, Instant fireTime) {
		ClusterSingletonExecutor executor = this.executor.get();
		if (executor != null) {
			executor.triggerDropped(jobName, fireTime);
		}
	}

	@Override
	public Duration deferral() {
		ClusterSingletonExecutor executor = this.executor.get();
		return (executor != null) ? executor.triggerDeferral() : ScheduledFireTime.CronSwitch.super.deferral();
	}

	@Override
	public void addListener(Consumer<String> listener) {
		this.listeners.add(listener);
	}

}
