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

package io.github.clustersingleton.autoconfigure.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.kubernetes.KubernetesLeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.causeOf;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link KubernetesLeaseAutoConfiguration}, with fabric8's Kubernetes mock
 * server in CRUD mode behind the application's client.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(Lifecycle.PER_CLASS)
class KubernetesLeaseAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, KubernetesLeaseAutoConfiguration.class));

	private static final Logger MOCK_SERVER_LOGGER = Logger.getLogger("io.fabric8.mockwebserver");

	private KubernetesMockServer server;

	private KubernetesClient client;

	@BeforeAll
	void startMockServer() {
		// the mock server logs every request at INFO through java.util.logging
		MOCK_SERVER_LOGGER.setLevel(Level.WARNING);
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		this.server.init();
		this.client = this.server.createClient();
	}

	@AfterAll
	void stopMockServer() {
		this.client.close();
		this.server.destroy();
	}

	/**
	 * A client for one context, which closes it.
	 */
	private KubernetesClient newClient() {
		return this.server.createClient();
	}

	@Test
	void runWithKubernetesClientShouldCreateBackend() {
		this.contextRunner.withBean(KubernetesClient.class, this::newClient).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(KubernetesLeaseBackend.class);
			KubernetesLeaseBackend backend = context.getBean(KubernetesLeaseBackend.class);
			assertThat(backend.getNamespace()).isEqualTo(this.client.getNamespace());
			assertThat(backend.getLeasePrefix()).isEqualTo(KubernetesLeaseBackend.DEFAULT_LEASE_PREFIX);
			backend.probe();
		});
	}

	@Test
	void runWithNamespaceAndPrefixShouldUseThem() {
		this.contextRunner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("cluster-singleton.kubernetes.namespace=billing",
					"cluster-singleton.kubernetes.lease-prefix=billing-app-")
			.run((context) -> {
				KubernetesLeaseBackend backend = context.getBean(KubernetesLeaseBackend.class);
				assertThat(backend.getNamespace()).isEqualTo("billing");
				assertThat(backend.leaseName("Monthly.Invoice")).isEqualTo("billing-app-monthly-invoice");
			});
	}

	@Test
	void runWithInvalidLeasePrefixShouldFailNamingTheProperty() {
		this.contextRunner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("cluster-singleton.kubernetes.lease-prefix=Billing_")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("cluster-singleton.kubernetes.lease-prefix")
					.hasMessageContaining("'Billing_'");
			});
	}

	@Test
	void runWithoutKubernetesClientShouldNotCreateBackend() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(KubernetesLeaseBackend.class).doesNotHaveBean(KubernetesClient.class);
		});
	}

	@Test
	void runWithKubernetesBackendSelectedAndNoClientShouldBuildOne() {
		this.contextRunner.withPropertyValues("cluster-singleton.backend=kubernetes").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(KubernetesClient.class);
			assertThat(context).hasSingleBean(KubernetesLeaseBackend.class);
		});
	}

	@Test
	void runWithOtherBackendSelectedShouldNotCreateBackend() {
		this.contextRunner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("cluster-singleton.backend=jdbc")
			.run((context) -> assertThat(context).doesNotHaveBean(KubernetesLeaseBackend.class)
				.doesNotHaveBean(KubernetesLeaseProperties.class));
	}

	@Test
	void runWhenDisabledShouldNotCreateBackend() {
		this.contextRunner.withBean(KubernetesClient.class, this::newClient)
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(KubernetesLeaseBackend.class));
	}

	@Test
	void runWithoutFabric8ShouldNotCreateBackend() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.fabric8"))
			.withPropertyValues("cluster-singleton.backend=kubernetes")
			.run((context) -> assertThat(context).doesNotHaveBean(KubernetesLeaseBackend.class));
	}

	@Test
	void runWithJobShouldGuardItWithALease() {
		this.contextRunner.withBean(KubernetesClient.class, this::newClient).withBean(Job.class).run((context) -> {
			assertThat(context).hasNotFailed();
			LeaseBackend chosen = context.getBean(ClusterSingletonExecutor.class).getBackend();
			assertThat(chosen.id()).isEqualTo("kubernetes");
			context.getBean(Job.class).run();
			assertThat(chosen.describe("kubernetes.job")).get().satisfies((info) -> {
				assertThat(info.fencingToken()).isPositive();
				assertThat(info.live()).isFalse();
			});
			assertThat(this.client.leases()
				.inNamespace(this.client.getNamespace())
				.withName("cluster-singleton-kubernetes-job")
				.get()).isNotNull();
		});
	}

	@Test
	void runWithUnreachableApiServerShouldStartAndSkipRuns() {
		this.contextRunner.withBean(KubernetesClient.class, () -> new KubernetesClientBuilder()
			.withConfig(
					new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:1").withNamespace("test").build())
			.build()).withBean(Job.class).run((context) -> {
				assertThat(context).hasNotFailed();
				Job job = context.getBean(Job.class);
				job.run();
				job.run();
				assertThat(job.runs()).isZero();
			});
	}

	@Test
	void runWithJobsSharingALeaseNameShouldFailNamingBoth() {
		this.contextRunner.withBean(KubernetesClient.class, this::newClient)
			.withBean(CollidingJobs.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("'report.daily'")
					.hasMessageContaining("'report_daily'")
					.hasMessageContaining("cluster-singleton-report-daily");
			});
	}

	@Test
	void namespaceIsConfiguredThenServiceAccountThenClientThenDefault(@TempDir Path directory) throws IOException {
		Path file = directory.resolve("namespace");
		assertThat(KubernetesLeaseAutoConfiguration.namespace("configured", file, "client")).isEqualTo("configured");
		assertThat(KubernetesLeaseAutoConfiguration.namespace(null, file, "client")).isEqualTo("client");
		assertThat(KubernetesLeaseAutoConfiguration.namespace(" ", file, null)).isEqualTo("default");
		Files.writeString(file, "pod-namespace\n");
		assertThat(KubernetesLeaseAutoConfiguration.namespace(null, file, "client")).isEqualTo("pod-namespace");
		assertThat(KubernetesLeaseAutoConfiguration.namespace("configured", file, "client")).isEqualTo("configured");
	}

	static class Job {

		private final AtomicInteger runs = new AtomicInteger();

		@ClusterSingleton(name = "kubernetes.job")
		public void run() {
			this.runs.incrementAndGet();
		}

		// a method: a field read through the proxy would be the proxy's own
		public int runs() {
			return this.runs.get();
		}

	}

	static class CollidingJobs {

		@ClusterSingleton(name = "report.daily")
		public void daily() {
		}

		@ClusterSingleton(name = "report_daily")
		public void alsoDaily() {
		}

	}

}
