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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import io.github.clustersingleton.cluster.ClusterProofTests.Duplicates;
import io.github.clustersingleton.cluster.ClusterProofTests.Run;
import io.github.clustersingleton.cluster.node.FencedJob;
import io.github.clustersingleton.cluster.node.NodeApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A network partition between one node and the store, with fencing shown end to end. The
 * node {@code inside} is a JVM in a network namespace of its own, joined to the host by a
 * veth pair; the store is a PostgreSQL server of the test's own listening on the veth's
 * host address (and on 127.0.0.1, where the two nodes outside connect). {@code inside}
 * starts first and holds the {@link FencedJob} lease in a run longer than the test; the
 * link is then cut ({@code ip link set <veth> down} in the namespace) for {@link #CUT}.
 * Checked: {@code inside} declares the lease lost within one TTL of the cut; a node
 * outside takes the job over; once the link is back, the late write of {@code inside}'s
 * run (which ignores its interrupt) reaches the fenced table and is rejected, because an
 * outside run with a higher fencing token wrote first. Also reported, as for the store
 * failovers: runs, duplicates, fence repeats and lost slots of three every-second jobs on
 * all nodes.
 * <p>
 * Needs root ({@code ip netns}); see {@link PostgresServer#requireRoot}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Tag("cluster")
@Tag("failover")
class NetworkPartitionTests {

	/** How long the link is down: the TTL, a takeover run of 3 s and some margin. */
	private static final Duration CUT = Duration.ofSeconds(10);

	private static final int JOBS = 3;

	private final List<Node> nodes = new ArrayList<>();

	private final List<PostgresServer> servers = new ArrayList<>();

	private Path directory;

	private String namespace;

	@AfterEach
	void tearDown() throws Exception {
		Node.killAll(this.nodes);
		if (this.directory != null) {
			PostgresServer.destroy(this.directory, this.servers);
		}
		if (this.namespace != null) {
			// deleting the namespace deletes its end of the veth pair, and with it the
			// host's end
			ip("netns", "del", this.namespace);
		}
	}

	@Test
	void networkPartition() throws Exception {
		PostgresServer.requireRoot("The network partition test");
		String runId = "n" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
		Path logs = Path.of("target", "cluster-proof-logs", "network-partition-" + runId);
		Files.createDirectories(logs);
		String suffix = runId.substring(1, 7);
		String hostSide = "csh" + suffix;
		String nodeSide = "csn" + suffix;
		int subnet = ThreadLocalRandom.current().nextInt(256);
		String hostAddress = "10.213." + subnet + ".1";
		String nodeAddress = "10.213." + subnet + ".2";
		this.namespace = "csp" + suffix;
		ip("netns", "add", this.namespace);
		ip("link", "add", hostSide, "type", "veth", "peer", "name", nodeSide);
		ip("link", "set", nodeSide, "netns", this.namespace);
		ip("addr", "add", hostAddress + "/30", "dev", hostSide);
		ip("link", "set", hostSide, "up");
		inNamespace("ip", "addr", "add", nodeAddress + "/30", "dev", nodeSide);
		inNamespace("ip", "link", "set", nodeSide, "up");
		inNamespace("ip", "link", "set", "lo", "up");
		this.directory = PostgresServer.temporaryDirectory();
		PostgresServer store = PostgresServer.primary("store", hostAddress, ClusterProofTests.freePort(),
				this.directory, List.of());
		this.servers.add(store);
		store.start();
		String outsideUrl = "jdbc:postgresql://127.0.0.1:" + store.port + "/postgres";
		String insideUrl = store.url("postgres");
		ClusterProofTests.retrying(outsideUrl, "harness", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				ClusterProofTests.createLedgerTable(statement);
				statement.execute("CREATE TABLE fenced_account (id INT PRIMARY KEY, writes BIGINT NOT NULL, "
						+ "fence BIGINT NOT NULL, node VARCHAR(40))");
				statement.execute("INSERT INTO fenced_account VALUES (1, 0, 0, NULL)");
				statement.execute("CREATE TABLE fenced_write (id BIGSERIAL PRIMARY KEY, node VARCHAR(40) NOT NULL, "
						+ "token BIGINT NOT NULL, accepted BOOLEAN NOT NULL, interrupted BOOLEAN NOT NULL, "
						+ "at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
			}
			return null;
		});
		Node inside = Node.start(List.of("ip", "netns", "exec", this.namespace), "inside", 0, NodeApplication.class,
				arguments("inside", runId, insideUrl, 600_000), logs.resolve("inside.log"));
		this.nodes.add(inside);
		inside.awaitStarted();
		String fenced = runId + "-" + FencedJob.FENCED;
		long insideToken = awaitRun(outsideUrl, runId, fenced, "inside").token();
		for (int i = 0; i < 2; i++) {
			this.nodes.add(Node.start("outside" + i, 0, NodeApplication.class,
					arguments("outside" + i, runId, outsideUrl, 3000), logs.resolve("outside" + i + ".log")));
		}
		for (Node node : this.nodes) {
			node.awaitStarted();
		}
		Instant from = Instant.now().plus(ClusterProofTests.TTL).plusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
		ClusterProofTests.sleepUntil(from.plusSeconds(2));
		Instant cut = Instant.now();
		inNamespace("ip", "link", "set", nodeSide, "down");
		// the link goes down somewhere between the two: a renewal sent meanwhile may
		// still
		// have got through, and the lease then lasts one TTL from that renewal
		Instant cutDone = Instant.now();
		ClusterProofTests.log("link of %s cut between %s and %s", this.namespace, cut, cutDone);
		Thread.sleep(CUT.toMillis());
		inNamespace("ip", "link", "set", nodeSide, "up");
		Instant restored = Instant.now();
		ClusterProofTests.log("link of %s back at %s", this.namespace, restored);
		List<String> lateWrite = awaitLateWrite(outsideUrl, insideToken);
		Thread.sleep(2000);
		Instant to = Instant.now().minusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
		Node.stopAll(this.nodes);
		List<String> failures = new ArrayList<>();
		List<String> report = new ArrayList<>();
		report.add("scenario network-partition, run " + runId + ": node inside in network namespace " + this.namespace
				+ " (" + nodeAddress + "), store on " + hostAddress + ":" + store.port + ", 2 nodes outside, " + JOBS
				+ " every-second jobs and the fenced job, lease TTL " + ClusterProofTests.TTL + ", link cut " + cut
				+ " .. " + restored);
		// the node inside declares the lease lost within one TTL of the cut
		Instant declared = inside.linesContaining("' lost its lease (fencingToken=" + insideToken)
			.stream()
			.map((line) -> Instant.parse(line.substring(0, line.indexOf(' '))))
			.findFirst()
			.orElse(null);
		long declaredMillis = (declared != null) ? Duration.between(cut, declared).toMillis() : -1;
		long cutMillis = Duration.between(cut, cutDone).toMillis();
		report.add("inside declared the lease of " + fenced + " (token " + insideToken + ") lost " + declaredMillis
				+ " ms after the cut began (the cut took " + cutMillis + " ms)");
		// the watchdog checks right at the deadline; 250 ms for that check to be
		// scheduled
		if (declared == null
				|| Duration.between(cutDone, declared).compareTo(ClusterProofTests.TTL.plusMillis(250)) > 0) {
			failures.add("inside did not declare its lease lost within " + ClusterProofTests.TTL + " of the cut");
		}
		report.add("fenced writes: " + lateWrite);
		if (lateWrite.stream().noneMatch((line) -> line.startsWith("inside token " + insideToken + " rejected"))) {
			failures.add("the late write of inside (token " + insideToken + ") was not rejected: " + lateWrite);
		}
		if (lateWrite.stream().anyMatch((line) -> line.startsWith("inside token " + insideToken + " accepted"))) {
			failures.add("the late write of inside (token " + insideToken + ") was accepted");
		}
		List<Run> all = ClusterProofTests.loadRuns(outsideUrl, runId);
		List<Run> runs = all.stream()
			.filter((run) -> run.slot() != null && !run.slot().isBefore(from) && run.slot().isBefore(to))
			.toList();
		Map<String, TreeMap<Instant, List<Run>>> byJob = ClusterProofTests.byJob(runs);
		Duplicates duplicates = ClusterProofTests.duplicates(byJob, Map.of(),
				ClusterProofTests.releaseWarnings(this.nodes));
		failures.addAll(duplicates.failures());
		int fenceRepeats = ClusterProofTests.tokenViolations(byJob, failures);
		long slots = Duration.between(from, to).toSeconds();
		int lost = 0;
		List<Long> takeovers = new ArrayList<>();
		for (String job : byJob.keySet()) {
			if (!job.equals(fenced)) {
				lost += (int) (slots - byJob.get(job).size());
			}
			// the jobs inside was running at the cut: the first run outside after it
			Run before = all.stream()
				.filter((run) -> run.job().equals(job) && run.dbStarted().isBefore(cut))
				.reduce((first, second) -> second)
				.orElse(null);
			if (before != null && before.node().equals("inside")
					&& (before.dbEnded() == null || before.dbEnded().isAfter(cut))) {
				all.stream()
					.filter((run) -> run.job().equals(job) && run.dbStarted().isAfter(cut)
							&& !run.node().equals("inside"))
					.findFirst()
					.ifPresentOrElse((run) -> takeovers.add(Duration.between(cut, run.dbStarted()).toMillis()),
							() -> failures.add("no node outside took " + job + " over"));
			}
		}
		report.add("takeover (cut -> first run outside, of the jobs inside was running at the cut): "
				+ ClusterProofTests.stats(takeovers));
		failures.forEach((failure) -> report.add("  " + failure));
		String summary = PostgresFailoverTests.summary("network-partition", runs.size(), duplicates.count(),
				fenceRepeats, lost, takeovers);
		report.add(summary);
		String text = String.join(System.lineSeparator(), report) + System.lineSeparator();
		System.out.print(text);
		Files.writeString(Path.of("target", "failover-network-partition.txt"), text);
		assertThat(failures).as(summary).isEmpty();
	}

	private static List<String> arguments(String id, String runId, String url, long fencedRunMillis) {
		return List.of("--node.id=" + id, "--node.run-id=" + runId, "--node.ledger-url=" + url, "--node.jobs=" + JOBS,
				"--cluster-singleton.backend=jdbc",
				"--spring.datasource.url=" + url + "?connectTimeout=1&socketTimeout=5",
				"--spring.datasource.username=postgres", "--cluster-singleton.jdbc.initialize-schema=always",
				"--node.cron.fenced=* * * * * *", "--node.fenced-url=" + url,
				"--node.fenced-run-ms=" + fencedRunMillis);
	}

	/**
	 * Wait for the first run of a job on a node, in the ledger.
	 */
	private static Run awaitRun(String url, String runId, String job, String node) throws Exception {
		Instant deadline = Instant.now().plusSeconds(60);
		while (Instant.now().isBefore(deadline)) {
			Run run = ClusterProofTests.loadRuns(url, runId)
				.stream()
				.filter((candidate) -> candidate.job().equals(job) && candidate.node().equals(node))
				.findFirst()
				.orElse(null);
			if (run != null) {
				return run;
			}
			Thread.sleep(200);
		}
		throw new AssertionError("no run of " + job + " on " + node + " within 60 s");
	}

	/**
	 * Wait until the write of inside's run with a token is recorded (accepted or not),
	 * and return every fenced write in order
	 * ({@code <node> token <n> accepted|rejected}).
	 */
	private static List<String> awaitLateWrite(String url, long token) throws Exception {
		Instant deadline = Instant.now().plusSeconds(60);
		while (true) {
			List<String> writes = ClusterProofTests.retrying(url, "harness", (connection) -> {
				List<String> lines = new ArrayList<>();
				try (PreparedStatement query = connection
					.prepareStatement("SELECT node, token, accepted, interrupted, at FROM fenced_write ORDER BY id");
						ResultSet result = query.executeQuery()) {
					while (result.next()) {
						lines.add(result.getString(1) + " token " + result.getLong(2)
								+ (result.getBoolean(3) ? " accepted" : " rejected")
								+ (result.getBoolean(4) ? " (interrupted run)" : "") + " at "
								+ result.getTimestamp(5).toInstant());
					}
				}
				return lines;
			});
			if (writes.stream().anyMatch((line) -> line.startsWith("inside token " + token + " "))
					|| Instant.now().isAfter(deadline)) {
				return writes;
			}
			Thread.sleep(500);
		}
	}

	private void inNamespace(String... command) throws Exception {
		List<String> full = new ArrayList<>(List.of("netns", "exec", this.namespace));
		full.addAll(List.of(command));
		ip(full.toArray(String[]::new));
	}

	private static void ip(String... arguments) throws Exception {
		List<String> command = new ArrayList<>(List.of("ip"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		if (process.waitFor() != 0) {
			throw new AssertionError(command + " failed: " + output);
		}
	}

}
