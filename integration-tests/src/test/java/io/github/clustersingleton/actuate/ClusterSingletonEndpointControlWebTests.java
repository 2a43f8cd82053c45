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
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.ClusterSingletonControlEvent;
import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.actuate.ControlsTestConfiguration.ControlEvents;
import io.github.clustersingleton.actuate.ControlsTestConfiguration.ControlFaults;
import io.github.clustersingleton.actuate.WebTestApplication.WebJobs;
import io.github.clustersingleton.aop.DefaultClusterSingletonOperations;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.test.TestStores;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.BodyContentSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the control operations of {@link ClusterSingletonEndpoint} over HTTP, with
 * write access granted, end to end: the endpoint,
 * {@link DefaultClusterSingletonOperations}, the engine and the in-memory lease store's
 * controls (with faults injected around them).
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = { WebTestApplication.class, ControlsTestConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:endpoint-${random.uuid};DB_CLOSE_DELAY=-1",
				"cluster-singleton.backend=in-memory", "cluster-singleton.owner-id=web-node",
				"management.endpoints.web.exposure.include=health,clustersingleton",
				"management.endpoint.health.show-details=always",
				"management.endpoint.clustersingleton.access=unrestricted" })
@AutoConfigureRestTestClient
@ExtendWith(OutputCaptureExtension.class)
class ClusterSingletonEndpointControlWebTests {

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
	private ControlFaults faults;

	@Autowired
	private ClusterSingletonOperations operations;

	@Autowired
	private ClusterSingletonExecutor executor;

	@Autowired
	private ControlEvents events;

	@BeforeEach
	@AfterEach
	void reset() {
		this.faults.clear();
		this.operations.resumeAll(false);
		this.operations.clearSchedule("report");
		this.events.events().clear();
	}

	@Test
	void theOperationsBeanIsTheDefaultOne() {
		assertThat(this.operations).isInstanceOf(DefaultClusterSingletonOperations.class);
		assertThat(this.executor.getBackend().id()).isEqualTo("in-memory");
	}

