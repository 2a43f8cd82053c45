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
package io.github.clustersingleton.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.jayway.jsonpath.JsonPath;
import io.github.clustersingleton.cluster.controls.ControlsApp;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.github.clustersingleton.cluster.ClusterProofTests.LEASE_URL;
import static io.github.clustersingleton.cluster.ClusterProofTests.LEDGER_URL;
import static io.github.clustersingleton.cluster.ClusterProofTests.log;
import static io.github.clustersingleton.cluster.ClusterProofTests.retrying;
import static io.github.clustersingleton.cluster.ClusterProofTests.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs {@link ControlsApp}, an application on the starter's public API with the Actuator
 * endpoint open for writes and one cron job every second, on 3 JVMs against PostgreSQL
 * and against Redis, and operates the job over HTTP as an operator would: a pause sent to
 * one node stops the job on every node, a node restarted meanwhile included; a resume
 * without catch-up runs none of the slots that passed; a run-now runs exactly once, on
 * one node; a reschedule moves every node to the new expression and clearing it moves
 * them back. No slot runs twice throughout.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Tag("cluster")
class ControlsAppTests {

	private static final int NODES = 3;

	/** The application's lease TTL; its watchdog period is a third of it. */
	private static final Duration PERIOD = Duration.ofSeconds(1);

	private static final String LEDGER = "controls_app_ledger";

	private final String runId = "c" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

	private final String job = this.runId + "-tick";

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final List<Node> nodes = new ArrayList<>();

	private final Map<Node, Integer> ports = new HashMap<>();

	private final List<String> arguments = new ArrayList<>();

	private Path logs;

	@AfterEach
	void stopNodes() throws Exception {
		for (Node node : this.nodes) {
			node.kill();
		}
		inDatabase((connection) -> {
			try (PreparedStatement ledger = connection
				.prepareStatement("DELETE FROM " + LEDGER + " WHERE run_id = ?")) {
				ledger.setString(1, this.runId);
				return ledger.executeUpdate();
			}
		});
	}

