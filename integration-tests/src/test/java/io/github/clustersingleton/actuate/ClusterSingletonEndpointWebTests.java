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

package io.github.clustersingleton.actuate;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.actuate.WebTestApplication.WebJobs;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterSingletonEndpoint} and the {@code clusterSingleton} health
 * contributor over HTTP, with the endpoint's default (read-only) access.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = WebTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:endpoint-${random.uuid};DB_CLOSE_DELAY=-1",
				"cluster-singleton.backend=jdbc", "cluster-singleton.owner-id=web-node",
				"management.endpoints.web.exposure.include=health,clustersingleton,metrics",
				"management.endpoint.health.show-details=always" })
@AutoConfigureRestTestClient
class ClusterSingletonEndpointWebTests {

	/**
	 * The Redisson starter on the test class path connects when the context starts: to
	 * the test Redis server, not to whatever answers on localhost:6379.
	 */
	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		URI url = URI.create(TestStores.redisUrl());
		registry.add("spring.data.redis.host", url::getHost);
		registry.add("spring.data.redis.port", url::getPort);
	}

	@Autowired
	private RestTestClient client;

	@Autowired
	private WebJobs jobs;

	@Autowired
	private LeaseBackend backend;

	@Test
	void readShowsEveryJob() {
		this.jobs.report();
		this.jobs.stuck();
		AtomicLong leaseToken = new AtomicLong();
		AtomicLong runToken = new AtomicLong();
		byte[] body = this.client.get()
			.uri("/actuator/clustersingleton")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.backend")
			.isEqualTo("jdbc")
			.jsonPath("$.owner")
			.isEqualTo("web-node")
			.jsonPath("$.clockOffset")
			.value(String.class, (offset) -> assertThat(Duration.parse(offset).abs()).isLessThan(Duration.ofSeconds(5)))
			.jsonPath("$.jobs.report.name")
			.isEqualTo("report")
			.jsonPath("$.jobs.report.settings.schedule[0]")
			.isEqualTo("0 0 3 * * * [UTC]")
			.jsonPath("$.jobs.report.settings.lockAtMostFor")
			.isEqualTo("PT10M")
			.jsonPath("$.jobs.report.settings.lockAtLeastFor")
			.isEqualTo("PT0S")
			.jsonPath("$.jobs.report.settings.enabled")
			.isEqualTo(true)
			.jsonPath("$.jobs.report.lease.holder")
			.isEqualTo("web-node")
			.jsonPath("$.jobs.report.lease.live")
			.isEqualTo(false)
			.jsonPath("$.jobs.report.lease.fencingToken")
			.value(Long.class, leaseToken::set)
			.jsonPath("$.jobs.report.lease.expiresAt")
			.isNotEmpty()
			.jsonPath("$.jobs.report.heldByThisNode")
			.isEqualTo(false)
			.jsonPath("$.jobs.report.lastRuns[0].outcome")
			.isEqualTo("success")
			.jsonPath("$.jobs.report.lastRuns[0].fencingToken")
			.value(Long.class, runToken::set)
			.jsonPath("$.jobs.report.lastRuns[0].startedAt")
			.isNotEmpty()
			.jsonPath("$.jobs.report.lastRuns[0].duration")
			.isNotEmpty()
			.jsonPath("$.jobs.stuck.settings.schedule")
			.isEmpty()
			.jsonPath("$.jobs.stuck.settings.lockAtLeastFor")
			.isEqualTo("PT1H")
			.jsonPath("$.jobs.stuck.lease.live")
			.isEqualTo(true)
			.returnResult()
			.getResponseBody();
		assertThat(body).isNotNull();
		// the last run here is the last acquisition in the store
		assertThat(runToken.get()).isPositive().isEqualTo(leaseToken.get());
		System.out.println("clustersingleton endpoint: " + new String(body, StandardCharsets.UTF_8));
	}

	@Test
	void selectorShowsOneJob() {
		this.client.get()
			.uri("/actuator/clustersingleton/report")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.name")
			.isEqualTo("report")
			.jsonPath("$.settings.lockAtMostFor")
			.isEqualTo("PT10M")
			.jsonPath("$.heldByThisNode")
			.isEqualTo(false);
	}

	@Test
	void unknownJobIsNotFound() {
		this.client.get().uri("/actuator/clustersingleton/no-such-job").exchange().expectStatus().isNotFound();
	}

	@Test
	void deleteIsRefusedWithoutWriteAccess() {
		this.jobs.stuck();
		this.client.delete()
			.uri("/actuator/clustersingleton/stuck")
			.exchange()
			.expectStatus()
			.value((status) -> assertThat(status).isIn(404, 405));
		LeaseInfo lease = this.backend.describe("stuck").orElseThrow();
		assertThat(lease.live()).isTrue();
	}

	@Test
	void postIsRefusedWithoutWriteAccess() {
		this.client.post()
			.uri("/actuator/clustersingleton/report")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("action", "pause", "reason", "read-only"))
			.exchange()
			.expectStatus()
			.isEqualTo(405);
		this.client.post()
			.uri("/actuator/clustersingleton")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("action", "pause"))
			.exchange()
			.expectStatus()
			.isEqualTo(405);
		this.client.get()
			.uri("/actuator/clustersingleton/report")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.paused")
			.isEqualTo(false);
	}

	@Test
	void healthReportsTheLeaseStore() {
		this.client.get()
			.uri("/actuator/health/clusterSingleton")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.details.backend")
			.isEqualTo("jdbc");
	}

	@Test
	void acquireMetricIsExposed() {
		this.jobs.report();
		this.client.get()
			.uri("/actuator/metrics/cluster.singleton.acquire")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.name")
			.isEqualTo("cluster.singleton.acquire")
			.jsonPath("$.availableTags[?(@.tag == 'outcome')].values[0]")
			.isNotEmpty();
	}

}
