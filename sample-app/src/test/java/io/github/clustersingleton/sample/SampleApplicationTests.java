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

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import org.junit.jupiter.api.Test;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Boots the demo against a private in-memory H2 database, with schedules shortened so
 * that every job runs within a few seconds.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:sample-${random.uuid};DB_CLOSE_DELAY=-1",
				"cluster-singleton.lease-ttl=2s", "demo.report-cron=* * * * * *", "demo.cleanup-delay=500ms",
				"demo.export-cron=* * * * * *", "demo.export-steps=5", "demo.export-step=1s",
				"demo.billing-cron=*/2 * * * * *", "demo.billing-duration=200ms",
				// long-export runs 5 s on a 1 s cron: two periods without a success is
				// normal
				"cluster-singleton.jobs.long-export.alert-after=1m" })
class SampleApplicationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(12);

	@Autowired
	private RunLog runLog;

	@Autowired
	private JdbcLeaseBackend leaseBackend;

	@Autowired
	private ClusterSingletonExecutor executor;

	@Autowired
	private ApplicationContext context;

	@LocalServerPort
	private int port;

	@Test
	void defaultProfileUsesTheJdbcBackendWithFabric8OnTheClassPath() {
		// the demo carries the fabric8 client for its 'kubernetes' profile; without a
		// KubernetesClient bean it must not compete with the H2 DataSource
		assertThat(ClassUtils.isPresent("io.fabric8.kubernetes.client.KubernetesClient", null)).isTrue();
		assertThat(this.context.getBeanNamesForType(KubernetesClient.class)).isEmpty();
		assertThat(this.executor.getBackend().id()).isEqualTo("jdbc");
		assertThat(this.executor.getBackend()).isSameAs(this.leaseBackend);
	}

	@Test
	void dashboardIsServedAndFindsTheEndpoint() {
		RestClient client = RestClient.create("http://localhost:" + this.port);
		String page = client.get().uri("/cluster-singleton/").retrieve().body(String.class);
		assertThat(page).contains("data-endpoint=\"/actuator/clustersingleton\"").contains("assets/dashboard.js");
		assertThat(client.get().uri("/cluster-singleton/assets/dashboard.js").retrieve().body(String.class))
			.contains("clustersingleton");
	}

	@Test
	void contextComesFromTheAotProcessingWhenAotIsEnabled() {
		// the build runs these tests twice: as they are, and with spring.aot.enabled=true
		// on the contexts that spring-boot:process-test-aot generated; those register
		// their bean definitions from generated code, without parsing configuration
		// classes
		boolean aot = Boolean.getBoolean("spring.aot.enabled");
		assertThat(AotDetector.useGeneratedArtifacts()).isEqualTo(aot);
		assertThat(this.context.containsBean(AnnotationConfigUtils.CONFIGURATION_ANNOTATION_PROCESSOR_BEAN_NAME))
			.isNotEqualTo(aot);
	}

	@Test
	void reportRunsOncePerSlotWithIncreasingFencingTokens() {
		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(this.runLog.runs("report")).hasSizeGreaterThanOrEqualTo(2));
		List<RunLog.Run> runs = this.runLog.runs("report");
		assertThat(runs).allSatisfy((run) -> assertThat(run.slot()).isNotNull());
		assertThat(runs).extracting(RunLog.Run::slot).doesNotHaveDuplicates();
		for (int i = 1; i < runs.size(); i++) {
			assertThat(runs.get(i).fencingToken()).isGreaterThan(runs.get(i - 1).fencingToken());
			assertThat(runs.get(i).slot()).isAfter(runs.get(i - 1).slot());
		}
		LeaseInfo lease = this.leaseBackend.describe("report").orElseThrow();
		assertThat(lease.fencingToken()).isGreaterThanOrEqualTo(2);
		assertThat(lease.lastSlot()).isNotNull();
	}

	@Test
	void cleanupRunsWithoutSlot() {
		await().atMost(TIMEOUT).untilAsserted(() -> assertThat(this.runLog.runs("cleanup")).isNotEmpty());
		assertThat(this.runLog.runs("cleanup")).allSatisfy((run) -> assertThat(run.slot()).isNull());
	}

	@Test
	void longExportOutlivesTheLeaseTtlThanksToTheWatchdog() {
		await().atMost(TIMEOUT).untilAsserted(() -> assertThat(this.runLog.runs("long-export")).isNotEmpty());
		RunLog.Run run = this.runLog.runs("long-export").get(0);
		// 5 steps of 1 s with a 2 s TTL: without renewals the lease would have expired
		assertThat(run.duration()).isGreaterThan(Duration.ofSeconds(4));
		assertThat(run.leaseValid()).isTrue();
		assertThat(run.slot()).isNotNull().isBefore(Instant.now());
	}

	@Test
	void billingAndReportCarryTheirPoliciesFromTheConfiguration() {
		JobDefinition billing = this.executor.registeredJobs()
			.stream()
			.filter((job) -> job.name().equals("billing"))
			.findFirst()
			.orElseThrow();
		assertThat(billing.policies().recovery()).isEqualTo(RecoveryPolicy.LOST);
		JobDefinition report = this.executor.registeredJobs()
			.stream()
			.filter((job) -> job.name().equals("report"))
			.findFirst()
			.orElseThrow();
		assertThat(report.policies().misfire()).isEqualTo(MisfirePolicy.RUN_ONCE);
		await().atMost(TIMEOUT).untilAsserted(() -> assertThat(this.runLog.runs("billing")).isNotEmpty());
	}

	@Test
	void actuatorShowsTheClusterWideHistoryAndTheJobsHealth() {
		RestClient client = RestClient.create("http://localhost:" + this.port);
		await().atMost(TIMEOUT).untilAsserted(() -> {
			String job = client.get().uri("/actuator/clustersingleton/report").retrieve().body(String.class);
			assertThat(job).contains("\"history\":[{", "\"state\":\"succeeded\"", "\"misfire\":\"run-once\"",
					"\"overdue\":false");
		});
		String health = client.get().uri("/actuator/health/clusterSingletonJobs").retrieve().body(String.class);
		assertThat(health).contains("\"status\":\"UP\"");
	}

	@Test
	void actuatorShowsTheJobsAndTheLeaseStore() {
		RestClient client = RestClient.create("http://localhost:" + this.port);
		await().atMost(TIMEOUT).untilAsserted(() -> assertThat(this.runLog.runs("report")).isNotEmpty());
		String jobs = client.get().uri("/actuator/clustersingleton").retrieve().body(String.class);
		assertThat(jobs).contains("\"backend\":\"jdbc\"", "\"report\"", "\"cleanup\"", "\"long-export\"");
		String health = client.get().uri("/actuator/health/clusterSingleton").retrieve().body(String.class);
		assertThat(health).contains("\"status\":\"UP\"");
		String acquire = client.get().uri("/actuator/metrics/cluster.singleton.acquire").retrieve().body(String.class);
		assertThat(acquire).contains("\"name\":\"cluster.singleton.acquire\"");
	}

}
