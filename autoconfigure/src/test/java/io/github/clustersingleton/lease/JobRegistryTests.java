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
import java.time.Duration;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JobRegistry}.
 *
 * @author cluster-singleton contributors
 */
class JobRegistryTests {

	@Test
	void aScheduledTaskRunsTheJobOfTheMethodWithoutParametersWhateverTheOrderOfRegistration() throws Exception {
		Method scheduled = Jobs.class.getMethod("sync");
		Method overload = Jobs.class.getMethod("sync", String.class);
		Runnable task = named(Jobs.class.getName() + ".sync");
		for (boolean overloadFirst : new boolean[] { true, false }) {
			JobRegistry registry = new JobRegistry();
			JobDefinition cron = JobDefinition.of("sync", Duration.ofMinutes(1), Duration.ZERO)
				.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC));
			JobDefinition direct = JobDefinition.of("sync-one", Duration.ofMinutes(1), Duration.ZERO);
			if (overloadFirst) {
				registry.register(overload, direct);
			}
			registry.register(scheduled, cron);
			if (!overloadFirst) {
				registry.register(overload, direct);
			}
			assertThat(registry.forScheduledTask(task)).as("overload registered first: %s", overloadFirst)
				.isSameAs(cron);
		}
	}

	@Test
	void aReactiveTaskNamedAfterTheJobsProxyRunsTheJob() throws Exception {
		Method scheduled = Jobs.class.getMethod("sync");
		JobRegistry registry = new JobRegistry();
		JobDefinition cron = JobDefinition.of("sync", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC));
		registry.register(scheduled, cron);
		// Spring names the task of a reactive or suspending method after the bean's
		// class: a subclass here, as the proxy is
		Jobs proxy = new Jobs() {
		};
		Runnable task = named(proxy.getClass().getName() + ".sync");
		assertThat(registry.forScheduledTask(task)).as("before the proxy is known").isNull();
		registry.registerTarget(scheduled, proxy);
		assertThat(registry.forScheduledTask(task)).isSameAs(cron);
	}

	@Test
	void everyBeanOfAJobNamesItsTaskWhateverItsProxyClass() throws Exception {
		Method scheduled = Jobs.class.getMethod("sync");
		JobRegistry registry = new JobRegistry();
		JobDefinition cron = JobDefinition.of("sync", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC));
		registry.register(scheduled, cron);
		// a bean of the class and one of a subclass: two proxy classes, one job
		Jobs first = new Jobs() {
		};
		Jobs second = new Jobs() {
		};
		registry.registerTarget(scheduled, first);
		registry.registerTarget(scheduled, second);
		assertThat(registry.forScheduledTask(named(first.getClass().getName() + ".sync"))).isSameAs(cron);
		assertThat(registry.forScheduledTask(named(second.getClass().getName() + ".sync"))).isSameAs(cron);
	}

	@Test
	void aTaskNamedAfterAJdkProxyRunsNoKnownJob() throws Exception {
		JobRegistry registry = new JobRegistry();
		JobDefinition a = JobDefinition.of("a", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC));
		JobDefinition b = JobDefinition.of("b", Duration.ofMinutes(1), Duration.ZERO)
			.withSchedule(CronSlotSchedule.of("0 * * * * *", ZoneOffset.UTC));
		Method runA = TickA.class.getMethod("run");
		Method runB = TickB.class.getMethod("run");
		registry.register(runA, a);
		registry.register(runB, b);
		// the JDK proxies of two beans with the same interfaces share one class
		Object proxyA = jdkProxy();
		Object proxyB = jdkProxy();
		assertThat(proxyA.getClass()).isSameAs(proxyB.getClass());
		registry.registerTarget(runA, proxyA);
		registry.registerTarget(runB, proxyB);
		assertThat(registry.forScheduledTask(named(proxyA.getClass().getName() + ".run"))).isNull();
		assertThat(registry.target("b")).map(JobRegistry.Target::bean).containsSame(proxyB);
	}

	private static Object jdkProxy() {
		return Proxy.newProxyInstance(JobRegistryTests.class.getClassLoader(), new Class<?>[] { Tick.class },
				(proxy, method, args) -> null);
	}

	private static Runnable named(String description) {
		return new Runnable() {

			@Override
			public void run() {
			}

			@Override
			public String toString() {
				return description;
			}

		};
	}

	public interface Tick {

		void run();

	}

	public static class TickA implements Tick {

		@Override
		public void run() {
		}

	}

	public static class TickB implements Tick {

		@Override
		public void run() {
		}

	}

	public static class Jobs {

		public void sync() {
		}

		public void sync(String which) {
		}

	}

}
