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
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.actuate.WebTestApplication.WebJobs;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the force-release of {@link ClusterSingletonEndpoint} over HTTP, with write
 * access granted.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = WebTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:endpoint-${random.uuid};DB_CLOSE_DELAY=-1",
				"cluster-singleton.backend=jdbc", "cluster-singleton.owner-id=web-node",
				"management.endpoints.web.exposure.include=health,clustersingleton,metrics",
				"management.endpoint.clustersingleton.access=unrestricted" })
@AutoConfigureRestTestClient
@ExtendWith(OutputCaptureExtension.class)
class ClusterSingletonEndpointWriteAccessWebTests {

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
	private DataSource dataSource;

	@Test
	void deleteForceReleasesAStuckLeaseSoThatAnotherNodeAcquiresIt(CapturedOutput output) {
		this.jobs.stuck();
		assertThat(this.jobs.stuckRuns()).isOne();
		// lockAtLeastFor keeps the lease for an hour: the next trigger is skipped
		this.jobs.stuck();
		assertThat(this.jobs.stuckRuns()).isOne();
		AtomicLong token = new AtomicLong();
		this.client.delete()
			.uri("/actuator/clustersingleton/stuck")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.name")
			.isEqualTo("stuck")
			.jsonPath("$.released")
			.isEqualTo(true)
			.jsonPath("$.previousHolder")
			.isEqualTo("web-node")
			.jsonPath("$.releasedBy")
			.isEqualTo("web-node")
			.jsonPath("$.fencingToken")
			.value(Long.class, token::set);
		assertThat(output).contains("force-released the lease of job 'stuck'")
			.contains("clustersingleton endpoint of node 'web-node'");
		// another node, on the same database, acquires at its next trigger
		JdbcLeaseBackend otherNode = new JdbcLeaseBackend(this.dataSource, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		AcquireResult result = otherNode
			.tryAcquire(new LeaseRequest("stuck", "other-node", "other-token", Duration.ofSeconds(30), null));
		assertThat(result.isAcquired()).isTrue();
		assertThat(result.fencingToken()).isGreaterThan(token.get());
		this.client.get()
			.uri("/actuator/clustersingleton/stuck")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.lease.holder")
			.isEqualTo("other-node")
			.jsonPath("$.lease.live")
			.isEqualTo(true);
	}

	@Test
	void deleteWithoutLiveLeaseReleasesNothing() {
		this.jobs.report();
		this.client.delete()
			.uri("/actuator/clustersingleton/report")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.released")
			.isEqualTo(false);
	}

	@Test
	void deleteOfUnknownJobIsABadRequest() {
		this.client.delete().uri("/actuator/clustersingleton/no-such-job").exchange().expectStatus().isBadRequest();
	}

}