	@Test
	void pauseRecordsTheAuthenticatedPrincipalAndReadShowsIt() {
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "pause", "reason", "incident 42"))
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.action")
			.isEqualTo("pause")
			.jsonPath("$.job")
			.isEqualTo("report")
			.jsonPath("$.principal")
			.isEqualTo("alice")
			.jsonPath("$.node")
			.isEqualTo("web-node")
			.jsonPath("$.reason")
			.isEqualTo("incident 42")
			.jsonPath("$.catchUp")
			.doesNotExist();
		get("/actuator/clustersingleton/report").jsonPath("$.paused")
			.isEqualTo(true)
			.jsonPath("$.state")
			.isEqualTo("paused")
			.jsonPath("$.pausedBy")
			.isEqualTo("alice")
			.jsonPath("$.pauseReason")
			.isEqualTo("incident 42")
			.jsonPath("$.pausedAt")
			.isNotEmpty()
			.jsonPath("$.controlsError")
			.doesNotExist();
		get("/actuator/clustersingleton").jsonPath("$.controlsSupported")
			.isEqualTo(true)
			.jsonPath("$.jobs.report.paused")
			.isEqualTo(true)
			.jsonPath("$.jobs.report.pausedBy")
			.isEqualTo("alice")
			.jsonPath("$.jobs.stuck.paused")
			.isEqualTo(false)
			.jsonPath("$.jobs.stuck.state")
			.isEqualTo("idle");
	}

	@Test
	void everyControlIsPublishedAndLoggedWithItsPrincipal(CapturedOutput output) {
		post("/actuator/clustersingleton/report", "dave", Map.of("action", "pause", "reason", "maintenance"))
			.expectStatus()
			.isOk();
		post("/actuator/clustersingleton/report", "dave", Map.of("action", "resume")).expectStatus().isOk();
		assertThat(this.events.events()).extracting(ClusterSingletonControlEvent::getAction)
			.containsExactly(ClusterSingletonControlEvent.Action.PAUSE, ClusterSingletonControlEvent.Action.RESUME);
		assertThat(this.events.events()).allSatisfy((event) -> {
			assertThat(event.getJobName()).isEqualTo("report");
			assertThat(event.getPrincipal()).isEqualTo("dave");
		});
		assertThat(output).contains("INFO").contains("cluster-singleton: dave ");
	}

	@Test
	void pauseWithoutAuthenticationIsRecordedAsTheNode() {
		post("/actuator/clustersingleton/report", null, Map.of("action", "PAUSE")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.principal")
			.isEqualTo("web-node")
			.jsonPath("$.reason")
			.doesNotExist();
		get("/actuator/clustersingleton/report").jsonPath("$.pausedBy")
			.isEqualTo("web-node")
			.jsonPath("$.pauseReason")
			.doesNotExist();
	}

	@Test
	void resumeClearsThePauseWithTheCatchUpAsked() {
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "pause")).expectStatus().isOk();
		post("/actuator/clustersingleton/report", "bob", Map.of("action", "resume", "catchUp", true)).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.action")
			.isEqualTo("resume")
			.jsonPath("$.principal")
			.isEqualTo("bob")
			.jsonPath("$.catchUp")
			.isEqualTo(true);
		get("/actuator/clustersingleton/report").jsonPath("$.paused")
			.isEqualTo(false)
			.jsonPath("$.state")
			.isEqualTo("idle")
			.jsonPath("$.pausedBy")
			.doesNotExist();
		post("/actuator/clustersingleton/report", null, Map.of("action", "resume")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.catchUp")
			.isEqualTo(false);
	}

	@Test
	void runStoresARequestThatCanBeReadBack() {
		AtomicReference<String> id = new AtomicReference<>();
		AtomicReference<String> location = new AtomicReference<>();
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "run")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.action")
			.isEqualTo("run")
			.jsonPath("$.run.state")
			.isEqualTo("pending")
			.jsonPath("$.run.requestedBy")
			.isEqualTo("alice")
			.jsonPath("$.run.requestedAt")
			.isNotEmpty()
			.jsonPath("$.run.id")
			.value(String.class, id::set)
			.jsonPath("$.location")
			.value(String.class, location::set);
		assertThat(location.get()).isEqualTo("/actuator/clustersingleton/report/" + id.get());
		get(location.get()).jsonPath("$.id")
			.isEqualTo(id.get())
			.jsonPath("$.state")
			.isEqualTo("pending")
			.jsonPath("$.requestedBy")
			.isEqualTo("alice");
		get("/actuator/clustersingleton/report").jsonPath("$.manualRuns[0].id")
			.isEqualTo(id.get())
			.jsonPath("$.manualRuns[0].state")
			.isEqualTo("pending");
		this.client.get()
			.uri("/actuator/clustersingleton/report/no-such-request")
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.message")
			.value(String.class, (message) -> assertThat(message).contains("no-such-request").contains("job 'report'"));
	}

	@Test
	void runNowRunsTheJobOnceAndItsRequestEndsSucceeded() {
		int runsBefore = this.jobs.reportRuns();
		AtomicReference<String> location = new AtomicReference<>();
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "run")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.location")
			.value(String.class, location::set);
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			this.executor.pollControls();
			get(location.get()).jsonPath("$.state").isEqualTo("succeeded").jsonPath("$.owner").isEqualTo("web-node");
		});
		assertThat(this.jobs.reportRuns()).isEqualTo(runsBefore + 1);
		get("/actuator/clustersingleton/report").jsonPath("$.history[0].trigger")
			.isEqualTo("manual")
			.jsonPath("$.manualRuns[0].state")
			.isEqualTo("succeeded");
	}

	@Test
	void runNowOfAPausedJobStillRunsIt() {
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "pause")).expectStatus().isOk();
		int runsBefore = this.jobs.reportRuns();
		AtomicReference<String> location = new AtomicReference<>();
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "run")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.location")
			.value(String.class, location::set);
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			this.executor.pollControls();
			get(location.get()).jsonPath("$.state").isEqualTo("succeeded");
		});
		assertThat(this.jobs.reportRuns()).isEqualTo(runsBefore + 1);
		get("/actuator/clustersingleton/report").jsonPath("$.state").isEqualTo("paused");
	}

	@Test
	void rescheduleMovesTheNextFireTime() {
		get("/actuator/clustersingleton/report").jsonPath("$.nextFireTime")
			.value(String.class, (next) -> assertThat(next).endsWith("T03:00:00Z"));
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "reschedule", "cron", "0 30 4 * * *"))
			.expectStatus()
			.isOk();
		get("/actuator/clustersingleton/report").jsonPath("$.nextFireTime")
			.value(String.class, (next) -> assertThat(next).endsWith("T04:30:00Z"));
		get("/actuator/clustersingleton/stuck").jsonPath("$.nextFireTime").doesNotExist();
	}

	@Test
	void rescheduleStoresTheOverrideAndWithoutCronClearsIt() {
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "reschedule", "cron", "0 */5 * * * *"))
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.action")
			.isEqualTo("reschedule")
			.jsonPath("$.cron")
			.isEqualTo("0 */5 * * * *");
		get("/actuator/clustersingleton/report").jsonPath("$.cronOverride").isEqualTo("0 */5 * * * *");
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "reschedule")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.action")
			.isEqualTo("reschedule")
			.jsonPath("$.cron")
			.doesNotExist();
		get("/actuator/clustersingleton/report").jsonPath("$.cronOverride").doesNotExist();
	}

	@Test
	void invalidCronIsABadRequestNamingTheProblem() {
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "reschedule", "cron", "0 0 25 * * *"))
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(400)
			.jsonPath("$.job")
			.isEqualTo("report")
			.jsonPath("$.message")
			.value(String.class,
					(message) -> assertThat(message).contains("'0 0 25 * * *'")
						.contains("job 'report'")
						.contains("25"));
		get("/actuator/clustersingleton/report").jsonPath("$.cronOverride").doesNotExist();
	}

	@Test
	void rescheduleOfAJobWithoutCronIsABadRequest() {
		post("/actuator/clustersingleton/stuck", "alice", Map.of("action", "reschedule", "cron", "0 0 * * * *"))
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.value(String.class, (message) -> assertThat(message).contains("Job 'stuck' cannot be rescheduled")
				.contains("cron expression"));
	}

	@Test
	void unknownJobIsNotFound() {
		post("/actuator/clustersingleton/no-such-job", "alice", Map.of("action", "pause")).expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(404)
			.jsonPath("$.message")
			.value(String.class,
					(message) -> assertThat(message).contains("No cluster-singleton job named 'no-such-job'")
						.contains("report")
						.contains("stuck"));
		assertThat(this.events.events()).isEmpty();
	}

	@Test
	void missingOrUnknownActionIsABadRequest() {
		post("/actuator/clustersingleton/report", "alice", Map.of("reason", "no action")).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.value(String.class,
					(message) -> assertThat(message).contains("Missing 'action'")
						.contains("job 'report'")
						.contains("pause, resume, run, reschedule"));
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "stop")).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.value(String.class, (message) -> assertThat(message).contains("Unknown action 'stop'"));
		get("/actuator/clustersingleton/report").jsonPath("$.paused").isEqualTo(false);
	}

	@Test
	void pauseAndResumeEveryJob() {
		post("/actuator/clustersingleton", "alice", Map.of("action", "pause", "reason", "freeze")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.action")
			.isEqualTo("pause")
			.jsonPath("$.job")
			.doesNotExist()
			.jsonPath("$.principal")
			.isEqualTo("alice")
			.jsonPath("$.reason")
			.isEqualTo("freeze");
		get("/actuator/clustersingleton").jsonPath("$.jobs.report.paused")
			.isEqualTo(true)
			.jsonPath("$.jobs.stuck.paused")
			.isEqualTo(true)
			.jsonPath("$.jobs.stuck.pauseReason")
			.isEqualTo("freeze");
		post("/actuator/clustersingleton", "alice", Map.of("action", "resume")).expectStatus().isOk();
		get("/actuator/clustersingleton").jsonPath("$.jobs.report.paused")
			.isEqualTo(false)
			.jsonPath("$.jobs.stuck.paused")
			.isEqualTo(false);
	}

	@Test
	void runOrRescheduleOfEveryJobIsABadRequest() {
		post("/actuator/clustersingleton", "alice", Map.of("action", "run")).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.value(String.class,
					(message) -> assertThat(message).contains("'run' needs a job").contains("pause, resume"));
		post("/actuator/clustersingleton", "alice", Map.of("action", "reschedule", "cron", "0 0 * * * *"))
			.expectStatus()
			.isBadRequest();
	}

	@Test
	void unreachableStoreIsServiceUnavailableAndChangesNothing(CapturedOutput output) {
		this.faults.failure = new DataAccessResourceFailureException("connection refused");
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "pause")).expectStatus()
			.isEqualTo(503)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(503)
			.jsonPath("$.message")
			.value(String.class,
					(message) -> assertThat(message).contains("Cannot pause job 'report'")
						.contains("connection refused")
						.contains("nothing was changed"));
		post("/actuator/clustersingleton", "alice", Map.of("action", "pause")).expectStatus().isEqualTo(503);
		// the read reports the error per job instead of failing
		get("/actuator/clustersingleton").jsonPath("$.jobs.report.controlsError")
			.value(String.class, (error) -> assertThat(error).contains("connection refused"))
			.jsonPath("$.jobs.report.settings")
			.exists();
		this.faults.failure = null;
		get("/actuator/clustersingleton").jsonPath("$.jobs.report.paused")
			.isEqualTo(false)
			.jsonPath("$.jobs.stuck.paused")
			.isEqualTo(false);
		assertThat(output).contains("could not pause job 'report'");
	}

	@Test
	void storeWithoutControlsIsNotImplemented() {
		this.faults.unsupported = true;
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "run")).expectStatus()
			.isEqualTo(501)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(501)
			.jsonPath("$.message")
			.value(String.class, (message) -> assertThat(message).contains("Cannot run job 'report'")
				.contains("keeps no cluster-wide controls"));
		get("/actuator/clustersingleton").jsonPath("$.controlsSupported")
			.isEqualTo(false)
			.jsonPath("$.jobs.report.paused")
			.isEqualTo(false)
			.jsonPath("$.jobs.report.manualRuns")
			.isEmpty();
	}

	@Test
	void healthListsPausedJobsWithoutGoingDown() {
		post("/actuator/clustersingleton/report", "alice", Map.of("action", "pause", "reason", "incident 42"))
			.expectStatus()
			.isOk();
		// the health shows the engine's view, read every third of the lease TTL
		this.executor.pollControls();
		this.client.get()
			.uri("/actuator/health/clusterSingletonJobs")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.details.paused.report.pausedBy")
			.isEqualTo("alice")
			.jsonPath("$.details.paused.report.reason")
			.isEqualTo("incident 42")
			.jsonPath("$.details.paused.stuck")
			.doesNotExist();
	}

	@Test
	void forceReleasePublishesAControlEventWithThePrincipal() {
		this.jobs.stuck();
		this.client.delete()
			.uri("/actuator/clustersingleton/stuck")
			.header("X-Test-User", "carol")
			.exchange()
			.expectStatus()
			.isOk();
		assertThat(this.events.events()).singleElement().satisfies((event) -> {
			assertThat(event.getAction()).isEqualTo(ClusterSingletonControlEvent.Action.FORCE_RELEASE);
			assertThat(event.getJobName()).isEqualTo("stuck");
			assertThat(event.getPrincipal()).isEqualTo("carol");
		});
	}

	private RestTestClient.ResponseSpec post(String uri, @Nullable String user, Map<String, Object> body) {
		RestTestClient.RequestBodySpec request = this.client.post().uri(uri).contentType(MediaType.APPLICATION_JSON);
		if (user != null) {
			request = request.header("X-Test-User", user);
		}
		return request.body(body).exchange();
	}

	private BodyContentSpec get(String uri) {
		return this.client.get().uri(uri).exchange().expectStatus().isOk().expectBody();
	}

}
