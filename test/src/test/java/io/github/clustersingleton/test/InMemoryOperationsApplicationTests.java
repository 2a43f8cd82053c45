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

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.ClusterSingletonControlEvent;
import io.github.clustersingleton.ClusterSingletonControlEvent.Action;
import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.aop.DefaultClusterSingletonOperations;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.LeaseBackendDecorator;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The {@link ClusterSingletonOperations} bean of an application on the in-memory backend:
 * input checks, principals, events, and run-now and reschedule picked up by the
 * application's own scheduler.
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(OutputCaptureExtension.class)
class InMemoryOperationsApplicationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				InMemoryLeaseAutoConfiguration.class, TaskSchedulingAutoConfiguration.class))
		.withPropertyValues("cluster-singleton.backend=in-memory", "cluster-singleton.owner-id=node-a",
				"cluster-singleton.lease-ttl=1s")
		.withUserConfiguration(JobsConfiguration.class);

	@Test
	void runNowRunsTheJobOnceWithTriggerManualAndReadsItsStateBack(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			ClusterSingletonOperations operations = context.getBean(ClusterSingletonOperations.class);
			Jobs jobs = context.getBean(Jobs.class);
			String id = operations.runNow("nightly");
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(operations.manualRun("nightly", id)).get()
					.extracting(ManualRun::state)
					.isEqualTo(ManualRun.State.SUCCEEDED));
			assertThat(jobs.triggers()).containsExactly(RunTrigger.MANUAL);
			assertThat(operations.manualRun("nightly", id)).get().satisfies((run) -> {
				assertThat(run.requestedBy()).isEqualTo("node-a");
				assertThat(run.owner()).isEqualTo("node-a");
			});
			assertThat(context.getBean(Events.class).events).singleElement().satisfies((event) -> {
				assertThat(event.getAction()).isEqualTo(Action.RUN_NOW);
				assertThat(event.getJobName()).isEqualTo("nightly");
				assertThat(event.getDetail()).isEqualTo(id);
			});
			assertThat(output).contains("cluster-singleton: node-a asked for a run of job 'nightly' now");
		});
	}

	@Test
	void pauseAndResumeNameThePrincipalAndPublishEvents() {
		this.contextRunner.run((context) -> {
			DefaultClusterSingletonOperations operations = context.getBean(DefaultClusterSingletonOperations.class);
			operations.pause("nightly", "incident 7", "carol");
			assertThat(operations.controls("nightly")).satisfies((control) -> {
				assertThat(control.paused()).isTrue();
				assertThat(control.pausedBy()).isEqualTo("carol");
				assertThat(control.pauseReason()).isEqualTo("incident 7");
				assertThat(control.pausedAt()).isNotNull();
			});
			operations.resume("nightly", false);
			assertThat(operations.controls("nightly").paused()).isFalse();
			operations.pauseAll(null);
			assertThat(operations.controls("nightly").pausedBy()).isEqualTo("node-a");
			operations.resumeAll(true);
			assertThat(context.getBean(Events.class).events)
				.extracting(ClusterSingletonControlEvent::getAction, ClusterSingletonControlEvent::getJobName,
						ClusterSingletonControlEvent::getPrincipal)
				.containsExactly(org.assertj.core.groups.Tuple.tuple(Action.PAUSE, "nightly", "carol"),
						org.assertj.core.groups.Tuple.tuple(Action.RESUME, "nightly", "node-a"),
						org.assertj.core.groups.Tuple.tuple(Action.PAUSE, null, "node-a"),
						org.assertj.core.groups.Tuple.tuple(Action.RESUME, null, "node-a"));
		});
	}

	@Test
	@Tag("slow")
	void rescheduleMovesTheTriggerAndClearingRestoresIt() {
		this.contextRunner.run((context) -> {
			ClusterSingletonOperations operations = context.getBean(ClusterSingletonOperations.class);
			ClusterSingletonExecutor executor = context.getBean(ClusterSingletonExecutor.class);
			Jobs jobs = context.getBean(Jobs.class);
			// the annotation's schedule fires once a year; every second from now on
			operations.reschedule("nightly", "* * * * * *");
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(jobs.triggers()).contains(RunTrigger.SCHEDULED));
			operations.clearSchedule("nightly");
			await().atMost(Duration.ofSeconds(5)).until(() -> executor.cronOverrides().expression("nightly") == null);
			int runs = jobs.triggers().size();
			await().during(Duration.ofMillis(1200))
				.atMost(Duration.ofSeconds(3))
				.until(() -> jobs.triggers().size() <= runs + 1);
			assertThat(context.getBean(Events.class).events).extracting(ClusterSingletonControlEvent::getAction)
				.containsExactly(Action.RESCHEDULE, Action.CLEAR_SCHEDULE);
		});
	}

	@Test
	void badInputIsRefusedNamingTheJobAndNothingIsStored() {
		this.contextRunner.run((context) -> {
			ClusterSingletonOperations operations = context.getBean(ClusterSingletonOperations.class);
			assertThatIllegalArgumentException().isThrownBy(() -> operations.reschedule("nightly", "0 0 25 * * *"))
				.withMessageContaining("'0 0 25 * * *'")
				.withMessageContaining("job 'nightly'");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.pause("nope", null))
				.withMessage("No cluster-singleton job named 'nope'");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.runNow("export"))
				.withMessageContaining("Job 'export' cannot be run now")
				.withMessageContaining("no @Scheduled method");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.reschedule("export", "0 * * * * *"))
				.withMessageContaining("Job 'export' cannot be rescheduled");
			assertThat(operations.controls("nightly").cronOverride()).isNull();
			assertThat(context.getBean(Events.class).events).isEmpty();
		});
	}

	@Test
	void storeWithoutControlsIsRefused() {
		this.contextRunner
			.withBean(LeaseBackendDecorator.class, () -> InMemoryOperationsApplicationTests::withoutControls)
			.run((context) -> {
				ClusterSingletonOperations operations = context.getBean(ClusterSingletonOperations.class);
				assertThatExceptionOfType(UnsupportedOperationException.class)
					.isThrownBy(() -> operations.pause("nightly", null))
					.withMessageContaining("The in-memory lease backend keeps no cluster-wide controls");
			});
	}

	@Test
	void unreachableStoreFailsTheActionWithoutAnEvent() {
		this.contextRunner.run((context) -> {
			ClusterSingletonOperations operations = context.getBean(ClusterSingletonOperations.class);
			InMemoryLeaseBackend store = context.getBean(InMemoryLeaseBackend.class);
			store.setReachable(false);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> operations.pause("nightly", null));
			store.setReachable(true);
			assertThat(operations.controls("nightly").paused()).isFalse();
			assertThat(context.getBean(Events.class).events).isEmpty();
		});
	}

	private static LeaseBackend withoutControls(LeaseBackend real) {
		return (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("controls")) {
						return Optional.empty();
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

		@Bean
		Events events() {
			return new Events();
		}

	}

	static class Jobs {

		private final List<RunTrigger> triggers = new CopyOnWriteArrayList<>();

		List<RunTrigger> triggers() {
			return this.triggers;
		}

		@ClusterSingleton(name = "nightly")
		@Scheduled(cron = "0 0 3 1 1 *", zone = "UTC")
		public void nightly() {
			this.triggers.add(ClusterSingletonContext.current().trigger());
		}

		@ClusterSingleton(name = "export")
		public void export() {
		}

	}

	static class Events implements ApplicationListener<ClusterSingletonControlEvent> {

		final List<ClusterSingletonControlEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(ClusterSingletonControlEvent event) {
			this.events.add(event);
		}

	}

}
