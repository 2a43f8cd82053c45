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

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.ClusterSingletonTemplate;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * {@link ClusterSingletonTemplate} in applications with no annotated job, on H2 and on a
 * PostgreSQL database shared by two nodes.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonTemplateTests {

	private final String prefix = "template-" + UUID.randomUUID().toString().substring(0, 8) + "-";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class));

	private ApplicationContextRunner postgresNode(String owner) {
		return this.contextRunner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + TestStores.postgresUrl(),
					"cluster-singleton.jdbc.initialize-schema=always", "cluster-singleton.owner-id=" + owner);
	}

	@Test
	void templateWorksWithoutAnyAnnotatedJobAndCreatesTheTable() {
		this.contextRunner.with(h2()).run((context) -> {
			ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
			AtomicReference<ClusterSingletonContext> seen = new AtomicReference<>();
			assertThat(
					template.runIfAcquired(this.prefix + "import", () -> seen.set(ClusterSingletonContext.current())))
				.isTrue();
			assertThat(seen.get().jobName()).isEqualTo(this.prefix + "import");
			assertThat(seen.get().fencingToken()).isPositive();
			assertThat(seen.get().slot()).isEmpty();
			assertThat(template.callIfAcquired(this.prefix + "report", () -> "built")).contains("built");
		});
	}

	@Test
	void aJobHeldByAnotherNodeIsSkippedWithoutRunning() {
		postgresNode("node-a").run((a) -> postgresNode("node-b").run((b) -> {
			ClusterSingletonTemplate templateA = a.getBean(ClusterSingletonTemplate.class);
			ClusterSingletonTemplate templateB = b.getBean(ClusterSingletonTemplate.class);
			String job = this.prefix + "held";
			CountDownLatch inside = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Thread holder = new Thread(() -> templateA.runIfAcquired(job, () -> {
				inside.countDown();
				awaitQuietly(release);
			}));
			holder.start();
			assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(templateB.callIfAcquired(job, () -> "ran on b")).isEmpty();
			release.countDown();
			holder.join(10_000);
			assertThat(templateB.callIfAcquired(job, () -> "ran on b")).contains("ran on b");
		}));
	}

	@Test
	void aSlotRunsOnceAcrossNodes() throws Exception {
		postgresNode("node-a").run((a) -> postgresNode("node-b").run((b) -> {
			Instant slot = Instant.now().truncatedTo(ChronoUnit.SECONDS);
			ClusterSingletonTemplate.Job job = ClusterSingletonTemplate.job(this.prefix + "batch").slot(slot);
			AtomicReference<Optional<Instant>> seen = new AtomicReference<>();
			assertThat(a.getBean(ClusterSingletonTemplate.class)
				.runIfAcquired(job, () -> seen.set(ClusterSingletonContext.current().slot()))).isTrue();
			assertThat(seen.get()).contains(slot);
			assertThat(b.getBean(ClusterSingletonTemplate.class).runIfAcquired(job, () -> {
			})).isFalse();
		}));
	}

	@Test
	void lockAtLeastForSetInCodeKeepsTheLeaseAndPropertiesWin() {
		postgresNode("node-a").withPropertyValues("cluster-singleton.jobs[" + this.prefix + "off].enabled=false")
			.run((a) -> {
				ClusterSingletonTemplate template = a.getBean(ClusterSingletonTemplate.class);
				ClusterSingletonTemplate.Job kept = ClusterSingletonTemplate.job(this.prefix + "kept")
					.lockAtLeastFor(Duration.ofMinutes(1));
				assertThat(template.runIfAcquired(kept, () -> {
				})).isTrue();
				assertThat(template.runIfAcquired(kept, () -> {
				})).isFalse();
				assertThat(template.runIfAcquired(this.prefix + "off", () -> {
				})).isFalse();
			});
	}

	@Test
	void theTasksExceptionsPropagateUnchanged() {
		this.contextRunner.with(h2()).run((context) -> {
			ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
			assertThatIOException().isThrownBy(() -> template.callIfAcquired(this.prefix + "failing", () -> {
				throw new IOException("disk full");
			})).withMessage("disk full");
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> template.runIfAcquired(this.prefix + "failing", () -> {
					throw new IllegalStateException("bad input");
				}))
				.withMessage("bad input");
		});
	}

	@Test
	void invalidSettingsNameTheJobAndTheSetting() {
		this.contextRunner.with(h2()).withPropertyValues("cluster-singleton.lease-ttl=30s").run((context) -> {
			ClusterSingletonTemplate template = context.getBean(ClusterSingletonTemplate.class);
			assertThatExceptionOfType(ClusterSingletonConfigurationException.class)
				.isThrownBy(() -> template.runIfAcquired(
						ClusterSingletonTemplate.job(this.prefix + "short").lockAtMostFor(Duration.ofSeconds(10)),
						() -> {
						}))
				.withMessageContaining(this.prefix + "short")
				.withMessageContaining("Job.lockAtMostFor")
				.withMessageContaining("cluster-singleton.lease-ttl");
			assertThatExceptionOfType(ClusterSingletonConfigurationException.class)
				.isThrownBy(() -> template.runIfAcquired("x".repeat(201), () -> {
				}))
				.withMessageContaining("cannot hold this name");
		});
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
