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
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.clustersingleton.cluster.app.AppJobs;
import io.github.clustersingleton.cluster.app.LeaderApp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static io.github.clustersingleton.cluster.ClusterProofTests.LEASE_URL;
import static io.github.clustersingleton.cluster.ClusterProofTests.LEDGER_URL;
import static io.github.clustersingleton.cluster.ClusterProofTests.TTL;
import static io.github.clustersingleton.cluster.ClusterProofTests.log;
import static io.github.clustersingleton.cluster.ClusterProofTests.retrying;
import static io.github.clustersingleton.cluster.ClusterProofTests.sleepUntil;
import static io.github.clustersingleton.cluster.ClusterProofTests.stats;
import static io.github.clustersingleton.cluster.ClusterProofTests.writeReport;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs {@link LeaderApp}, an application on the starter's public API with leader mode, a
 * reactive job and template calls, on 3 JVMs against PostgreSQL, kills the leader with
 * {@code kill -9} once, and judges from the application's own ledger
 * ({@code leader_app_ledger}): the runs of each job never overlap in time, on any nodes;
 * no slot runs twice; fencing tokens rise per job; before the kill every run is on the
 * leader, after it every run is on one other node, each job's first within
 * {@link #takeoverBound two TTLs and its period} of the kill.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Tag("cluster")
class LeaderAppTests {

	private static final int NODES = 3;

	/** The reactive job's cron period. */
	private static final Duration REACTIVE_PERIOD = Duration.ofSeconds(2);

	/** What the application's reactive runs take ({@code app.reactive-run}). */
	private static final Duration REACTIVE_RUN = Duration.ofSeconds(3);

	/**
	 * How long each job may wait for its next run once this node leads: the reactive
	 * job's period, the fixed-rate method's (two template runs of 300 ms each 500 ms),
	 * and the slot of the template call with a slot (the killed leader may have run the
	 * current one).
	 */
	private static final Map<String, Duration> PERIODS = Map.of("reactive", REACTIVE_PERIOD, "template-run",
			Duration.ofSeconds(1), "template-call", AppJobs.TEMPLATE_SLOT);

	private static final Duration BEFORE_KILL = Duration.ofSeconds(12);

	private static final Duration AFTER_KILL = Duration.ofSeconds(15);

	private static final String LEDGER = "leader_app_ledger";

	private final String runId = "a" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

	private final List<Node> nodes = new ArrayList<>();

	private boolean keep;

	@AfterEach
	void stopNodes() throws Exception {
		for (Node node : this.nodes) {
			node.kill();
		}
		if (this.keep) {
			log("kept the %s rows of run_id %s for inspection", LEDGER, this.runId);
			return;
		}
		inDatabase((connection) -> {
			try (PreparedStatement ledger = connection.prepareStatement("DELETE FROM " + LEDGER + " WHERE run_id = ?");
					PreparedStatement leases = connection
						.prepareStatement("DELETE FROM cluster_singleton_lease WHERE name LIKE ?")) {
				ledger.setString(1, this.runId);
				leases.setString(1, this.runId + "-%");
				return ledger.executeUpdate() + leases.executeUpdate();
			}
		});
	}

	@Test
	void leaderModeReactiveJobAndTemplateOnThreeJvms() throws Exception {
		retrying(LEDGER_URL, "harness", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				ClusterProofTests.createLeaseDatabase(statement);
			}
			return null;
		});
		inDatabase((connection) -> {
			try (Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE IF NOT EXISTS " + LEDGER + " (id BIGSERIAL PRIMARY KEY, "
						+ "run_id VARCHAR(40) NOT NULL, job VARCHAR(200) NOT NULL, slot TIMESTAMPTZ, "
						+ "node VARCHAR(40) NOT NULL, fencing_token BIGINT NOT NULL, "
						+ "started_at TIMESTAMPTZ NOT NULL, ended_at TIMESTAMPTZ)");
			}
			return null;
		});
		Path logs = Path.of("target", "cluster-proof-logs", "leader-app-" + this.runId);
		Files.createDirectories(logs);
		long started = System.nanoTime();
		for (int i = 0; i < NODES; i++) {
			String id = "app" + i;
			this.nodes.add(Node.start(id, 0, LeaderApp.class, List.of("--app.node=" + id, "--app.run-id=" + this.runId,
					"--spring.datasource.url=" + LEASE_URL + (LEASE_URL.contains("?") ? "&" : "?")
							+ "ApplicationName=leader-app-" + this.runId,
					"--spring.datasource.username=postgres",
					// a lease name of the run's own: other runs share the table
					"--cluster-singleton.leader.lease-name=" + this.runId + "-leader"), logs.resolve(id + ".log")));
		}
		for (Node node : this.nodes) {
			node.awaitStarted();
		}
		Instant observedFrom = Instant.now().plus(TTL);
		sleepUntil(observedFrom.plus(BEFORE_KILL));
		String leaderId = inDatabase((connection) -> {
			try (PreparedStatement query = connection.prepareStatement(
					"SELECT node FROM " + LEDGER + " WHERE run_id = ? ORDER BY started_at DESC LIMIT 1")) {
				query.setString(1, this.runId);
				try (ResultSet result = query.executeQuery()) {
					return result.next() ? result.getString(1) : null;
				}
			}
		});
		Node leader = this.nodes.stream().filter((node) -> node.id.equals(leaderId)).findFirst().orElseThrow();
		Instant killedAt = Instant.now();
		leader.kill();
		Instant dead = Instant.now();
		log("kill -9 of the leader %s at %s", leader.id, killedAt);
		sleepUntil(killedAt.plus(AFTER_KILL));
		Instant stoppedAt = Instant.now();
		for (Node node : this.nodes) {
			node.process.destroy();
		}
		for (Node node : this.nodes) {
			node.process.waitFor();
		}
		judge(observedFrom, leader.id, killedAt, dead, stoppedAt, Duration.ofNanos(System.nanoTime() - started));
	}

	private void judge(Instant from, String leader, Instant killedAt, Instant dead, Instant stoppedAt, Duration took)
			throws Exception {
		List<Row> rows = inDatabase((connection) -> {
			try (PreparedStatement query = connection.prepareStatement("SELECT id, job, slot, node, fencing_token, "
					+ "started_at, ended_at FROM " + LEDGER + " WHERE run_id = ? ORDER BY started_at, id")) {
				query.setString(1, this.runId);
				List<Row> all = new ArrayList<>();
				try (ResultSet result = query.executeQuery()) {
					while (result.next()) {
						Timestamp slot = result.getTimestamp(3);
						Timestamp ended = result.getTimestamp(7);
						String node = result.getString(4);
						// a run that never ended lasted until its node died or stopped
						Instant end = (ended != null) ? ended.toInstant() : node.equals(leader) ? killedAt : stoppedAt;
						all.add(new Row(result.getLong(1), result.getString(2).substring(this.runId.length() + 1),
								(slot != null) ? slot.toInstant() : null, node, result.getLong(5),
								result.getTimestamp(6).toInstant(), end, ended != null));
					}
				}
				return all;
			}
		});
		List<String> failures = new ArrayList<>();
		List<String> report = new ArrayList<>();
		Map<String, List<Row>> byJob = rows.stream()
			.collect(Collectors.groupingBy(Row::job, TreeMap::new, Collectors.toList()));
		List<Long> takeovers = new ArrayList<>();
		List<Long> fromKill = new ArrayList<>();
		for (String job : List.of("reactive", "template-run", "template-call")) {
			List<Row> runs = byJob.getOrDefault(job, List.of());
			if (runs.isEmpty()) {
				failures.add("no run of " + job);
				continue;
			}
			// never two runs at once, whatever their nodes; fencing tokens rise
			Row latestEnd = null;
			Row previous = null;
			Set<Instant> slots = new HashSet<>();
			int duplicates = 0;
			for (Row run : runs) {
				if (latestEnd != null && !run.start.isAfter(latestEnd.end)) {
					failures.add(job + ": " + run + " started before " + latestEnd + " ended");
				}
				if (latestEnd == null || run.end.isAfter(latestEnd.end)) {
					latestEnd = run;
				}
				if (previous != null && run.token <= previous.token) {
					failures.add(job + ": fencing token not rising from " + previous + " to " + run);
				}
				previous = run;
				if (run.slot != null && !slots.add(run.slot)) {
					duplicates++;
					failures.add(job + ": slot " + run.slot + " ran twice");
				}
			}
			if (!"template-run".equals(job) && slots.size() != runs.size()) {
				failures.add(job + ": runs without a slot");
			}
			// before the kill on the leader, after it on one other node
			// a run of the leader that the ledger says started after the kill was sent,
			// but
			// before the process was gone, started before the signal landed
			Predicate<Row> beforeKill = (run) -> run.start.isBefore(killedAt)
					|| (run.node.equals(leader) && !run.start.isAfter(dead));
			Map<String, Long> before = perNode(runs.stream().filter((run) -> !run.start.isBefore(from)), beforeKill);
			Map<String, Long> after = perNode(runs.stream(), beforeKill.negate());
			if (!before.keySet().equals(Set.of(leader))) {
				failures.add(job + ": runs before the kill not all on the leader " + leader + ": " + before);
			}
			if (after.size() != 1 || after.containsKey(leader)) {
				failures.add(job + ": runs after the kill not all on one other node: " + after);
			}
			Row last = runs.stream().filter(beforeKill).reduce((a, b) -> b).orElse(null);
			Row first = runs.stream().filter(beforeKill.negate()).findFirst().orElse(null);
			if (first != null) {
				long sinceKill = Duration.between(killedAt, first.start).toMillis();
				fromKill.add(sinceKill);
				if (last != null) {
					takeovers.add(Duration.between(last.start, first.start).toMillis());
				}
				if (sinceKill > takeoverBound(job).toMillis()) {
					failures.add(job + ": first run after the kill " + sinceKill + " ms after it, later than "
							+ takeoverBound(job));
				}
			}
			List<Long> lengths = runs.stream()
				.filter(Row::ended)
				.map((run) -> Duration.between(run.start, run.end).toMillis())
				.sorted()
				.toList();
			report.add(String.format(Locale.ROOT,
					"%s: %d runs (before the kill %s, after %s), %d slots, duplicates %d, run length (ms) median %s "
							+ "max %s, unfinished %d, first run after the kill %s",
					job, runs.size(), before, after, slots.size(), duplicates,
					lengths.isEmpty() ? "-" : lengths.get(lengths.size() / 2),
					lengths.isEmpty() ? "-" : lengths.get(lengths.size() - 1),
					runs.stream().filter((run) -> !run.ended).count(), (first != null)
							? first.node + " +" + Duration.between(killedAt, first.start).toMillis() + " ms" : "none"));
		}
		List<Long> reactiveLengths = byJob.getOrDefault("reactive", List.of())
			.stream()
			.filter(Row::ended)
			.map((run) -> Duration.between(run.start, run.end).toMillis())
			.toList();
		if (reactiveLengths.stream().anyMatch((length) -> length < REACTIVE_PERIOD.toMillis())) {
			failures.add("a reactive run shorter than its period: " + reactiveLengths);
		}
		report.add(0, String.format(Locale.ROOT,
				"leader-mode application (%s): %d JVMs, lease TTL %s, reactive job every %d s taking %d s, template "
						+ "calls every 500 ms (one by name, one with a %d s slot); kill -9 of the leader %s at %s; "
						+ "took %d s",
				LeaderApp.class.getSimpleName(), NODES, TTL, REACTIVE_PERIOD.toSeconds(), REACTIVE_RUN.toSeconds(),
				AppJobs.TEMPLATE_SLOT.toSeconds(), leader, killedAt, took.toSeconds()));
		report.add("takeover, last run on the killed leader -> first run on the new one, per job (ms): "
				+ stats(takeovers));
		report.add("takeover, kill -9 -> first run on the new leader, per job (ms, bound 2 TTL + the job's period): "
				+ stats(fromKill));
		this.keep = !failures.isEmpty();
		writeReport(report, failures, "leader-app.txt");
		assertThat(failures).isEmpty();
	}

	/**
	 * The longest a job may go without a run after the kill: two lease TTLs (the leader
	 * lease expires, another node's watchdog tick takes it) and the job's period.
	 */
	private static Duration takeoverBound(String job) {
		return TTL.multipliedBy(2).plus(PERIODS.get(job));
	}

	private static Map<String, Long> perNode(Stream<Row> runs, Predicate<Row> filter) {
		return runs.filter(filter).collect(Collectors.groupingBy(Row::node, TreeMap::new, Collectors.counting()));
	}

	private static <T> T inDatabase(ClusterProofTests.SqlWork<T> work) throws Exception {
		return retrying(LEASE_URL, "harness", work);
	}

	/**
	 * One run in the application's ledger.
	 *
	 * @param end when it ended, or, if it never did, when its node died or stopped
	 * @param ended whether its end is recorded
	 */
	private record Row(long id, String job, Instant slot, String node, long token, Instant start, Instant end,
			boolean ended) {

		@Override
		public String toString() {
			return "run " + this.id + " (" + this.job + ((this.slot != null) ? " slot " + this.slot : "") + " on "
					+ this.node + ", token " + this.token + ", " + this.start + " .. " + this.end
					+ (this.ended ? "" : " (never ended)") + ")";
		}

	}

}
