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

package io.github.clustersingleton.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.github.clustersingleton.kubernetes.KubernetesLeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Boots the demo with the {@code kubernetes} profile. No API server can run here, so
 * fabric8's client is pointed at an address where nothing listens: the context must still
 * start (an unreachable API server at startup is only logged), choose the Kubernetes
 * backend with a client it built itself, and skip every trigger.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "cluster-singleton.lease-ttl=2s", "demo.report-cron=* * * * * *", "demo.cleanup-delay=500ms",
				"demo.export-cron=0 0 0 1 1 *" })
@ActiveProfiles("kubernetes")
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
class SampleApplicationKubernetesTests {

	private static final String NAMESPACE = "cluster-singleton-sample-test";

	/**
	 * fabric8 reads these when it builds its configuration: no API server, and neither a
	 * developer's kubeconfig nor a pod's service account is looked at.
	 */
	private static final Map<String, String> FABRIC8_PROPERTIES = Map.of("kubernetes.master", "http://127.0.0.1:1",
			"kubernetes.auth.tryKubeConfig", "false", "kubernetes.auth.tryServiceAccount", "false",
			"kubernetes.namespace", NAMESPACE);

	@Autowired
	private ClusterSingletonExecutor executor;

	@Autowired
	private ApplicationContext context;

	@Autowired
	private RunLog runLog;

	@DynamicPropertySource
	static void pointFabric8AtAnUnreachableServer(DynamicPropertyRegistry registry) {
		// called while the context is prepared, before the profile's KubernetesClient is
		// built; fabric8 takes its settings from system properties, not from Spring
		FABRIC8_PROPERTIES.forEach(System::setProperty);
	}

	@AfterAll
	static void clearFabric8Properties() {
		FABRIC8_PROPERTIES.keySet().forEach(System::clearProperty);
	}

	private static Optional<String> podNamespace() throws IOException {
		Path file = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
		return Files.isReadable(file) ? Optional.of(Files.readString(file).strip()) : Optional.empty();
	}

	@Test
	void kubernetesProfileChoosesTheKubernetesBackendAndSkipsWhileTheApiServerIsUnreachable(CapturedOutput output)
			throws IOException {
		assertThat(this.executor.getBackend().id()).isEqualTo("kubernetes");
		KubernetesLeaseBackend backend = (KubernetesLeaseBackend) this.executor.getBackend();
		// namespace left to the default resolution: the client's configured one, unless
		// the tests themselves run in a pod
		assertThat(backend.getNamespace()).isEqualTo(podNamespace().orElse(NAMESPACE));
		assertThat(backend.leaseName("long-export")).isEqualTo("cluster-singleton-long-export");
		assertThat(this.context.getBean(KubernetesClient.class).getMasterUrl()).hasToString("http://127.0.0.1:1/");
		assertThat(this.context.getBeansOfType(DataSource.class)).isEmpty();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(output.getAll()).contains("cluster-singleton skipped job 'report'",
					"the kubernetes lease store could not be reached"));
		assertThat(this.runLog.runs("report")).isEmpty();
		assertThat(this.runLog.runs("cleanup")).isEmpty();
	}

}