	@ParameterizedTest(name = "lease store {0}")
	@ValueSource(strings = { "jdbc", "redis" })
	void pauseResumeRunNowAndRescheduleReachEveryNode(String store) throws Exception {
		retrying(LEDGER_URL, "harness", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				ClusterProofTests.createLeaseDatabase(statement);
			}
			return null;
		});
		inDatabase((connection) -> {
			try (Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE IF NOT EXISTS " + LEDGER + " (id BIGSERIAL PRIMARY KEY, "
						+ "run_id VARCHAR(40) NOT NULL, slot TIMESTAMPTZ, node VARCHAR(40) NOT NULL, "
						+ "run_trigger VARCHAR(16) NOT NULL, fencing_token BIGINT NOT NULL, "
						+ "started_at TIMESTAMPTZ NOT NULL)");
			}
			return null;
		});
		this.logs = Path.of("target", "cluster-proof-logs", "controls-app-" + store + "-" + this.runId);
		Files.createDirectories(this.logs);
		this.arguments.addAll(List.of("--app.run-id=" + this.runId, "--cluster-singleton.backend=" + store,
				"--spring.datasource.url=" + LEASE_URL, "--spring.datasource.username=postgres"));
		if (store.equals("redis")) {
			this.arguments.add("--spring.data.redis.url=" + TestStores.redisUrl());
			this.arguments.add("--cluster-singleton.redis.key-prefix=" + this.runId);
		}
		for (int i = 0; i < NODES; i++) {
			this.nodes.add(startNode("node" + i, freePort()));
		}
		for (Node node : this.nodes) {
			node.awaitStarted();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> scheduledSlotsAfter(Instant.EPOCH).size() >= 3);

		// a pause sent to one node stops the job on every node
		String paused = post(this.nodes.get(0), "/" + this.job, "{\"action\":\"pause\",\"reason\":\"incident\"}");
		Instant pausedAt = Instant.now();
		assertThat((String) JsonPath.read(paused, "$.action")).isEqualTo("pause");
		String described = get(this.nodes.get(1), "/" + this.job);
		assertThat((Boolean) JsonPath.read(described, "$.paused")).isTrue();
		assertThat((String) JsonPath.read(described, "$.pauseReason")).isEqualTo("incident");
		assertThat((String) JsonPath.read(described, "$.state")).isEqualTo("paused");

		// a node restarted while the job is paused obeys the pause too
		Node restarted = this.nodes.get(2);
		restarted.kill();
		Node replacement = startNode(restarted.id, this.ports.get(restarted));
		this.nodes.set(2, replacement);
		replacement.awaitStarted();
		sleepUntil(Instant.now().plus(PERIOD.multipliedBy(4)));
		Instant resumedFrom = Instant.now();
		assertThat(scheduledSlotsAfter(pausedAt)).as("slots run after the pause").isEmpty();

		// a resume without catch-up: the job runs again, none of the passed slots
		post(this.nodes.get(2), "/" + this.job, "{\"action\":\"resume\",\"catchUp\":false}");
		Instant resumedAt = Instant.now();
		await().atMost(Duration.ofSeconds(5)).until(() -> !scheduledSlotsAfter(resumedAt).isEmpty());
		assertThat(scheduledSlotsAfter(pausedAt)).as("slots of the pause run after the resume")
			.allSatisfy((slot) -> assertThat(slot).isAfter(resumedFrom));

		// run now: exactly one run, on one node, read back through another node
		String requested = post(this.nodes.get(1), "/" + this.job, "{\"action\":\"run\"}");
		String requestId = JsonPath.read(requested, "$.run.id");
		await().atMost(Duration.ofSeconds(5))
			.until(() -> "succeeded"
				.equals(JsonPath.read(get(this.nodes.get(0), "/" + this.job + "/" + requestId), "$.state")));
		assertThat(manualRuns()).as("manual runs").isEqualTo(1);

		// reschedule: every node follows the new expression within one period
		post(this.nodes.get(0), "/" + this.job, "{\"action\":\"reschedule\",\"cron\":\"*/3 * * * * *\"}");
		Instant switched = Instant.now().plus(PERIOD).plusMillis(500);
		sleepUntil(switched.plusSeconds(7));
		List<Instant> rescheduled = scheduledSlotsAfter(switched);
		assertThat(rescheduled).as("slots under */3")
			.isNotEmpty()
			.allSatisfy((slot) -> assertThat(slot.getEpochSecond() % 3).isZero());
		assertThat((String) JsonPath.read(get(this.nodes.get(2), "/" + this.job), "$.cronOverride"))
			.isEqualTo("*/3 * * * * *");
		post(this.nodes.get(1), "/" + this.job, "{\"action\":\"reschedule\"}");
		Instant cleared = Instant.now().plus(PERIOD).plusMillis(500);
		await().atMost(Duration.ofSeconds(8))
			.until(() -> scheduledSlotsAfter(cleared).stream().anyMatch((slot) -> slot.getEpochSecond() % 3 != 0));

		assertThat(duplicateSlots()).as("slots run more than once").isZero();
		log("controls on %s: %d runs, paused at %s, resumed at %s", store, scheduledSlotsAfter(Instant.EPOCH).size(),
				pausedAt, resumedAt);
	}

	private Node startNode(String id, int port) throws IOException {
		List<String> args = new ArrayList<>(this.arguments);
		args.add("--app.node=" + id);
		args.add("--server.port=" + port);
		Node node = Node.start(id, 0, ControlsApp.class, args,
				this.logs.resolve(id + "-" + System.nanoTime() + ".log"));
		this.ports.put(node, port);
		return node;
	}

	private String post(Node node, String path, String body) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(node, path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("POST %s %s: %s", path, body, response.body()).isEqualTo(200);
		return response.body();
	}

	private String get(Node node, String path) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(node, path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
		return response.body();
	}

	private URI uri(Node node, String path) {
		return URI.create("http://127.0.0.1:" + this.ports.get(node) + "/actuator/clustersingleton" + path);
	}

	private List<Instant> scheduledSlotsAfter(Instant from) throws Exception {
		return inDatabase((connection) -> {
			try (PreparedStatement query = connection.prepareStatement("SELECT slot FROM " + LEDGER
					+ " WHERE run_id = ? AND run_trigger = 'SCHEDULED' AND slot > ? ORDER BY slot")) {
				query.setString(1, this.runId);
				query.setTimestamp(2, Timestamp.from(from));
				List<Instant> slots = new ArrayList<>();
				try (ResultSet result = query.executeQuery()) {
					while (result.next()) {
						slots.add(result.getTimestamp(1).toInstant());
					}
				}
				return slots;
			}
		});
	}

	private int manualRuns() throws Exception {
		return count("SELECT count(*) FROM " + LEDGER + " WHERE run_id = ? AND run_trigger = 'MANUAL'");
	}

	private int duplicateSlots() throws Exception {
		return count("SELECT count(*) FROM (SELECT slot FROM " + LEDGER
				+ " WHERE run_id = ? AND slot IS NOT NULL GROUP BY slot HAVING count(*) > 1) d");
	}

	private int count(String sql) throws Exception {
		return inDatabase((connection) -> {
			try (PreparedStatement query = connection.prepareStatement(sql)) {
				query.setString(1, this.runId);
				try (ResultSet result = query.executeQuery()) {
					result.next();
					return result.getInt(1);
				}
			}
		});
	}

	private <T> T inDatabase(ClusterProofTests.SqlWork<T> work) throws Exception {
		try (Connection connection = ClusterProofTests.connect(LEASE_URL, "controls-harness")) {
			return work.apply(connection);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
