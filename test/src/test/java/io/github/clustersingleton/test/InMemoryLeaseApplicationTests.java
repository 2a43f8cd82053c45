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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.ClusterSingletonTemplate;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * An application's guarded job and {@link ClusterSingletonTemplate} on the in-memory
 * backend, as a slice test of an application would run them: the application's
 * {@link Clock} bean is the store's time, so the test moves it instead of waiting.
 *
 * @author cluster-singleton contributors
 */
class InMemoryLeaseApplicationTests {

	private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

	private final MutableClock clock = new MutableClock(START);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, InMemoryLeaseAutoConfiguration.class))
		.withPropertyValues("cluster-singleton.backend=in-memory", "cluster-singleton.owner-id=node-a")
		.withBean(Clock.class, () -> this.clock)
		.withUserConfiguration(ReportJobConfiguration.class);

	@Test
	void aRunSeesItsContext() {
		this.contextRunner.run((context) -> {
			ReportJob job = context.getBean(ReportJob.class);
			job.report();
			job.report();
			assertThat(job.runs()).hasSize(2).allSatisfy((run) -> {
				assertThat(run.jobName()).isEqualTo("report");
				assertThat(run.slot()).isEmpty();
				assertThat(run.leaseValid()).isTrue();
			});
			assertThat(job.runs().get(1).fencingToken()).isGreaterThan(job.runs().get(0).fencingToken());
			assertThat(context.getBean(InMemoryLeaseBackend.class).describe("report")).get().satisfies((info) -> {
				assertThat(info.holder()).isEqualTo("node-a");
				assertThat(info.fencingToken()).isEqualTo(job.runs().get(1).fencingToken());
				assertThat(info.live()).as("released at the end of the run").isFalse();
			});
		});
	}

	@Test
	void aLeaseHeldElsewhereMakesTheCallSkipUntilItExpires() {
		this.contextRunner.run((context) -> {
			ReportJob job = context.getBean(ReportJob.class);
			InMemoryLeaseBackend store = context.getBean(InMemoryLeaseBackend.class);
			ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
			// another node holds the lease for 30 s of the store's time
			assertThat(store
				.tryAcquire(new LeaseRequest("report", "node-b", "lease-of-node-b", Duration.ofSeconds(30), null))
				.isAcquired()).isTrue();
			job.report();
			assertThat(job.runs()).isEmpty();
			assertThat(template.runIfAcquired("report", () -> {
				throw new AssertionError("must not run");
			})).isFalse();
			this.clock.advance(Duration.ofSeconds(30));
			job.report();
			assertThat(job.runs()).singleElement().extracting(Run::fencingToken).isEqualTo(2L);
		});
	}

	@Test
	void aSecondCallWhileTheFirstRunsIsSkipped() {
		this.contextRunner.run((context) -> {
			ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
			AtomicReference<Boolean> nested = new AtomicReference<>();
			AtomicBoolean nestedRan = new AtomicBoolean();
			assertThat(template.runIfAcquired("export",
					() -> nested.set(template.runIfAcquired("export", () -> nestedRan.set(true)))))
				.isTrue();
			assertThat(nested.get()).isFalse();
			assertThat(nestedRan).isFalse();
		});
	}

	@Test
	void lockAtLeastForKeepsTheLeaseUntilTheStoreClockPassesIt() {
		this.contextRunner.run((context) -> {
			ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
			ClusterSingletonTemplate.Job job = ClusterSingletonTemplate.job("export")
				.lockAtLeastFor(Duration.ofMinutes(10));
			assertThat(template.runIfAcquired(job, () -> {
			})).isTrue();
			assertThat(template.runIfAcquired(job, () -> {
			})).isFalse();
			assertThat(context.getBean(InMemoryLeaseBackend.class).describe("export")).get()
				.extracting(LeaseInfo::expiresAt)
				.isEqualTo(START.plus(Duration.ofMinutes(10)));
			this.clock.advance(Duration.ofMinutes(10));
			assertThat(template.runIfAcquired(job, () -> {
			})).isTrue();
		});
	}

	@Test
	void aSlotRunsOnceAndASlotAheadOfTheStoreClockWaitsForIt() {
		this.contextRunner.run((context) -> {
			ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
			ClusterSingletonTemplate.Job now = ClusterSingletonTemplate.job("batch").slot(START);
			ClusterSingletonTemplate.Job next = ClusterSingletonTemplate.job("batch").slot(START.plusSeconds(60));
			AtomicReference<Optional<Instant>> slot = new AtomicReference<>();
			assertThat(template.runIfAcquired(now, () -> slot.set(ClusterSingletonContext.current().slot()))).isTrue();
			assertThat(slot.get()).contains(START);
			assertThat(template.runIfAcquired(now, () -> {
			})).as("slot already run").isFalse();
			assertThat(template.runIfAcquired(next, () -> {
			})).as("slot ahead of the store's clock").isFalse();
			this.clock.advance(Duration.ofSeconds(60));
			assertThat(template.runIfAcquired(next, () -> {
			})).isTrue();
		});
	}

	@Test
	void twoContextsGivenOneStoreAreTwoNodes() {
		InMemoryLeaseBackend store = new InMemoryLeaseBackend(this.clock);
		ApplicationContextRunner nodeA = this.contextRunner.withBean(InMemoryLeaseBackend.class, () -> store);
		ApplicationContextRunner nodeB = nodeA.withPropertyValues("cluster-singleton.owner-id=node-b");
		nodeA.run((a) -> nodeB.run((b) -> {
			ClusterSingletonTemplate templateA = a.getBean(ClusterSingletonTemplate.class);
			ClusterSingletonTemplate templateB = b.getBean(ClusterSingletonTemplate.class);
			CountDownLatch running = new CountDownLatch(1);
			CountDownLatch finish = new CountDownLatch(1);
			Thread runOnA = new Thread(() -> templateA.runIfAcquired("import", () -> {
				running.countDown();
				try {
					finish.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}));
			runOnA.start();
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(store.describe("import")).get().extracting(LeaseInfo::holder).isEqualTo("node-a");
			assertThat(templateB.callIfAcquired("import", () -> "ran on b")).isEmpty();
			finish.countDown();
			runOnA.join(10_000);
			assertThat(templateB.callIfAcquired("import", () -> ClusterSingletonContext.current().fencingToken()))
				.contains(2L);
		}));
	}

	@Test
	void theSameJobIsUnitTestedWithoutSpring() {
		ReportJob job = new ReportJob();
		TestClusterSingletonContext.forJob("report").fencingToken(42).run(job::report);
		assertThat(job.runs()).singleElement().extracting(Run::fencingToken).isEqualTo(42L);
		// outside a run, as outside a guarded call, there is no context
		assertThatIllegalStateException().isThrownBy(job::report)
			.withMessageContaining("ClusterSingletonContext.current()");
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportJobConfiguration {

		@Bean
		ReportJob reportJob() {
			return new ReportJob();
		}

	}

	static class ReportJob {

		private final List<Run> runs = new CopyOnWriteArrayList<>();

		@ClusterSingleton(name = "report")
		public void report() {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			this.runs.add(new Run(context.jobName(), context.fencingToken(), context.slot(), context.isLeaseValid()));
		}

		// read through the proxy, which delegates methods, not fields, to the bean
		public List<Run> runs() {
			return this.runs;
		}

	}

	record Run(String jobName, long fencingToken, Optional<Instant> slot, boolean leaseValid) {

	}

}
