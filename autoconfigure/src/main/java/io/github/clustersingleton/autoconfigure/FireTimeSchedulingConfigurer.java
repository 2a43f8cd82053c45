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

import io.github.clustersingleton.lease.ScheduledFireTime;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Decorates the task scheduler that runs {@code @Scheduled} methods with
 * {@link ScheduledFireTime}, so that each cron run knows the fire time its trigger meant
 * and a late run keeps its slot. It finds the scheduler the way Spring's
 * {@code ScheduledAnnotationBeanPostProcessor} does (one set by another
 * {@link SchedulingConfigurer}, else the unique or primary {@link TaskScheduler} bean,
 * else the one named {@code taskScheduler}: Boot's auto-configured
 * {@code ThreadPoolTaskScheduler} or, with virtual threads,
 * {@code SimpleAsyncTaskScheduler}). An application scheduled only through a
 * {@code ScheduledExecutorService} keeps it undecorated; its slots then come from each
 * run's start time.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class FireTimeSchedulingConfigurer implements SchedulingConfigurer, Ordered {

	/**
	 * The bean name Spring's scheduling looks for when several schedulers exist.
	 */
	private static final String DEFAULT_SCHEDULER_BEAN_NAME = "taskScheduler";

	private final ListableBeanFactory beanFactory;

	FireTimeSchedulingConfigurer(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public int getOrder() {
		// after the application's configurers, which may set a scheduler of their own
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		TaskScheduler scheduler = registrar.getScheduler();
		if (scheduler == null) {
			scheduler = findScheduler();
		}
		if (scheduler != null && !(scheduler instanceof ScheduledFireTime)) {
			registrar.setTaskScheduler(new ScheduledFireTime(scheduler, new JobCronSwitch(this.beanFactory)));
		}
	}

	private @Nullable TaskScheduler findScheduler() {
		TaskScheduler unique = this.beanFactory.getBeanProvider(TaskScheduler.class).getIfUnique();
		if (unique != null) {
			return unique;
		}
		String name = DEFAULT_SCHEDULER_BEAN_NAME;
		if (this.beanFactory.containsBean(name) && this.beanFactory.isTypeMatch(name, TaskScheduler.class)) {
			return this.beanFactory.getBean(name, TaskScheduler.class);
		}
		return null;
	}

}
