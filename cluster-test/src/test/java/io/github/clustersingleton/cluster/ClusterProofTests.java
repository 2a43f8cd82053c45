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

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.IntToLongFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.github.clustersingleton.cluster.node.NodeApplication;
import io.github.clustersingleton.cluster.node.NodeJobs;
import io.github.clustersingleton.test.TestStores;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster proof: starts several node JVMs ({@link NodeApplication}) with skewed
 * clocks against one real lease store (PostgreSQL, or a Redis server of its own), injects
 * faults (kill -9, a join, SIGSTOP longer than the lease TTL, a store outage, a store
 * restart) and checks the ledger every run writes: at most one run per job and slot, no
 * missed slot outside the fault windows, strictly increasing fencing tokens, and a stale,
 * lease-invalid run after the pause. {@link #leaderMode} runs the same nodes in leader
 * mode and kills the leader. {@code -Dcluster.proof.profile=long} runs the long profile
 * (see docs/reliability.md).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Tag("cluster")
class ClusterProofTests {

	/**
	 * The PostgreSQL server of the ledger and the JDBC lease store, as {@link TestStores}
	 * finds it (the machine's server on 127.0.0.1:5432, or one started from a Maven
	 * artifact when nothing else answers). The nodes get its URLs on their command lines.
	 */
	static final String LEDGER_URL = TestStores.postgresUrl("postgres");

	static final String LEASE_DATABASE = "cluster_proof_lease";

	static final String LEASE_URL = TestStores.postgresUrl(LEASE_DATABASE);

	/**
	 * Only the machine's own cluster on 127.0.0.1:5432 is restarted with pg_ctlcluster.
	 */
	private static final boolean LOCAL_POSTGRES = LEDGER_URL.startsWith("jdbc:postgresql://127.0.0.1:5432/");

	static final Duration TTL = Duration.ofSeconds(2);

	private static final Duration INTERVAL = Duration.ofSeconds(1);

	/** Slack for the clock offsets of the nodes (up to 1.5 s) and scheduling jitter. */
	private static final Duration SKEW = Duration.ofSeconds(2);

	private static final Duration PAUSE = Duration.ofSeconds(5);

	/** The nodes' cluster-singleton.slot-tolerance (the default). */
	private static final Duration SLOT_TOLERANCE = Duration.ofSeconds(1);

	private static final Duration OUTAGE = Duration.ofSeconds(3);

	private static final Duration BORROW_THRESHOLD = Duration.ofMillis(100);

	/** How long the Redis server stays down after its kill -9 in the store restart. */
	private static final Duration STORE_DOWN = Duration.ofSeconds(2);

	/** How long a restarted store may take to answer again. */
	private static final Duration STORE_BACK = Duration.ofSeconds(60);

	/** How long a harness query is retried while the ledger's server is away. */
	private static final Duration LEDGER_RETRY = Duration.ofSeconds(60);

	private static final Duration CYCLE = Duration.ofSeconds(70);

	/**
	 * The longest measured stall that excuses missed slots: a longer one is not a hiccup
	 * but a broken run, and its slots fail the check.
	 */
	private static final Duration MAX_EXCUSED_STALL = Duration.ofSeconds(30);

	/** How long the nodes' pause monitor sleeps between two wake-ups. */
	private static final long PAUSE_MONITOR_SLEEP_MILLIS = 50;

	/** The policy job whose runs outlast the TTL ({@code recovery: lost}). */
	private static final String LOST_CRON = "*/10 * * * * *";

	private static final Duration LOST_PERIOD = Duration.ofSeconds(10);

	/**
	 * The policy job that throws on attempt 1 of every other slot
	 * ({@code recovery: failed}).
	 */
	private static final String FAILED_CRON = "*/4 * * * * *";

	private static final Duration FAILED_PERIOD = Duration.ofSeconds(4);

	/** Its {@code retry-delay}. */
	private static final Duration RETRY_DELAY = Duration.ofSeconds(1);

	/** The {@code misfire: run-once} and {@code misfire: run-all} policy jobs. */
	private static final String MISFIRE_CRON = "*/5 * * * * *";

	private static final Duration MISFIRE_PERIOD = Duration.ofSeconds(5);

	/** The {@code misfire-limit} of the run-all job. */
	private static final int MISFIRE_LIMIT = 3;

	/**
	 * The policy job that checks its lease between units of work
	 * ({@code recovery: lost}).
	 */
	private static final String CHECKED_CRON = "*/10 * * * * *";

	private static final Duration CHECKED_PERIOD = Duration.ofSeconds(10);

	/**
	 * The policy job that overruns its {@code lockAtMostFor} on attempt 1 of every other
	 * slot ({@code recovery: lost}).
	 */
	private static final String OVERRUN_CRON = "*/10 * * * * *";

	private static final Duration OVERRUN_PERIOD = Duration.ofSeconds(10);

	/** Its {@code lock-at-most-for}: longer than the TTL, as it must be. */
	private static final Duration OVERRUN_LOCK_AT_MOST_FOR = Duration.ofSeconds(3);

	/**
	 * The {@code @Transactional} policy job ({@code misfire: run-all},
	 * {@code recovery: lost}).
	 */
	private static final String TRANSACTIONAL_CRON = "*/5 * * * * *";

	private static final Duration TRANSACTIONAL_PERIOD = Duration.ofSeconds(5);

	/** The {@code max-attempts} of the jobs that lose leases on purpose. */
	private static final int LEASE_LOSS_MAX_ATTEMPTS = 5;

	/** The jobs whose lease losses are checked against the library's run ledger. */
	private static final List<String> LEASE_LOSS_JOBS = List.of(NodeJobs.CHECKED, NodeJobs.OVERRUN,
			NodeJobs.TRANSACTIONAL);

	/**
	 * The jobs whose runs the harness reads in the library's run ledger: those of
	 * {@link #LEASE_LOSS_JOBS} and the other jobs with a recovery policy.
	 */
	private static final List<String> RUN_LEDGER_JOBS = List.of(NodeJobs.CHECKED, NodeJobs.OVERRUN,
			NodeJobs.TRANSACTIONAL, NodeJobs.LOST, NodeJobs.FAILED);

	/**
	 * How long after the kill of the {@code recovery: lost} job's node the harness waits
	 * at the most for the recovery run to end before the next fault: two TTLs for the
	 * takeover, the run's 4 s, and room for a loaded machine.
	 */
	private static final Duration RECOVERY_WAIT = TTL.multipliedBy(2).plusSeconds(4).plusSeconds(6);

	/** How long the whole cluster stays down: several periods of every policy job. */
	private static final Duration CLUSTER_DOWN = Duration.ofSeconds(25);

	/** How long the harness waits after the whole cluster is back, for its catch-up. */
	private static final Duration SETTLE = Duration.ofSeconds(10);

	/** The slots of the policy jobs this close to the end are not checked. */
	private static final Duration POLICY_END_MARGIN = Duration.ofSeconds(6);

	/**
	 * The clock offsets of the leader-mode scenario's nodes are spread over plus or minus
	 * this, within the slot tolerance: a leader whose clock is further ahead has every
	 * slot it names refused (clock-skew), and no other node runs it.
	 */
	private static final Duration LEADER_SKEW = Duration.ofMillis(500);

	/** How long the leader-mode scenario lets the cluster run between two kills. */
	private static final Duration LEADER_STEADY = Duration.ofSeconds(12);

	/**
	 * The longest a job may go without a run after the kill -9 of the leader: two lease
	 * TTLs (the leader lease expires, a watchdog tick of another node takes it) and one
	 * period (the job's next slot).
	 */
	private static final Duration TAKEOVER_BOUND = TTL.multipliedBy(2).plus(INTERVAL);

	/** What a node's executor logs at DEBUG for each trigger it skips as a non-leader. */
	private static final String NOT_LEADER = "this node is not the leader";

	/** The start of a node's pause line (see the node's {@code PauseMonitor}). */
	private static final String PAUSE_PREFIX = "[pause] ";

	/**
	 * What every WARN of the engine about a run's end that the store did not record
	 * contains (see {@link #unrecordedCompletionWarnings}).
	 */
	private static final String RELEASE_FAILED = " the end of job '";

	/** The report's name of the documented at-least-once window. */
	static final String UNRECORDED_COMPLETION = "completion not recorded: store unreachable when the run ended "
			+ "— documented at-least-once window";

	private final Profile profile = Profile.current();

	private final List<Node> nodes = new ArrayList<>();

	private final List<Fault> faults = new ArrayList<>();

	private final List<Kill> kills = new ArrayList<>();

	private final List<Long> staleRuns = new ArrayList<>();

	/** Each kill -9 of the node that ran the {@code recovery: lost} job, mid-run. */
	private final List<LostKill> lostKills = new ArrayList<>();

	/** Each whole-cluster stop. */
	private final List<ClusterStop> clusterStops = new ArrayList<>();

	/** For each paused run, the moment of the SIGSTOP on its node's clock. */
	private final Map<Long, Instant> stopTimes = new HashMap<>();

	/** One line per store restart, for the report. */
	private final List<String> restarts = new ArrayList<>();

	/** Failures seen during a store restart, reported with the ledger's. */
	private final List<String> restartFailures = new ArrayList<>();

	private RedisServer redisServer;

	private Path redisDirectory;

	private String runId;

	private boolean keepLedger;

	private String backend;

	private Path logDirectory;

	/** When the stores were ready, on the monotonic clock. */
	private long startedNanos;

	/** Independent probes of the stores, started with the nodes. */
	private final List<StallWatch> watches = new ArrayList<>();

	/**
	 * What the library's own run ledger said about the jobs of {@link #LEASE_LOSS_JOBS},
	 * by job and fencing token, merged from reads during the run (it keeps only the
	 * newest runs of a job).
	 */
	private final Map<String, Map<Long, LibraryRun>> libraryRuns = new HashMap<>();

	/**
	 * The runs (ledger ids) that returned normally after their lease had stopped being
	 * valid, and that the library's run ledger records as {@code succeeded}: nobody had
	 * taken the job over, so the store took the run's completion (see
	 * {@link #succeededForStore}).
	 */
	private final Set<Long> completedLate = new HashSet<>();

	/** When the harness sent each node its {@code kill -9}, by node. */
	private final Map<String, Instant> killTimes = new HashMap<>();

	@AfterEach
	void stopNodes() throws Exception {
		for (StallWatch watch : this.watches) {
			watch.stop();
		}
		for (Node node : this.nodes) {
			node.resume();
			node.process.destroyForcibly();
			node.process.waitFor();
		}
		if (this.runId != null && this.keepLedger) {
			log("kept the ledger rows of run_id %s for inspection", this.runId);
		}
		else if (this.runId != null) {
			inLedger((ledger) -> {
				try (PreparedStatement delete = ledger
					.prepareStatement("DELETE FROM cluster_ledger WHERE run_id = ?")) {
					delete.setString(1, this.runId);
					return delete.executeUpdate();
				}
			});
			if ("jdbc".equals(this.backend)) {
				retrying(LEASE_URL, "harness", (leases) -> {
					try (PreparedStatement delete = leases
						.prepareStatement("DELETE FROM cluster_singleton_lease WHERE name LIKE ?")) {
						delete.setString(1, this.runId + "-%");
						return delete.executeUpdate();
					}
				});
			}
		}
		// the Redis server is the harness's own: it goes, with its data unless the run
		// failed
		if (this.redisServer != null) {
			this.redisServer.stop();
			if (!this.keepLedger) {
				deleteRecursively(this.redisDirectory);
			}
			else {
				log("kept the Redis data directory %s for inspection", this.redisDirectory.toAbsolutePath());
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("backends")
	void clusterProof(String backend) throws Exception {
		begin(backend, "");
		startNodes(this::start, this::offset);
		// the start is a join of every node: observe once it is over
		Instant observedFrom = Instant.now().plus(TTL).plus(INTERVAL).plus(SKEW).truncatedTo(ChronoUnit.SECONDS);
		for (int cycle = 0; cycle < this.profile.cycles; cycle++) {
			Instant cycleStart = Instant.now();
			sleepUntil(cycleStart.plusSeconds(8));
			Node victim = killNodeInRun();
			sleepUntil(cycleStart.plusSeconds(11));
			Instant joining = Instant.now();
			Node restarted = start(victim.id + "r", victim.offsetMillis);
			this.nodes.add(restarted);
			restarted.awaitStarted();
			// a node within the slot tolerance of the store's clock claims slots as soon
			// as its clock names them: ahead of the slowest live nodes, it claims a slot
			// before they ran the one before it, which is then lost (the last-slot
			// high-water mark); a node further ahead is refused (clock-skew) and needs no
			// window (see joinOfANodeAheadOfTheStore)
			if (restarted.offsetMillis <= SLOT_TOLERANCE.toMillis()) {
				this.faults.add(new Fault("join of " + restarted.id + " (clock " + restarted.offsetMillis + " ms)",
						joining, Instant.now()));
			}
			log("join of %s (clock %d ms) took %d ms", restarted.id, restarted.offsetMillis,
					Duration.between(joining, Instant.now()).toMillis());
			sleepUntil(cycleStart.plusSeconds(18));
			joinOfANodeAheadOfTheStore();
			sleepUntil(cycleStart.plusSeconds(25));
			pauseNodeInRun();
			sleepUntil(cycleStart.plusSeconds(42));
			outage();
			sleepUntil(cycleStart.plusSeconds(55));
			storeRestart();
			sleepUntil(cycleStart.plus(CYCLE).minusSeconds(2));
			readRunLedger(false);
		}
		// the policy jobs: a kill -9 of the node that runs the recovery=lost job,
		// mid-run,
		// and a whole-cluster stop of several periods for the misfire jobs
		for (int round = 0; round < this.profile.policyRounds; round++) {
			pauseCheckedJobHolder();
			for (int kill = 0; kill < this.profile.lostKills; kill++) {
				killLostJobHolder();
			}
			if (Boolean.getBoolean("cluster.proof.outage-at-run-end")) {
				outageAtRunEnd();
			}
			readRunLedger(false);
			wholeClusterStop();
			readRunLedger(false);
		}
		Instant observedTo = Instant.now().minus(SKEW).truncatedTo(ChronoUnit.SECONDS);
		stopCluster();
		readRunLedger(true);
		check(observedFrom, observedTo, took());
	}

	/**
	 * Name the run, create its log directory, prepare the stores and start the stall
	 * watches.
	 * @param backend the lease store
	 * @param scenario what the log directory's name starts with
	 */
	private void begin(String backend, String scenario) throws Exception {
		this.backend = backend;
		this.runId = "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
		this.logDirectory = Path.of("target", "cluster-proof-logs", scenario + backend + "-" + this.runId);
		Files.createDirectories(this.logDirectory);
		prepareStores();
		startWatches();
		this.startedNanos = System.nanoTime();
	}

	/**
	 * How long the run has taken since {@link #begin}.
	 */
	private Duration took() {
		return Duration.ofNanos(System.nanoTime() - this.startedNanos);
	}

	/**
	 * Start the profile's nodes, {@code node0} and on, and wait until they all started.
	 */
	private void startNodes(NodeStarter starter, IntToLongFunction offsets) throws Exception {
		for (int i = 0; i < this.profile.nodes; i++) {
			this.nodes.add(starter.start("node" + i, offsets.applyAsLong(i)));
		}
		awaitStarted();
	}

	private void awaitStarted() throws Exception {
		for (Node node : this.nodes) {
			node.awaitStarted();
		}
	}

	/**
	 * Stop every node (a normal shutdown: each drains its ledger backlog), then the stall
	 * watches.
	 */
	private void stopCluster() throws Exception {
		Node.stopAll(this.nodes);
		Thread.sleep(500);
		for (StallWatch watch : this.watches) {
			watch.stop();
		}
	}

	/**
	 * The leader-mode scenario: every node with {@code cluster-singleton.leader.enabled},
	 * several every-second jobs; the leader is killed with {@code kill -9} while it runs
	 * a job, and a replacement with the same clock joins, again and again. Checked from
	 * the ledger: between two kills every run is on one node, after each kill another
	 * node runs every job within {@link #TAKEOVER_BOUND}, no (job, slot) runs twice,
	 * fencing tokens rise per job across the changes, and the nodes that never led logged
	 * their {@code not-leader} skips.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("backends")
	void leaderMode(String backend) throws Exception {
		begin(backend, "leader-");
		startNodes(this::startLeaderNode, this::leaderOffset);
		Instant observedFrom = Instant.now().plus(TTL).plus(INTERVAL).truncatedTo(ChronoUnit.SECONDS);
		sleepUntil(observedFrom.plus(LEADER_STEADY));
		for (int round = 0; round < this.profile.leaderKills; round++) {
			Node leader = killNodeInRun();
			Instant at = this.kills.get(this.kills.size() - 1).at;
			sleepUntil(at.plus(TAKEOVER_BOUND));
			this.nodes.add(startLeaderNode(leader.id + "r", leader.offsetMillis));
			sleepUntil(at.plus(LEADER_STEADY));
		}
		awaitStarted();
		// the last replacement must have been a follower for a while
		Thread.sleep(LEADER_STEADY.dividedBy(3).toMillis());
		Instant observedTo = Instant.now().minus(SKEW).truncatedTo(ChronoUnit.SECONDS);
		stopCluster();
		checkLeaderMode(observedFrom, observedTo, took());
	}

	private Node startLeaderNode(String id, long offsetMillis) throws IOException {
		return start(id, offsetMillis, this.profile.leaderJobs,
				List.of("--cluster-singleton.leader.enabled=true",
						"--cluster-singleton.leader.lease-name=" + job("leader"),
						"--logging.level.io.github.clustersingleton.lease.ClusterSingletonExecutor=DEBUG"));
	}

	/**
	 * Whether a run belongs to the stretch between two kills of the leader (or the
	 * observed window's ends). A run of a killed node that the ledger says started after
	 * the kill was sent, but before its process was gone, belongs to the stretch before
	 * the kill: it started before the signal landed.
	 */
	private static boolean inEpoch(Run run, Instant start, Instant end, Kill before, Kill after) {
		if (after != null && startedWhileDying(run, after)) {
			return true;
		}
		if (before != null && startedWhileDying(run, before)) {
			return false;
		}
		return !run.dbStarted.isBefore(start) && run.dbStarted.isBefore(end);
	}

	private static boolean startedWhileDying(Run run, Kill kill) {
		return run.node.equals(kill.node) && !run.dbStarted.isBefore(kill.at) && !run.dbStarted.isAfter(kill.dead);
	}

	private long leaderOffset(int index) {
		return -LEADER_SKEW.toMillis() + (2 * LEADER_SKEW.toMillis() * index) / Math.max(1, this.profile.nodes - 1);
	}

	static List<String> backends() {
		return List.of(System.getProperty("cluster.proof.backends", "jdbc,redis").split(","));
	}

	private long offset(int index) {
		if (this.profile.nodes == 1) {
			return 0;
		}
		return -1500 + (3000L * index) / (this.profile.nodes - 1);
	}

	private void prepareStores() throws Exception {
		try (Connection ledger = ledger(); Statement statement = ledger.createStatement()) {
			createLedgerTable(statement);
			if ("jdbc".equals(this.backend)) {
				createLeaseDatabase(statement);
			}
		}
		// the stall watch's durable write, on the server that holds both the ledger
		// and (for the JDBC backend) the lease store
		retrying(probeUrl(), "harness", (probe) -> {
			try (Statement statement = probe.createStatement()) {
				statement.execute("CREATE TABLE IF NOT EXISTS cluster_proof_probe (id INT PRIMARY KEY, n BIGINT)");
				statement.execute("INSERT INTO cluster_proof_probe VALUES (1, 0) ON CONFLICT (id) DO NOTHING");
			}
			return null;
		});
		if (!"jdbc".equals(this.backend)) {
			// a Redis server of the harness's own, which it can kill and restart without
			// touching the machine's Redis
			this.redisDirectory = Path.of("target", "cluster-proof-redis", this.runId).toAbsolutePath();
			Files.createDirectories(this.redisDirectory);
			this.redisServer = new RedisServer(findRedisServer(), freePort(), this.redisDirectory,
					this.logDirectory.resolve("redis-server.log").toAbsolutePath());
			this.redisServer.start();
			Instant answered = this.redisServer.awaitAnswering();
			assertThat(redis("PING")).isEqualTo("PONG");
			assertThat(redis("CONFIG", "GET", "appendfsync")).isEqualTo(List.of("appendfsync", "always"));
			log("started %s on 127.0.0.1:%d (pid %d), data in %s, answering at %s", this.redisServer.binary,
					this.redisServer.port, this.redisServer.process.pid(), this.redisDirectory, answered);
		}
	}

	/**
	 * Create the {@code cluster_ledger} table (and its later columns) if it does not
	 * exist.
	 * @param statement a statement on the ledger's database
	 */
	static void createLedgerTable(Statement statement) throws SQLException {
		statement.execute("CREATE TABLE IF NOT EXISTS cluster_ledger (id BIGSERIAL PRIMARY KEY, "
				+ "run_id VARCHAR(40) NOT NULL, job VARCHAR(200) NOT NULL, slot TIMESTAMPTZ, "
				+ "node VARCHAR(40) NOT NULL, fencing_token BIGINT NOT NULL, started_at TIMESTAMPTZ NOT NULL, "
				+ "ended_at TIMESTAMPTZ, lease_valid_at_end BOOLEAN, "
				+ "db_started TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(), db_ended TIMESTAMPTZ)");
		statement.execute("CREATE INDEX IF NOT EXISTS cluster_ledger_run ON cluster_ledger (run_id, node)");
		// added for the store restart: a retried insert must not record a run twice,
		// and a delayed write says that its start or end is not on the database's
		// clock
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS run_key VARCHAR(120)");
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS db_started_derived BOOLEAN "
				+ "NOT NULL DEFAULT false");
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS db_ended_derived BOOLEAN "
				+ "NOT NULL DEFAULT false");
		statement.execute("CREATE UNIQUE INDEX IF NOT EXISTS cluster_ledger_run_key ON cluster_ledger (run_key)");
		// the fire time the node's scheduler meant the trigger for (its clock):
		// tells a late trigger's run from an on-time one
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS fire_time TIMESTAMPTZ");
		// what the context said (attempt, trigger, the other missed slots of a
		// run-once catch-up) and whether the run threw: the policy checks
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS attempt INT NOT NULL DEFAULT 1");
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS run_trigger VARCHAR(16)");
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS missed_slots TEXT");
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS failed BOOLEAN");
		// the jobs that check their lease: whether the run ended with LeaseLostException;
		// the @Transactional job: whether a transaction was active, and which one
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS lease_lost BOOLEAN");
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS in_transaction BOOLEAN");
		statement.execute("ALTER TABLE cluster_ledger ADD COLUMN IF NOT EXISTS txid BIGINT");
	}

	/**
	 * Create the lease database if it does not exist.
	 * @param statement a statement on another database of the server
	 */
	static void createLeaseDatabase(Statement statement) throws SQLException {
		try (ResultSet result = statement
			.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + LEASE_DATABASE + "'")) {
			if (!result.next()) {
				statement.execute("CREATE DATABASE " + LEASE_DATABASE);
			}
		}
	}

	private String probeUrl() {
		return "jdbc".equals(this.backend) ? LEASE_URL : LEDGER_URL;
	}

	/**
	 * Start the stall watches: one durable write every 250 ms to PostgreSQL (the lease
	 * store of the JDBC backend, and the ledger's server for both), and to the harness's
	 * Redis server for the Redis backend. Each has a connection of its own, which is
	 * opened again after a failure.
	 */
	private void startWatches() {
		this.watches.add(new StallWatch("PostgreSQL " + ("jdbc".equals(this.backend) ? LEASE_DATABASE : "postgres"),
				new PostgresProbe(probeUrl(), "probe-" + this.runId)));
		if (this.redisServer != null) {
			this.watches.add(new StallWatch("Redis", () -> redis("INCR", "cluster-proof-probe")));
		}
		this.watches.forEach(StallWatch::start);
	}

	private static Path findRedisServer() {
		// the one on the PATH, else the one in the embedded-redis artifact
		return TestStores.redisServerBinary();
	}

	private static Path findOnPath(String name) {
		return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, name))
			.filter(Files::isExecutable)
			.findFirst()
			.orElse(null);
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private Node start(String id, long offsetMillis) throws IOException {
		return start(id, offsetMillis, this.profile.jobs, policyArguments());
	}

	/**
	 * Start a node with some of the every-second jobs enabled and more arguments.
	 */
	private Node start(String id, long offsetMillis, int jobs, List<String> arguments) throws IOException {
		List<String> command = new ArrayList<>(List.of("--node.id=" + id, "--node.clock-offset-ms=" + offsetMillis,
				"--node.jobs=" + jobs, "--node.run-id=" + this.runId, "--node.ledger-url=" + LEDGER_URL,
				"--cluster-singleton.backend=" + this.backend,
				"--node.executor-log-level=" + System.getProperty("cluster.proof.node-log-level", "INFO")));
		command.addAll(arguments);
		if ("jdbc".equals(this.backend)) {
			// the fallback of the store restart terminates this run's connections by name
			command.add("--spring.datasource.url=" + LEASE_URL + (LEASE_URL.contains("?") ? "&" : "?")
					+ "ApplicationName=lease-" + this.runId);
			command.add("--cluster-singleton.jdbc.initialize-schema=always");
		}
		else {
			command.add("--spring.data.redis.host=127.0.0.1");
			command.add("--spring.data.redis.port=" + this.redisServer.port);
			command.add("--spring.autoconfigure.exclude="
					+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
		}
		return Node.start(id, offsetMillis, NodeApplication.class, command, this.logDirectory.resolve(id + ".log"));
	}

	private Node killNodeInRun() throws Exception {
		Node victim = awaitNodeInRun();
		Instant at = Instant.now();
		victim.kill();
		Instant dead = Instant.now();
		this.killTimes.put(victim.id, at);
		List<String> held = new ArrayList<>();
		for (long id : openRuns(victim)) {
			held.add(jobOf(id));
		}
		this.kills.add(new Kill(victim.id, at, dead, held));
		this.faults.add(new Fault("kill -9 " + victim.id, at, at));
		log("kill -9 %s at %s while it ran %s", victim.id, at, held);
		return victim;
	}

	/**
	 * Restart (kill -9, then start again with the same clock) the node whose clock is
	 * ahead of the store's by more than the slot tolerance, if there is one. The store
	 * refuses every slot it names, so its join is no fault window: a slot missed around
	 * it fails the check.
	 */
	private void joinOfANodeAheadOfTheStore() throws Exception {
		Node ahead = this.nodes.stream()
			.filter((node) -> !node.dead && node.offsetMillis > SLOT_TOLERANCE.toMillis())
			.max(Comparator.comparingLong((node) -> node.offsetMillis))
			.orElse(null);
		if (ahead == null) {
			return;
		}
		Instant at = Instant.now();
		ahead.kill();
		this.killTimes.put(ahead.id, at);
		Node restarted = start(ahead.id + "r", ahead.offsetMillis);
		this.nodes.add(restarted);
		restarted.awaitStarted();
		log("join of %s (clock %d ms, ahead of the store by more than the slot tolerance) took %d ms, no fault window",
				restarted.id, restarted.offsetMillis, Duration.between(at, Instant.now()).toMillis());
	}

	/**
	 * The properties that set the policy jobs' policies (nothing in the node's code does)
	 * and enable them.
	 */
	private List<String> policyArguments() {
		String prefix = "--cluster-singleton.jobs[" + this.runId + "-";
		return List.of("--node.cron." + NodeJobs.LOST + "=" + LOST_CRON, prefix + NodeJobs.LOST + "].recovery=lost",
				"--node.cron." + NodeJobs.FAILED + "=" + FAILED_CRON, prefix + NodeJobs.FAILED + "].recovery=failed",
				prefix + NodeJobs.FAILED + "].retry-delay=" + RETRY_DELAY.toMillis() + "ms",
				"--node.cron." + NodeJobs.RUN_ONCE + "=" + MISFIRE_CRON,
				prefix + NodeJobs.RUN_ONCE + "].misfire=run-once",
				"--node.cron." + NodeJobs.RUN_ALL + "=" + MISFIRE_CRON, prefix + NodeJobs.RUN_ALL + "].misfire=run-all",
				prefix + NodeJobs.RUN_ALL + "].misfire-limit=" + MISFIRE_LIMIT,
				"--node.cron." + NodeJobs.CHECKED + "=" + CHECKED_CRON, prefix + NodeJobs.CHECKED + "].recovery=lost",
				prefix + NodeJobs.CHECKED + "].max-attempts=" + LEASE_LOSS_MAX_ATTEMPTS,
				"--node.cron." + NodeJobs.OVERRUN + "=" + OVERRUN_CRON, prefix + NodeJobs.OVERRUN + "].recovery=lost",
				prefix + NodeJobs.OVERRUN + "].max-attempts=" + LEASE_LOSS_MAX_ATTEMPTS,
				prefix + NodeJobs.OVERRUN + "].lock-at-most-for=" + OVERRUN_LOCK_AT_MOST_FOR.toMillis() + "ms",
				"--node.cron." + NodeJobs.TRANSACTIONAL + "=" + TRANSACTIONAL_CRON,
				prefix + NodeJobs.TRANSACTIONAL + "].misfire=run-all",
				prefix + NodeJobs.TRANSACTIONAL + "].misfire-limit=" + MISFIRE_LIMIT,
				prefix + NodeJobs.TRANSACTIONAL + "].recovery=lost");
	}

	private String job(String suffix) {
		return this.runId + "-" + suffix;
	}

	/**
	 * Return the node and ledger id of the runs of a job that have not ended and started,
	 * by the database's clock, between {@code maxAge} and {@code minAge} ago (PostgreSQL
	 * intervals), newest first.
	 */
	private List<Object[]> openRuns(String job, String minAge, String maxAge) throws Exception {
		return inLedger((ledger) -> {
			try (PreparedStatement query = ledger.prepareStatement(
					"SELECT node, id FROM cluster_ledger " + "WHERE run_id = ? AND job = ? AND ended_at IS NULL "
							+ "AND db_started < clock_timestamp() - CAST(? AS INTERVAL) "
							+ "AND db_started > clock_timestamp() - CAST(? AS INTERVAL) ORDER BY id DESC")) {
				query.setString(1, this.runId);
				query.setString(2, job);
				query.setString(3, minAge);
				query.setString(4, maxAge);
				List<Object[]> rows = new ArrayList<>();
				try (ResultSet result = query.executeQuery()) {
					while (result.next()) {
						rows.add(new Object[] { result.getString(1), result.getLong(2) });
					}
				}
				return rows;
			}
		});
	}

	private Node liveNode(String id) {
		return this.nodes.stream().filter((node) -> node.id.equals(id) && !node.dead).findFirst().orElse(null);
	}

	/**
	 * Kill -9 the node that runs the {@code recovery: lost} job, at least a second into a
	 * run (of several seconds, longer than the TTL); then, once the survivors had the
	 * time to recover the slot, start a replacement with the same clock.
	 */
	private void killLostJobHolder() throws Exception {
		String job = job(NodeJobs.LOST);
		Instant deadline = Instant.now().plus(LOST_PERIOD.multipliedBy(4));
		while (Instant.now().isBefore(deadline)) {
			for (Object[] row : openRuns(job, "1 second", "3 seconds")) {
				Node victim = liveNode((String) row[0]);
				if (victim == null) {
					continue;
				}
				Instant at = Instant.now();
				victim.kill();
				Instant dead = Instant.now();
				this.killTimes.put(victim.id, at);
				List<String> held = new ArrayList<>();
				for (long id : openRuns(victim)) {
					held.add(jobOf(id));
				}
				this.kills.add(new Kill(victim.id, at, dead, held));
				this.faults.add(new Fault("kill -9 " + victim.id + " (running " + NodeJobs.LOST + ")", at, at));
				this.lostKills.add(new LostKill(victim.id, at, (Long) row[1]));
				log("kill -9 %s at %s while it ran %s (ledger row %d) and %s", victim.id, at, NodeJobs.LOST, row[1],
						held);
				Thread.sleep(TTL.multipliedBy(2).plusSeconds(1).toMillis());
				Instant joining = Instant.now();
				Node restarted = start(victim.id + "r", victim.offsetMillis);
				this.nodes.add(restarted);
				restarted.awaitStarted();
				if (restarted.offsetMillis <= SLOT_TOLERANCE.toMillis()) {
					this.faults.add(new Fault("join of " + restarted.id + " (clock " + restarted.offsetMillis + " ms)",
							joining, Instant.now()));
				}
				awaitRecoveryEnded(job, (Long) row[1], at.plus(RECOVERY_WAIT));
				return;
			}
			Thread.sleep(20);
		}
		throw new AssertionError("no live node ran " + job + " for " + LOST_PERIOD.multipliedBy(4));
	}

	/**
	 * Wait until a later run of the killed run's slot has ended, or until the deadline,
	 * so that the next fault (another kill, or a whole-cluster stop) does not land on the
	 * recovery run itself: a recovery cut short by the harness would need another attempt
	 * after the harness stops watching. A recovery that has not ended by the deadline is
	 * left to the check, which reports it.
	 * @param job the {@code recovery: lost} job
	 * @param killedRun the ledger row of the run that was killed
	 * @param deadline how long to wait at the most
	 */
	private void awaitRecoveryEnded(String job, long killedRun, Instant deadline) throws Exception {
		while (Instant.now().isBefore(deadline)) {
			boolean ended = inLedger((ledger) -> {
				try (PreparedStatement query = ledger.prepareStatement("SELECT count(*) FROM cluster_ledger later "
						+ "JOIN cluster_ledger killed ON killed.id = ? AND later.slot = killed.slot "
						+ "WHERE later.run_id = ? AND later.job = ? AND later.id > killed.id "
						+ "AND later.ended_at IS NOT NULL")) {
					query.setLong(1, killedRun);
					query.setString(2, this.runId);
					query.setString(3, job);
					try (ResultSet result = query.executeQuery()) {
						return result.next() && result.getLong(1) > 0;
					}
				}
			});
			if (ended) {
				return;
			}
			Thread.sleep(100);
		}
		log("the recovery of ledger row %d of %s had not ended by %s", killedRun, job, deadline);
	}

	/**
	 * With {@code -Dcluster.proof.outage-at-run-end=true} (off by default): the store
	 * outage of the cycle, started about half a second before a run of the
	 * {@code recovery: lost} job ends, so that the run succeeds but its completion (the
	 * release) cannot reach the store until the outage ends, after the run's lease
	 * expired. The engine keeps sending the completion, the store records it by the run's
	 * token, and recovery claims wait a grace after marking the run: the slot must not
	 * run again. Should it, it counts only as the documented window if the run's node
	 * logged that its completion was superseded or abandoned (see {@link #duplicates}).
	 */
	private void outageAtRunEnd() throws Exception {
		String job = job(NodeJobs.LOST);
		Instant deadline = Instant.now().plus(LOST_PERIOD.multipliedBy(4));
		while (Instant.now().isBefore(deadline)) {
			Long id = inLedger((ledger) -> {
				try (PreparedStatement query = ledger.prepareStatement("SELECT id FROM cluster_ledger "
						+ "WHERE run_id = ? AND job = ? AND ended_at IS NULL "
						+ "AND db_started < clock_timestamp() - interval '3400 milliseconds' "
						+ "AND db_started > clock_timestamp() - interval '3700 milliseconds' ORDER BY id DESC")) {
					query.setString(1, this.runId);
					query.setString(2, job);
					try (ResultSet result = query.executeQuery()) {
						return result.next() ? result.getLong(1) : null;
					}
				}
			});
			if (id != null) {
				log("store outage about 0.5 s before the end of run %d of %s", id, NodeJobs.LOST);
				outage();
				Thread.sleep(TTL.multipliedBy(3).toMillis());
				return;
			}
			Thread.sleep(20);
		}
		throw new AssertionError("no run of " + job + " to end during a store outage");
	}

	/**
	 * Kill -9 every node, keep the cluster down for {@link #CLUSTER_DOWN} (several
	 * periods of every policy job), start them all again with the same clocks, and give
	 * them {@link #SETTLE} to catch up.
	 */
	private void wholeClusterStop() throws Exception {
		List<Node> live = this.nodes.stream().filter((node) -> !node.dead).toList();
		Instant at = Instant.now();
		for (Node node : live) {
			node.process.destroyForcibly();
			this.killTimes.put(node.id, at);
		}
		for (Node node : live) {
			node.process.waitFor();
			node.dead = true;
		}
		sleepUntil(at.plus(CLUSTER_DOWN));
		Instant restarting = Instant.now();
		List<Node> restarted = new ArrayList<>();
		for (Node node : live) {
			Node again = start(node.id + "w", node.offsetMillis);
			this.nodes.add(again);
			restarted.add(again);
		}
		for (Node node : restarted) {
			node.awaitStarted();
		}
		Instant started = Instant.now();
		Instant firstUp = started;
		for (Node node : restarted) {
			Instant up = startedAt(node);
			if (up != null && up.isBefore(firstUp)) {
				firstUp = up;
			}
		}
		this.faults.add(new Fault("whole-cluster stop (kill -9 of " + live.size() + " nodes, restart after "
				+ CLUSTER_DOWN.toSeconds() + " s)", at, started));
		this.clusterStops.add(new ClusterStop(at, restarting, firstUp, started));
		log("whole-cluster stop: %d nodes killed at %s, started again at %s, all up at %s", live.size(), at, restarting,
				started);
		Thread.sleep(SETTLE.toMillis());
	}

	/**
	 * When a node logged "Started NodeApplication" (its log's timestamps are on the
	 * system clock, not on the node's skewed one).
	 */
	private static Instant startedAt(Node node) throws IOException {
		for (String line : Files.readAllLines(node.log, StandardCharsets.ISO_8859_1)) {
			if (line.contains("Started NodeApplication")) {
				try {
					return Instant.parse(line.substring(0, line.indexOf(' ')));
				}
				catch (RuntimeException ex) {
					return null;
				}
			}
		}
		return null;
	}

	/**
	 * SIGSTOP, for {@link #PAUSE} (2.5 TTL), the node that runs the job that checks its
	 * lease between units of work, half a second into a run: once resumed, its next
	 * {@code checkLease()} throws {@code LeaseLostException}, and {@code recovery: lost}
	 * runs the slot again meanwhile on another node. Then wait for that recovery to end.
	 */
	private void pauseCheckedJobHolder() throws Exception {
		String job = job(NodeJobs.CHECKED);
		Instant deadline = Instant.now().plus(CHECKED_PERIOD.multipliedBy(4));
		while (Instant.now().isBefore(deadline)) {
			for (Object[] row : openRuns(job, "500 milliseconds", "1 second")) {
				Node victim = liveNode((String) row[0]);
				if (victim == null) {
					continue;
				}
				long id = (Long) row[1];
				Instant at = Instant.now();
				victim.signal("STOP");
				Instant stoppedBy = Instant.now();
				victim.stopped = true;
				List<Long> openRuns = openRuns(victim);
				if (!openRuns.contains(id)) {
					// the run ended between the two looks: try again
					victim.resume();
					continue;
				}
				Thread.sleep(PAUSE.toMillis());
				victim.resume();
				Instant resumed = Instant.now();
				this.staleRuns.addAll(openRuns);
				Instant landed = stoppedBy.plusMillis(victim.offsetMillis);
				openRuns.forEach((open1) -> this.stopTimes.put(open1, landed));
				this.faults.add(new Fault(
						"SIGSTOP " + victim.id + " for " + PAUSE.toSeconds() + "s (running " + NodeJobs.CHECKED + ")",
						at, resumed, victim.id));
				log("SIGSTOP %s at %s for %s while it ran %s (ledger row %d), runs %s", victim.id, at, PAUSE,
						NodeJobs.CHECKED, id, openRuns);
				awaitRecoveryEnded(job, id, resumed.plus(RECOVERY_WAIT));
				return;
			}
			Thread.sleep(20);
		}
		throw new AssertionError("no live node ran " + job + " for " + CHECKED_PERIOD.multipliedBy(4));
	}

	/**
	 * When the SIGSTOP of a paused run's node landed, on the node's clock: not before the
	 * harness's {@code kill -STOP} returned, and up to one sleep of the node's pause
	 * monitor (50 ms) after the start of its pause line (its last wake-up before the
	 * stop: had the JVM still run, it would have woken again then), since a loaded host
	 * can deliver the signal tens of milliseconds after the harness sent it.
	 * @param stale the paused run
	 * @param sent when the harness's signal returned, on the node's clock
	 * @param observed the measured stalls and pauses
	 * @return the moment the node stopped running, on its clock
	 */
	private Instant stopLanded(Run stale, Instant sent, List<Fault> observed) {
		long offset = this.nodes.stream()
			.filter((node) -> node.id.equals(stale.node))
			.mapToLong((node) -> node.offsetMillis)
			.findFirst()
			.orElse(0);
		Instant sentReal = sent.minusMillis(offset);
		return observed.stream()
			.filter((pause) -> stale.node.equals(pause.node) && !pause.start.isBefore(sentReal.minusSeconds(1))
					&& pause.start.isBefore(sentReal.plusSeconds(1)))
			.map((pause) -> pause.start.plusMillis(offset + PAUSE_MONITOR_SLEEP_MILLIS))
			.filter((start) -> start.isAfter(sent))
			.findFirst()
			.orElse(sent);
	}

	/**
	 * Whether a run counts as a success of its slot: it succeeded by the ledger (ended,
	 * did not throw, lease valid at its end), or it returned normally after its lease had
	 * stopped being valid and the store still took its completion, as the library's run
	 * ledger shows ({@code succeeded}). The engine judges a run that returns normally by
	 * whether the store still records it as the job's current run: when nobody took the
	 * job over meanwhile (the store itself was away), the slot ran and is not run again.
	 * @param run a run
	 * @return whether it is the slot's success
	 */
	private boolean succeededForStore(Run run) {
		return run.succeeded() || this.completedLate.contains(run.id);
	}

	/**
	 * Find the runs that returned normally with their lease no longer valid and that the
	 * library's run ledger records as {@code succeeded}.
	 */
	private void noteCompletedLate(List<Run> runs) {
		for (Run run : runs) {
			if (run.dbEnded == null || run.failed || Boolean.TRUE.equals(run.leaseValid)) {
				continue;
			}
			LibraryRun stored = this.libraryRuns.getOrDefault(run.job, Map.of()).get(run.token);
			if (stored != null && "succeeded".equals(stored.state)) {
				this.completedLate.add(run.id);
				log("%s returned with its lease no longer valid; the run ledger records it as succeeded: %s", run,
						stored);
			}
		}
	}

	/**
	 * Why the store never recorded the success of a run of the jobs of
	 * {@link #LEASE_LOSS_JOBS}, if its node was killed within half a TTL after the run
	 * ended: the completion goes to the store with the release, after the method returned
	 * (and after the ledger row was completed), so a {@code kill -9} there leaves the run
	 * {@code running} and {@code recovery: lost} runs the slot again, the documented
	 * at-least-once window. Only when the library's run ledger confirms that the run was
	 * not recorded as {@code succeeded}.
	 * @param run a run that succeeded by the ledger
	 * @return the explanation, or {@code null}
	 */
	private String completionDiedWithNode(Run run) {
		Instant killed = this.killTimes.get(run.node);
		if (killed == null || run.dbEnded == null || killed.isBefore(run.dbEnded)
				|| Duration.between(run.dbEnded, killed).compareTo(TTL.dividedBy(2)) > 0) {
			return null;
		}
		LibraryRun stored = this.libraryRuns.getOrDefault(run.job, Map.of()).get(run.token);
		if (stored == null || "succeeded".equals(stored.state)) {
			return null;
		}
		return "kill -9 of " + run.node + " at " + killed + ", " + Duration.between(run.dbEnded, killed).toMillis()
				+ " ms after the run ended, before its completion reached the store (library run ledger: " + stored
				+ ")";
	}

	/**
	 * Read the library's own run ledger of the jobs of {@link #LEASE_LOSS_JOBS} (JDBC:
	 * the {@code cluster_singleton_run} table; Redis: the
	 * {@code {cluster-singleton:<job>}:runs} sorted set) and merge it into
	 * {@link #libraryRuns}: the ledger keeps only the newest runs of each job, so the
	 * harness reads it during the run too.
	 * @param required whether a failure to read fails the run (the last read); else it is
	 * logged and the next read covers it
	 */
	private void readRunLedger(boolean required) throws Exception {
		for (String suffix : RUN_LEDGER_JOBS) {
			String job = job(suffix);
			List<LibraryRun> read;
			try {
				read = "jdbc".equals(this.backend) ? readJdbcRunLedger(job, required) : readRedisRunLedger(job);
			}
			catch (IOException | SQLException ex) {
				if (required) {
					throw ex;
				}
				log("could not read the run ledger of %s (read again later): %s", job, ex);
				continue;
			}
			Map<Long, LibraryRun> known = this.libraryRuns.computeIfAbsent(job, (name) -> new HashMap<>());
			read.forEach((run) -> known.put(run.token, run));
		}
	}

	private List<LibraryRun> readJdbcRunLedger(String job, boolean retry) throws Exception {
		SqlWork<List<LibraryRun>> work = (connection) -> {
			try (PreparedStatement query = connection.prepareStatement("SELECT fencing_token, slot, attempt, state, "
					+ "owner FROM cluster_singleton_run WHERE name = ? ORDER BY fencing_token")) {
				query.setString(1, job);
				List<LibraryRun> runs = new ArrayList<>();
				try (ResultSet result = query.executeQuery()) {
					while (result.next()) {
						runs.add(new LibraryRun(result.getLong(1), instant(result.getTimestamp(2)), result.getInt(3),
								result.getString(4), result.getString(5)));
					}
				}
				return runs;
			}
		};
		if (retry) {
			return retrying(LEASE_URL, "harness", work);
		}
		try (Connection connection = connect(LEASE_URL, "harness")) {
			return work.apply(connection);
		}
	}

	private static final java.util.regex.Pattern REDIS_RUN = java.util.regex.Pattern
		.compile("\\{\"fencing_token\":(\\d+),\"state\":\"(\\w+)\",\"slot\":(\\d+|null),\"attempt\":(\\d+),"
				+ "\"owner\":\"([^\"]*)\"");

	private List<LibraryRun> readRedisRunLedger(String job) throws IOException {
		Object reply = redis("ZRANGE", "{" + "cluster-singleton:" + job + "}:runs", "0", "-1");
		List<LibraryRun> runs = new ArrayList<>();
		for (Object member : (List<?>) reply) {
			java.util.regex.Matcher matcher = REDIS_RUN.matcher(String.valueOf(member));
			if (!matcher.find()) {
				throw new IOException("unexpected run ledger member of " + job + ": " + member);
			}
			runs.add(new LibraryRun(Long.parseLong(matcher.group(1)),
					"null".equals(matcher.group(3)) ? null : Instant.ofEpochMilli(Long.parseLong(matcher.group(3))),
					Integer.parseInt(matcher.group(4)), matcher.group(2), matcher.group(5)));
		}
		return runs;
	}

	private void pauseNodeInRun() throws Exception {
		for (int attempt = 0; attempt < 100; attempt++) {
			Node victim = awaitNodeInRun();
			Instant at = Instant.now();
			victim.signal("STOP");
			Instant stoppedBy = Instant.now();
			victim.stopped = true;
			List<Long> open = openRuns(victim);
			if (open.isEmpty()) {
				// the run ended between the two looks: try again
				victim.resume();
				continue;
			}
			Thread.sleep(PAUSE.toMillis());
			victim.resume();
			Instant resumed = Instant.now();
			this.staleRuns.addAll(open);
			Instant landed = stoppedBy.plusMillis(victim.offsetMillis);
			open.forEach((id) -> this.stopTimes.put(id, landed));
			this.faults
				.add(new Fault("SIGSTOP " + victim.id + " for " + PAUSE.toSeconds() + "s", at, resumed, victim.id));
			log("SIGSTOP %s at %s for %s during runs %s", victim.id, at, PAUSE, open);
			return;
		}
		throw new AssertionError("found no node to pause while it ran a job");
	}

	private void outage() throws Exception {
		Instant at = Instant.now();
		if ("jdbc".equals(this.backend)) {
			// drop every lease-store connection, again and again, for the outage
			try (Connection ledger = ledger();
					PreparedStatement terminate = ledger.prepareStatement(
							"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = ? "
									+ "AND pid <> pg_backend_pid()")) {
				terminate.setString(1, LEASE_DATABASE);
				int killed = 0;
				while (Instant.now().isBefore(at.plus(OUTAGE))) {
					try (ResultSet result = terminate.executeQuery()) {
						result.next();
						killed += result.getInt(1);
					}
					Thread.sleep(100);
				}
				log("terminated %d lease-store connections during %s", killed, OUTAGE);
			}
		}
		else {
			redis("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
			redis("CLIENT", "PAUSE", String.valueOf(OUTAGE.toMillis()), "ALL");
			Thread.sleep(OUTAGE.toMillis());
			log("killed Redis clients and paused Redis for %s", OUTAGE);
		}
		this.faults.add(new Fault("store outage", at, at.plus(OUTAGE)));
	}

	/**
	 * Restart the lease store, while a node runs a job. Redis: {@code kill -9} of the
	 * harness's own {@code redis-server}, down for {@link #STORE_DOWN}, then started
	 * again on the same port and directory (it reloads its AOF). PostgreSQL: a restart of
	 * the cluster ({@code pg_ctlcluster restart -m immediate}) when
	 * {@code cluster.proof.pg-restart} is on and it works; otherwise every connection of
	 * this run's nodes (lease store and ledger) is terminated, again and again for
	 * {@link #STORE_DOWN}.
	 */
	private void storeRestart() throws Exception {
		// each restart starts while a job runs: its lease renewal and release, and its
		// ledger writes, meet the restart
		if ("jdbc".equals(this.backend)) {
			awaitNodeInRun();
			String fallback = this.profile.pgRestart ? restartPostgres() : "-Dcluster.proof.pg-restart=false";
			if (fallback != null) {
				terminateRunConnections(fallback);
			}
			return;
		}
		Map<String, Long> fencesBefore = fences();
		awaitNodeInRun();
		Instant at = Instant.now();
		this.redisServer.kill();
		Thread.sleep(STORE_DOWN.toMillis());
		Instant restarting = Instant.now();
		this.redisServer.start();
		Instant answered = this.redisServer.awaitAnswering();
		Map<String, Long> fencesAfter = fences();
		this.faults.add(new Fault("store restart (redis-server kill -9, restart)", at, answered));
		List<String> lost = new ArrayList<>();
		fencesBefore.forEach((key, before) -> {
			Long after = fencesAfter.get(key);
			if (after == null || after < before) {
				lost.add(key + " fence " + before + " before the kill, " + after + " after the restart");
			}
		});
		if (!lost.isEmpty()) {
			this.restartFailures.add("fencing counters lost in the Redis restart: " + lost);
		}
		this.restarts.add(String.format(Locale.ROOT,
				"redis-server kill -9 at %s, down %d ms, answering PING %d ms after the start (%d ms after the "
						+ "kill); fence counters of %d jobs read before the kill, %d kept after the AOF reload",
				at, Duration.between(at, restarting).toMillis(), Duration.between(restarting, answered).toMillis(),
				Duration.between(at, answered).toMillis(), fencesBefore.size(), fencesBefore.size() - lost.size()));
		log("store restart: redis-server killed at %s, answering again at %s", at, answered);
	}

	/**
	 * The fence counter of every job of this run, by meta key.
	 */
	private Map<String, Long> fences() throws IOException {
		Map<String, Long> fences = new TreeMap<>();
		for (int i = 0; i < this.profile.jobs; i++) {
			String key = String.format(Locale.ROOT, "{cluster-singleton:%s-job%02d}:meta", this.runId, i);
			Object fence = redis("HGET", key, "fence");
			if (fence != null) {
				fences.put(key, Long.parseLong((String) fence));
			}
		}
		return fences;
	}

	/**
	 * Restart the PostgreSQL cluster ({@code pg_ctlcluster restart -m immediate}),
	 * polling it meanwhile: the fault ends when the server accepts a connection again
	 * after it went down (not when the command returns, which takes longer).
	 * @return why it was not restarted, or {@code null} when it was
	 */
	private String restartPostgres() throws Exception {
		if (!LOCAL_POSTGRES) {
			return "PostgreSQL is not the machine's server on 127.0.0.1:5432";
		}
		Path pgCtlCluster = findOnPath("pg_ctlcluster");
		if (pgCtlCluster == null) {
			return "pg_ctlcluster not on the PATH";
		}
		File[] versions = new File("/etc/postgresql").listFiles(File::isDirectory);
		if (versions == null || versions.length != 1) {
			return "not exactly one cluster version under /etc/postgresql";
		}
		String version = versions[0].getName();
		Instant at = Instant.now();
		Process restart = pgCtlCluster(pgCtlCluster, version, "restart", "-m", "immediate");
		AtomicReference<Instant> down = new AtomicReference<>();
		AtomicReference<Instant> answered = new AtomicReference<>();
		try {
			Awaitility.await()
				.atMost(STORE_BACK)
				.pollDelay(Duration.ZERO)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> {
					boolean accepts = acceptsConnections();
					if (!accepts) {
						down.compareAndSet(null, Instant.now());
						return !restart.isAlive() && restart.exitValue() != 0;
					}
					if (down.get() != null) {
						answered.set(Instant.now());
						return true;
					}
					// the command failed without stopping the server
					return !restart.isAlive() && restart.exitValue() != 0;
				});
		}
		catch (ConditionTimeoutException ex) {
			log("PostgreSQL did not go down and come back within %s", STORE_BACK);
		}
		int exit = restart.waitFor(STORE_BACK.toSeconds(), TimeUnit.SECONDS) ? restart.exitValue() : -1;
		Instant commandDone = Instant.now();
		if (!restart.isAlive() && exit == 0 && answered.get() != null) {
			this.faults.add(new Fault("store restart (PostgreSQL " + version + "/main restart -m immediate)", at,
					answered.get()));
			this.restarts.add(String.format(Locale.ROOT,
					"PostgreSQL %s/main restarted with pg_ctlcluster restart -m immediate at %s: first refused "
							+ "connection after %d ms, accepting connections again %d ms after the start of the "
							+ "restart (down for %d ms); the command itself took %d ms",
					version, at, Duration.between(at, down.get()).toMillis(),
					Duration.between(at, answered.get()).toMillis(),
					Duration.between(down.get(), answered.get()).toMillis(),
					Duration.between(at, commandDone).toMillis()));
			log("store restart: PostgreSQL %s/main restarted at %s, accepting connections at %s", version, at,
					answered.get());
			return null;
		}
		restart.destroyForcibly();
		Instant back = awaitPostgres();
		if (back == null) {
			log("PostgreSQL did not come back after the failed restart: starting it");
			pgCtlCluster(pgCtlCluster, version, "start").waitFor(STORE_BACK.toSeconds(), TimeUnit.SECONDS);
			back = awaitPostgres();
			assertThat(back).as("PostgreSQL accepting connections after pg_ctlcluster start").isNotNull();
		}
		if (down.get() != null) {
			// whatever it did to the server counts as a fault
			this.faults.add(new Fault("failed PostgreSQL restart", at, back));
		}
		return "pg_ctlcluster " + version + " main restart failed (exit code " + exit + ", see "
				+ this.logDirectory.resolve("pg_ctlcluster.log") + ")";
	}

	private Process pgCtlCluster(Path pgCtlCluster, String version, String... action) throws IOException {
		List<String> command = new ArrayList<>(
				List.of(pgCtlCluster.toString(), "--skip-systemctl-redirect", version, "main"));
		command.addAll(List.of(action));
		File log = this.logDirectory.resolve("pg_ctlcluster.log").toFile();
		return new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log))
			.start();
	}

	private static boolean acceptsConnections() {
		try (Connection connection = connect(LEASE_URL, "harness");
				Statement statement = connection.createStatement()) {
			statement.execute("SELECT 1");
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	/**
	 * Poll until PostgreSQL accepts a connection to the lease database.
	 * @return when it did, or {@code null} if it did not within {@link #STORE_BACK}
	 */
	private static Instant awaitPostgres() {
		AtomicReference<Instant> answered = new AtomicReference<>();
		try {
			Awaitility.await()
				.atMost(STORE_BACK)
				.pollDelay(Duration.ZERO)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> {
					if (acceptsConnections()) {
						answered.set(Instant.now());
						return true;
					}
					return false;
				});
		}
		catch (ConditionTimeoutException ex) {
			return null;
		}
		return answered.get();
	}

	/**
	 * The fallback of the PostgreSQL restart: terminate every connection of this run's
	 * nodes, lease store and ledger, again and again for {@link #STORE_DOWN}, as a
	 * restart does to its clients.
	 */
	private void terminateRunConnections(String why) throws Exception {
		Instant at = Instant.now();
		int killed = 0;
		try (Connection connection = connect(LEDGER_URL, "harness");
				PreparedStatement terminate = connection
					.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
							+ "WHERE application_name IN (?, ?) AND pid <> pg_backend_pid()")) {
			terminate.setString(1, "lease-" + this.runId);
			terminate.setString(2, "ledger-" + this.runId);
			while (Instant.now().isBefore(at.plus(STORE_DOWN))) {
				try (ResultSet result = terminate.executeQuery()) {
					result.next();
					killed += result.getInt(1);
				}
				Thread.sleep(100);
			}
		}
		Instant end = Instant.now();
		this.faults.add(new Fault("store restart fallback (connections terminated)", at, end));
		this.restarts.add(String.format(Locale.ROOT,
				"PostgreSQL not restarted (%s): fallback, %d connections of this run's nodes (lease store and "
						+ "ledger) terminated from %s for %d ms",
				why, killed, at, Duration.between(at, end).toMillis()));
		log("store restart fallback (%s): terminated %d connections of this run's nodes", why, killed);
	}

	private Node awaitNodeInRun() throws Exception {
		Instant deadline = Instant.now().plusSeconds(30);
		while (Instant.now().isBefore(deadline)) {
			List<String> running = inLedger((ledger) -> {
				try (PreparedStatement query = ledger
					.prepareStatement("SELECT node FROM cluster_ledger WHERE run_id = ? AND ended_at IS NULL "
							+ "AND db_started > clock_timestamp() - interval '5 seconds' ORDER BY id DESC")) {
					query.setString(1, this.runId);
					List<String> ids = new ArrayList<>();
					try (ResultSet result = query.executeQuery()) {
						while (result.next()) {
							ids.add(result.getString(1));
						}
					}
					return ids;
				}
			});
			for (String id : running) {
				for (Node node : this.nodes) {
					if (node.id.equals(id) && !node.dead) {
						return node;
					}
				}
			}
			Thread.sleep(5);
		}
		throw new AssertionError("no live node ran a job for 30 s");
	}

	private List<Long> openRuns(Node node) throws Exception {
		return inLedger((ledger) -> {
			try (PreparedStatement query = ledger.prepareStatement(
					"SELECT id FROM cluster_ledger WHERE run_id = ? AND node = ? AND ended_at IS NULL ORDER BY id")) {
				query.setString(1, this.runId);
				query.setString(2, node.id);
				List<Long> ids = new ArrayList<>();
				try (ResultSet result = query.executeQuery()) {
					while (result.next()) {
						ids.add(result.getLong(1));
					}
				}
				return ids;
			}
		});
	}

	private String jobOf(long id) throws Exception {
		return inLedger((ledger) -> {
			try (PreparedStatement query = ledger.prepareStatement("SELECT job FROM cluster_ledger WHERE id = ?")) {
				query.setLong(1, id);
				try (ResultSet result = query.executeQuery()) {
					result.next();
					return result.getString(1);
				}
			}
		});
	}

	private void check(Instant from, Instant to, Duration took) throws Exception {
		List<Run> runs = loadRuns();
		noteCompletedLate(runs);
		List<String> report = new ArrayList<>();
		List<String> failures = new ArrayList<>(this.restartFailures);
		Map<String, TreeMap<Instant, List<Run>>> byJob = byJob(runs);
		// at most one run per (job, slot, attempt), and at most one successful run per
		// (job, slot): without a recovery policy every run is attempt 1, so this is at
		// most one run per (job, slot); a policy job's slot that ran again because the
		// store could not record that its run succeeded (and its node said so) is the
		// documented at-least-once window, reported on its own
		Duplicates duplicates = duplicates(byJob,
				Map.of(job(NodeJobs.LOST), "lost", job(NodeJobs.FAILED), "failed", job(NodeJobs.CHECKED), "lost",
						job(NodeJobs.OVERRUN), "lost", job(NodeJobs.TRANSACTIONAL), "lost"),
				releaseWarnings(), this::completionDiedWithNode, this::succeededForStore);
		failures.addAll(duplicates.failures);
		// fencing tokens strictly increasing per job in slot order (attempt order within
		// a slot)
		int tokenViolations = tokenViolations(byJob, failures);
		// what the harness saw but did not inject: the store not answering a write of
		// its own for a second or more, a node JVM not running for a second or more
		List<Fault> observed = observedStalls();
		// the pause monitor must see each SIGSTOP, or its silence elsewhere means nothing
		for (Fault pause : this.faults) {
			if (pause.name.startsWith("SIGSTOP ")) {
				boolean seen = observed.stream()
					.anyMatch((stall) -> pause.node.equals(stall.node)
							&& overlaps(stall.start, stall.end, pause.start, pause.end));
				if (!seen) {
					failures.add("the pause monitor of " + pause.node + " logged no pause during " + pause);
				}
			}
		}
		Map<String, List<String>> excusedObserved = new LinkedHashMap<>();
		// every slot in the observed window ran, except inside a fault window
		Map<String, List<String>> excused = new LinkedHashMap<>();
		List<String> unexcused = new ArrayList<>();
		List<String> lateTriggers = new ArrayList<>();
		int slotsObserved = 0;
		for (int i = 0; i < this.profile.jobs; i++) {
			String job = String.format(Locale.ROOT, "%s-job%02d", this.runId, i);
			TreeMap<Instant, List<Run>> slots = byJob.getOrDefault(job, new TreeMap<>());
			// runs whose trigger was meant for another slot, by the slot it was meant for
			Map<Instant, Run> lateByFireTime = new HashMap<>();
			slots.values()
				.stream()
				.flatMap(List::stream)
				.filter((run) -> run.fireTime != null && !run.fireTime.equals(run.slot))
				.forEach((run) -> lateByFireTime.putIfAbsent(run.fireTime, run));
			for (Instant slot = from; !slot.isAfter(to); slot = slot.plus(INTERVAL)) {
				slotsObserved++;
				if (slots.containsKey(slot)) {
					continue;
				}
				String missed = job.substring(this.runId.length() + 1) + "@" + slot;
				Fault fault = faultCovering(slot);
				List<Run> next = slots.get(slot.plus(INTERVAL));
				Run late = lateByFireTime.get(slot);
				Fault stall = (fault != null) ? null : stallCovering(observed, slot, runsOf(slots));
				if (fault != null) {
					excused.computeIfAbsent(fault.name + " at " + fault.start, (name) -> new ArrayList<>()).add(missed);
				}
				else if (stall != null) {
					// not injected, but measured: the store or a node was not there
					excusedObserved.computeIfAbsent(stall.name + " at " + stall.start, (name) -> new ArrayList<>())
						.add(missed);
				}
				else if (late != null && claimedBeforeOthersFired(late, slot)) {
					// the trigger meant for this slot fired so late that it claimed a
					// later slot (a starved node): reported, not failed
					lateTriggers.add(missed + " (" + late.node + "'s trigger for it fired "
							+ Duration.between(late.fireTime, late.startedAt).toMillis() + " ms late and claimed "
							+ late.slot + ")");
				}
				else if (next != null && next.get(0).borrowedNextSlot()
						&& claimedBeforeOthersFired(next.get(0), slot)) {
					// a trigger more than half a period late took the next slot for its
					// own:
					// a known limit of the slot rule, reported but not failed
					Run borrower = next.get(0);
					lateTriggers.add(missed + " (next slot claimed by " + borrower.node + " "
							+ Duration.between(borrower.startedAt, borrower.slot).toMillis() + " ms before it)");
				}
				else {
					unexcused.add(missed);
				}
			}
		}
		if (!unexcused.isEmpty()) {
			failures.add("missed slots outside every fault window: " + unexcused);
		}
		// takeover after each kill: first run of a job the victim held, by another node
		List<Long> takeovers = new ArrayList<>();
		for (Kill kill : this.kills) {
			for (String job : kill.heldJobs) {
				Instant first = runs.stream()
					.filter((run) -> run.job.equals(job) && !run.node.equals(kill.node) && run.dbStarted != null
							&& run.dbStarted.isAfter(kill.at))
					.map((run) -> run.dbStarted)
					.min(Instant::compareTo)
					.orElse(null);
				if (first == null) {
					failures.add("no node took over " + job + " after the kill of " + kill.node);
				}
				else {
					takeovers.add(Duration.between(kill.at, first).toMillis());
				}
			}
		}
		// the paused node's run ends with an invalid lease and an older token than its
		// successor's
		Map<Long, Run> byId = new HashMap<>();
		runs.forEach((run) -> byId.put(run.id, run));
		List<String> staleReport = new ArrayList<>();
		for (long id : this.staleRuns) {
			Run stale = byId.get(id);
			if (stale == null || stale.dbEnded == null) {
				failures.add("the paused run " + id + " never ended");
				continue;
			}
			if (!Boolean.FALSE.equals(stale.leaseValid) && stale.endedAt != null
					&& !stale.endedAt.isAfter(stopLanded(stale, this.stopTimes.get(id), observed))) {
				// its sleep ended and the lease was read before the SIGSTOP landed; only
				// the ledger write came after the pause
				staleReport.add(stale.job.substring(this.runId.length() + 1) + " on " + stale.node
						+ ": ended before the SIGSTOP landed, not a paused run");
				continue;
			}
			if (!Boolean.FALSE.equals(stale.leaseValid)) {
				failures.add("the paused run " + stale + " ended with a valid lease");
			}
			Run successor = runs.stream()
				.filter((run) -> run.job.equals(stale.job) && !run.node.equals(stale.node)
						&& run.dbStarted.isBefore(stale.dbEnded) && run.dbStarted.isAfter(stale.dbStarted))
				.findFirst()
				.orElse(null);
			if (successor == null
					&& (stale.job.equals(job(NodeJobs.RUN_ONCE)) || stale.job.equals(job(NodeJobs.RUN_ALL)))) {
				// a misfire job runs every 5 s and has recovery=none: nobody needs to run
				// it
				// during a 5 s pause (its slot stays lost, see the policy checks)
				staleReport.add(String.format(Locale.ROOT,
						"%s on %s: token %d, lease valid at end %s; no successor needed (recovery=none, every %d s)",
						stale.job.substring(this.runId.length() + 1), stale.node, stale.token, stale.leaseValid,
						MISFIRE_PERIOD.toSeconds()));
			}
			else if (successor == null) {
				failures.add("no other node ran " + stale.job + " while " + stale.node + " was paused");
			}
			else {
				if (successor.token <= stale.token) {
					failures.add("successor " + successor + " has no newer token than paused " + stale);
				}
				staleReport.add(String.format(Locale.ROOT,
						"%s on %s: token %d, lease valid at end %s; successor on %s token %d started %d ms before "
								+ "the stale run ended",
						stale.job.substring(this.runId.length() + 1), stale.node, stale.token, stale.leaseValid,
						successor.node, successor.token,
						Duration.between(successor.dbStarted, stale.dbEnded).toMillis()));
			}
		}
		long invalidRuns = runs.stream().filter((run) -> Boolean.FALSE.equals(run.leaseValid)).count();
		long unfinished = runs.stream().filter((run) -> run.dbEnded == null).count();
		int excusedCount = excused.values().stream().mapToInt(List::size).sum();
		report.add(String.format(Locale.ROOT,
				"cluster proof, backend %s, profile %s: %d nodes (offsets %s ms), "
						+ "%d jobs every second, lease TTL %s, %d cycle(s) of %d s, took %d s%s",
				this.backend, this.profile.name, this.profile.nodes, offsets(), this.profile.jobs, TTL,
				this.profile.cycles, CYCLE.toSeconds(), took.toSeconds(),
				"jdbc".equals(this.backend) ? ", pg-restart " + this.profile.pgRestart : ""));
		report.add("observed slots " + from + " .. " + to + ": " + slotsObserved + " (job, slot) pairs");
		report.add("runs: " + runs.size() + " (unfinished, i.e. killed mid-run: " + unfinished
				+ "; ended with lease invalid: " + invalidRuns + ")");
		report.add("duplicates (job, slot) with more than one run: " + duplicates.count);
		report.add(UNRECORDED_COMPLETION + ": " + duplicates.unrecorded.size()
				+ " (a successful run's node logged that the store could not record its success; the slot ran "
				+ "again, not counted as a duplicate)");
		duplicates.unrecorded.forEach((window) -> report.add("  " + window));
		report.add("fencing-token order violations: " + tokenViolations);
		long borrowed = runs.stream().filter(Run::borrowedNextSlot).count();
		int excusedObservedCount = excusedObserved.values().stream().mapToInt(List::size).sum();
		report.add("missed slots inside fault windows: " + excusedCount + "; outside, inside an observed stall of "
				+ "the store or a node (not injected): " + excusedObservedCount + "; outside, because a late trigger "
				+ "claimed a later slot: " + lateTriggers.size() + "; otherwise: " + unexcused.size());
		List<Long> lateness = runs.stream()
			.filter((run) -> run.fireTime != null && run.slot != null && !run.fireTime.equals(run.slot))
			.map((run) -> Duration.between(run.fireTime, run.startedAt).toMillis())
			.sorted()
			.toList();
		report.add("runs whose trigger was meant for another slot (fired late): " + lateness.size()
				+ (lateness.isEmpty() ? "" : ", late by median " + lateness.get(lateness.size() / 2) + " ms, max "
						+ lateness.get(lateness.size() - 1) + " ms"));
		report.add("runs that started more than " + BORROW_THRESHOLD.toMillis()
				+ " ms before their slot on their node's clock (late trigger, next slot): " + borrowed);
		if (!lateTriggers.isEmpty()) {
			report.add("  late triggers: " + lateTriggers);
		}
		excused.forEach((fault, missed) -> report.add("  " + fault + ": " + missed.size() + " " + missed));
		excusedObserved.forEach((stall, missed) -> report.add("  " + stall + ": " + missed.size() + " " + missed));
		this.faults.forEach((fault) -> report.add("fault: " + fault.name + " " + fault.start + " .. " + fault.end));
		this.watches.forEach((watch) -> report.add(watch.summary()));
		long duringFaults = observed.stream().filter((stall) -> covering(this.faults, stall) != null).count();
		report.add("observed stalls (store writes of " + StallWatch.STALL.toMillis() + " ms or more, node "
				+ "JVM not running for as long): " + observed.size() + ", of which during injected faults: "
				+ duringFaults);
		observed.stream()
			.filter((stall) -> covering(this.faults, stall) == null)
			.forEach((stall) -> report.add("  outside the injected faults: " + stall.name));
		this.restarts.forEach((restart) -> report.add("store restart: " + restart));
		report.add("ledger writes delayed (retried; time on the database's clock derived from the node's clock): "
				+ "starts " + runs.stream().filter(Run::dbStartedDerived).count() + ", ends "
				+ runs.stream().filter(Run::dbEndedDerived).count());
		List<Long> sorted = new ArrayList<>(takeovers);
		Collections.sort(sorted);
		report.add("takeover after kill -9 (ms, first run of a held job by another node): " + sorted + (sorted.isEmpty()
				? "" : " median " + sorted.get(sorted.size() / 2) + " max " + sorted.get(sorted.size() - 1)));
		staleReport.forEach((line) -> report.add("paused run: " + line));
		report.add("duplicates counted above include the policy jobs' (two runs of one slot and attempt, or two "
				+ "successful runs of one slot, except in the window of an unrecorded completion)");
		checkPolicies(byJob, to.minus(POLICY_END_MARGIN), observed, duplicates.window, report, failures);
		checkLeaseLosses(byJob, to.minus(POLICY_END_MARGIN), observed, duplicates.window, report, failures);
		this.keepLedger = !failures.isEmpty();
		writeReport(report, failures, "cluster-proof-" + this.backend + ".txt");
		assertThat(failures).isEmpty();
		assertThat(runs).isNotEmpty();
		assertThat(this.staleRuns).isNotEmpty();
		assertThat(takeovers).isNotEmpty();
	}

	/**
	 * Add the result to a report, print it, and write it to a file in {@code target}.
	 * @param report the report's lines
	 * @param failures what failed
	 * @param fileName the file's name
	 */
	static void writeReport(List<String> report, List<String> failures, String fileName) throws IOException {
		report.add(failures.isEmpty() ? "result: PASS" : "result: FAIL " + failures);
		String text = String.join(System.lineSeparator(), report) + System.lineSeparator();
		System.out.print(text);
		Files.writeString(Path.of("target", fileName), text);
	}

	/**
	 * Read every ledger row of this run.
	 */
	private List<Run> loadRuns() throws Exception {
		return loadRuns(LEDGER_URL, this.runId);
	}

	/**
	 * Read every ledger row of a run.
	 * @param url the ledger's database
	 * @param runId the run
	 * @return the rows, in id order
	 */
	static List<Run> loadRuns(String url, String runId) throws Exception {
		return retrying(url, "ledger", (ledger) -> {
			try (PreparedStatement query = ledger.prepareStatement(
					"SELECT id, job, slot, node, fencing_token, lease_valid_at_end, db_started, db_ended, started_at, "
							+ "ended_at, db_started_derived, db_ended_derived, fire_time, attempt, run_trigger, "
							+ "missed_slots, failed FROM cluster_ledger " + "WHERE run_id = ? ORDER BY id")) {
				query.setString(1, runId);
				List<Run> rows = new ArrayList<>();
				try (ResultSet result = query.executeQuery()) {
					while (result.next()) {
						rows.add(new Run(result.getLong(1), result.getString(2), instant(result.getTimestamp(3)),
								result.getString(4), result.getLong(5), (Boolean) result.getObject(6),
								instant(result.getTimestamp(7)), instant(result.getTimestamp(8)),
								instant(result.getTimestamp(9)), instant(result.getTimestamp(10)),
								result.getBoolean(11), result.getBoolean(12), instant(result.getTimestamp(13)),
								result.getInt(14), result.getString(15), instants(result.getString(16)),
								result.getBoolean(17)));
					}
				}
				return rows;
			}
		});
	}

	/**
	 * The runs by job and slot.
	 */
	static Map<String, TreeMap<Instant, List<Run>>> byJob(List<Run> runs) {
		Map<String, TreeMap<Instant, List<Run>>> byJob = new TreeMap<>();
		for (Run run : runs) {
			assertThat(run.slot).as("slot of run %s", run.id).isNotNull();
			byJob.computeIfAbsent(run.job, (job) -> new TreeMap<>())
				.computeIfAbsent(run.slot, (slot) -> new ArrayList<>())
				.add(run);
		}
		return byJob;
	}

	/**
	 * Count the runs whose fencing token is not greater than the one before, per job in
	 * slot order (attempt order within a slot), and add a failure for each.
	 */
	static int tokenViolations(Map<String, TreeMap<Instant, List<Run>>> byJob, List<String> failures) {
		int violations = 0;
		for (TreeMap<Instant, List<Run>> slots : byJob.values()) {
			long previous = Long.MIN_VALUE;
			for (List<Run> sameSlot : slots.values()) {
				List<Run> inAttemptOrder = new ArrayList<>(sameSlot);
				inAttemptOrder.sort(Comparator.comparingInt(Run::attempt).thenComparingLong(Run::id));
				for (Run run : inAttemptOrder) {
					if (run.token <= previous) {
						violations++;
						failures.add("fencing token not increasing at " + run);
					}
					previous = run.token;
				}
			}
		}
		return violations;
	}

	/**
	 * The checks of the leader-mode scenario (see {@link #leaderMode}).
	 */
	private void checkLeaderMode(Instant from, Instant to, Duration took) throws Exception {
		List<Run> runs = loadRuns();
		Map<String, TreeMap<Instant, List<Run>>> byJob = byJob(runs);
		List<String> report = new ArrayList<>();
		List<String> failures = new ArrayList<>();
		Duplicates duplicates = duplicates(byJob, Map.of(), Map.of());
		failures.addAll(duplicates.failures);
		int tokenViolations = tokenViolations(byJob, failures);
		List<Fault> observed = observedStalls();
		report.add(String.format(Locale.ROOT,
				"cluster proof, leader mode, backend %s, profile %s: %d nodes (offsets %s ms), %d jobs every "
						+ "second, lease TTL %s, %d kill -9 of the leader, took %d s",
				this.backend, this.profile.name, this.profile.nodes,
				String.join("/",
						IntStream.range(0, this.profile.nodes)
							.mapToObj((i) -> String.valueOf(leaderOffset(i)))
							.toList()),
				this.profile.leaderJobs, TTL, this.kills.size(), took.toSeconds()));
		report.add("observed runs " + from + " .. " + to + "; runs in the ledger: " + runs.size());
		// between two kills, every run on one node
		List<Instant> bounds = new ArrayList<>();
		bounds.add(from);
		this.kills.forEach((kill) -> bounds.add(kill.at));
		bounds.add(to);
		Set<String> leaders = new HashSet<>();
		for (int i = 0; i + 1 < bounds.size(); i++) {
			Instant start = bounds.get(i);
			Instant end = bounds.get(i + 1);
			Kill before = (i > 0) ? this.kills.get(i - 1) : null;
			Kill after = (i < this.kills.size()) ? this.kills.get(i) : null;
			Map<String, Long> perNode = new TreeMap<>();
			runs.stream()
				.filter((run) -> inEpoch(run, start, end, before, after))
				.forEach((run) -> perNode.merge(run.node, 1L, Long::sum));
			String leader = perNode.entrySet()
				.stream()
				.max(Map.Entry.comparingByValue())
				.map(Map.Entry::getKey)
				.orElse(null);
			if (leader == null) {
				failures.add("no run between " + start + " and " + end);
				continue;
			}
			leaders.add(leader);
			Fault stall = observed.stream()
				.filter((candidate) -> overlaps(candidate.start, candidate.end, start, end))
				.findFirst()
				.orElse(null);
			if (perNode.size() > 1 && stall == null) {
				failures
					.add("runs on several nodes between " + start + " and " + end + ", no fault between: " + perNode);
			}
			if (before != null && perNode.containsKey(before.node)) {
				failures.add("the killed leader " + before.node + " ran jobs after its kill");
			}
			report.add(String.format(Locale.ROOT, "between %s and %s: runs per node %s%s", start, end, perNode,
					(perNode.size() > 1 && stall != null)
							? " (leadership moved during an observed stall: " + stall.name + ")" : ""));
		}
		long whileDying = runs.stream()
			.filter((run) -> this.kills.stream().anyMatch((kill) -> startedWhileDying(run, kill)))
			.count();
		report.add("runs of a killed leader that the ledger says started after the kill -9 was sent but before "
				+ "the process was gone (counted before the kill): " + whileDying);
		// after each kill, every job taken over by another node
		List<Long> takeovers = new ArrayList<>();
		List<Long> fromKill = new ArrayList<>();
		for (Kill kill : this.kills) {
			for (Map.Entry<String, TreeMap<Instant, List<Run>>> job : byJob.entrySet()) {
				List<Run> jobRuns = runsOf(job.getValue());
				Run last = jobRuns.stream()
					.filter((run) -> run.node.equals(kill.node) && !run.dbStarted.isAfter(kill.dead))
					.max(Comparator.comparing(Run::dbStarted))
					.orElse(null);
				Run first = jobRuns.stream()
					.filter((run) -> !run.node.equals(kill.node) && run.dbStarted.isAfter(kill.at))
					.min(Comparator.comparing(Run::dbStarted))
					.orElse(null);
				if (first == null) {
					failures.add("no node ran " + job.getKey() + " after the kill of the leader " + kill.node);
					continue;
				}
				Duration sinceKill = Duration.between(kill.at, first.dbStarted);
				fromKill.add(sinceKill.toMillis());
				if (last != null) {
					takeovers.add(Duration.between(last.dbStarted, first.dbStarted).toMillis());
				}
				boolean stalled = observed.stream()
					.anyMatch((stall) -> overlaps(stall.start, stall.end, kill.at, first.dbStarted));
				if (sinceKill.compareTo(TAKEOVER_BOUND) > 0 && !stalled) {
					failures.add(first.node + " first ran " + job.getKey() + " " + sinceKill.toMillis()
							+ " ms after the kill of the leader " + kill.node + ", later than " + TAKEOVER_BOUND);
				}
			}
		}
		// the nodes that never led skipped their triggers without asking the store
		Map<String, Integer> skips = new TreeMap<>();
		for (Node node : this.nodes) {
			int count = node.linesContaining(NOT_LEADER).size();
			skips.put(node.id, count);
			if (!leaders.contains(node.id) && count == 0) {
				failures.add(node.id + " never led and logged no '" + NOT_LEADER + "' skip");
			}
		}
		// slots no node ran, reported: a takeover leaves a gap of a few slots per job
		int missed = 0;
		int inTakeover = 0;
		for (TreeMap<Instant, List<Run>> slots : byJob.values()) {
			for (Instant slot = from; !slot.isAfter(to); slot = slot.plus(INTERVAL)) {
				if (slots.containsKey(slot)) {
					continue;
				}
				missed++;
				Instant missedSlot = slot;
				if (this.kills.stream()
					.anyMatch((kill) -> overlaps(missedSlot, missedSlot, kill.at.minus(INTERVAL).minus(SKEW),
							kill.at.plus(TAKEOVER_BOUND).plus(SKEW)))) {
					inTakeover++;
				}
			}
		}
		this.faults.forEach((fault) -> report.add("fault: " + fault.name + " " + fault.start));
		report.add("leaders: " + leaders + "; '" + NOT_LEADER + "' skips logged per node: " + skips);
		report.add("duplicates (job, slot) with more than one run: " + duplicates.count);
		report.add("fencing-token order violations: " + tokenViolations);
		report.add("takeover, last run of the killed leader -> first run of the job on the new leader (ms): "
				+ stats(takeovers));
		report.add("takeover, kill -9 -> first run of the job on the new leader (ms, bound " + TAKEOVER_BOUND.toMillis()
				+ "): " + stats(fromKill));
		report.add("slots without a run: " + missed + ", of which around a kill (from one period before it to "
				+ TAKEOVER_BOUND.toSeconds() + " s after): " + inTakeover);
		this.watches.forEach((watch) -> report.add(watch.summary()));
		report.add("observed stalls (store writes or node pauses of " + StallWatch.STALL.toMillis() + " ms or more): "
				+ observed.size());
		observed.forEach((stall) -> report.add("  " + stall.name));
		this.keepLedger = !failures.isEmpty();
		writeReport(report, failures, "cluster-proof-leader-" + this.backend + ".txt");
		assertThat(failures).isEmpty();
		assertThat(takeovers).isNotEmpty();
	}

	/**
	 * The checks of the policy jobs: no slot lost (a slot without a successful run, the
	 * misfire rules and limits taken into account), the recovery of a killed run within 2
	 * TTL on another node with attempt 2 and a higher token, the retry of a failed
	 * attempt 1, and one catch-up after each whole-cluster stop.
	 */
	private void checkPolicies(Map<String, TreeMap<Instant, List<Run>>> byJob, Instant end, List<Fault> observed,
			Set<Long> window, List<String> report, List<String> failures) {
		report.add("policy jobs (set only through cluster-singleton.jobs[...] properties), slots up to " + end + ":");
		List<Fault> faultsAndStalls = new ArrayList<>(this.faults);
		faultsAndStalls.addAll(observed);
		int[] lost = new int[1];
		// recovery: lost, misfire: skip
		TreeMap<Instant, List<Run>> lostJob = byJob.getOrDefault(job(NodeJobs.LOST), new TreeMap<>());
		List<String> skipped = new ArrayList<>();
		List<Instant> lostGrid = grid(lostJob, LOST_PERIOD, end);
		for (Instant slot : lostGrid) {
			lost[0] += checkRecovered(NodeJobs.LOST, slot, lostJob, observed, window, skipped, failures);
		}
		List<Long> recoveries = new ArrayList<>();
		List<Object[]> killed = new ArrayList<>();
		Map<Long, Run> byId = new HashMap<>();
		lostJob.values().forEach((runs) -> runs.forEach((run) -> byId.put(run.id, run)));
		for (LostKill kill : this.lostKills) {
			Run run = byId.get(kill.ledgerId);
			if (run == null) {
				failures.add("the killed run " + kill.ledgerId + " of " + NodeJobs.LOST + " is not in the ledger");
				continue;
			}
			killed.add(new Object[] { kill.node, kill.at, run });
		}
		for (Kill kill : this.kills) {
			if (this.lostKills.stream().noneMatch((lostKill) -> lostKill.at.equals(kill.at))) {
				lostJob.values()
					.stream()
					.flatMap(List::stream)
					.filter((run) -> run.node.equals(kill.node) && run.dbEnded == null && run.dbStarted != null
							&& run.dbStarted.isBefore(kill.at))
					.max(Comparator.comparing(Run::dbStarted))
					.ifPresent((run) -> killed.add(new Object[] { kill.node, kill.at, run }));
			}
		}
		for (Object[] entry : killed) {
			String node = (String) entry[0];
			Instant at = (Instant) entry[1];
			Run victim = (Run) entry[2];
			List<Run> sameSlot = lostJob.getOrDefault(victim.slot, List.of());
			Run recovery = sameSlot.stream()
				.filter((run) -> run.attempt == victim.attempt + 1)
				.findFirst()
				.orElse(null);
			if (recovery == null) {
				failures.add("no attempt " + (victim.attempt + 1) + " after the kill -9 of " + node + " at " + at
						+ " during " + victim + ": " + sameSlot);
				continue;
			}
			long latency = Duration.between(at, recovery.dbStarted).toMillis();
			recoveries.add(latency);
			List<String> wrong = new ArrayList<>();
			if (recovery.node.equals(node)) {
				wrong.add("on the killed node");
			}
			if (recovery.token <= victim.token) {
				wrong.add("token not higher");
			}
			if (!"RECOVERY".equals(recovery.trigger)) {
				wrong.add("trigger " + recovery.trigger);
			}
			if (!recovery.succeeded()) {
				wrong.add("did not succeed");
			}
			if (sameSlot.stream().filter((run) -> run.succeeded() && !window.contains(run.id)).count() != 1) {
				// a run again after an unrecorded completion is the documented window
				wrong.add("not exactly one successful run of the slot");
			}
			if (latency > TTL.multipliedBy(2).toMillis()) {
				wrong.add("started " + latency + " ms after the kill, later than 2 TTL");
			}
			if (!wrong.isEmpty()) {
				failures.add("recovery after the kill -9 of " + node + " at " + at + ": " + wrong + ": " + victim
						+ " -> " + recovery);
			}
			report.add(String.format(Locale.ROOT,
					"  recovery=lost: kill -9 %s at %s during slot %s attempt %d (token %d); attempt %d on %s "
							+ "(token %d, %s) started %d ms after the kill",
					node, at, victim.slot, victim.attempt, victim.token, recovery.attempt, recovery.node,
					recovery.token, recovery.succeeded() ? "succeeded" : "did not succeed", latency));
		}
		if (this.lostKills.isEmpty() == false && recoveries.isEmpty()) {
			failures.add("no recovery of a killed run of " + NodeJobs.LOST + " measured");
		}
		report.add("  recovery=lost: " + lostGrid.size() + " slots, " + killed.size() + " runs killed mid-run, "
				+ "recovery latency kill -> recovery run start (ms) " + stats(recoveries) + "; slots without a run "
				+ "inside fault windows (misfire=skip): " + skipped.size());
		// recovery: failed, misfire: skip
		TreeMap<Instant, List<Run>> failedJob = byJob.getOrDefault(job(NodeJobs.FAILED), new TreeMap<>());
		List<Instant> failedGrid = grid(failedJob, FAILED_PERIOD, end);
		List<String> failedSkipped = new ArrayList<>();
		List<Long> retries = new ArrayList<>();
		int failing = 0;
		for (Instant slot : failedGrid) {
			List<Run> runs = failedJob.get(slot);
			lost[0] += checkRecovered(NodeJobs.FAILED, slot, failedJob, observed, window, failedSkipped, failures);
			if (runs == null) {
				continue;
			}
			runs.stream()
				.filter((run) -> run.failed && run.attempt != 1)
				.forEach((run) -> failures.add("a failed attempt other than attempt 1: " + run));
			Run first = runs.stream().filter((run) -> run.attempt == 1).findFirst().orElse(null);
			if (!NodeJobs.failsFirstAttempt(slot) || first == null || first.dbEnded == null) {
				continue;
			}
			failing++;
			if (!first.failed) {
				failures.add("attempt 1 of a slot that fails on attempt 1 did not fail: " + first);
				continue;
			}
			Run retry = runs.stream().filter((run) -> run.attempt == 2).findFirst().orElse(null);
			// attempt 2 may itself lose its lease (its node paused or killed, the store
			// unreachable): then a later attempt must succeed, as recovery=failed also
			// recovers lost runs
			boolean retryEndedWell = retry != null && (retry.succeeded() || (!retry.failed && runs.stream()
				.anyMatch((run) -> run.attempt > 2 && run.succeeded() && "RECOVERY".equals(run.trigger))));
			if (retry == null || !"RECOVERY".equals(retry.trigger) || !retryEndedWell) {
				failures.add("the failed attempt 1 was not followed by a successful recovery (attempt 2, or a later "
						+ "attempt after attempt 2 lost its lease): " + runs);
				continue;
			}
			long retryLatency = Duration.between(first.dbEnded, retry.dbStarted).toMillis();
			retries.add(retryLatency);
			Instant due = first.dbEnded.plus(RETRY_DELAY).plus(TTL.multipliedBy(2));
			Fault fault = this.faults.stream()
				.filter((candidate) -> overlaps(first.dbEnded, due, candidate.start.minus(SKEW),
						candidate.end.plus(TTL).plus(SKEW)))
				.findFirst()
				.orElse(null);
			if (retryLatency > RETRY_DELAY.plus(TTL.multipliedBy(2)).toMillis() && fault == null) {
				failures.add("attempt 2 started " + retryLatency + " ms after the failed attempt 1, later than "
						+ "retry-delay + 2 TTL, outside every fault window: " + runs);
			}
		}
		if (failing == 0) {
			failures.add("no slot of " + NodeJobs.FAILED + " failed on attempt 1");
		}
		report
			.add("  recovery=failed (retry-delay " + RETRY_DELAY.toMillis() + " ms): " + failedGrid.size() + " slots, "
					+ failing + " failed on attempt 1, retry latency failure -> attempt 2 start (ms) " + stats(retries)
					+ "; slots without a run inside fault windows (misfire=skip): " + failedSkipped.size());
		// misfire: run-once
		TreeMap<Instant, List<Run>> onceJob = byJob.getOrDefault(job(NodeJobs.RUN_ONCE), new TreeMap<>());
		List<Instant> onceGrid = grid(onceJob, MISFIRE_PERIOD, end);
		Map<Instant, Run> standsFor = new HashMap<>();
		List<String> died = new ArrayList<>();
		for (Instant slot : onceGrid) {
			for (Run run : onceJob.getOrDefault(slot, List.of())) {
				if (!"CATCH_UP".equals(run.trigger)) {
					continue;
				}
				Instant previous = onceJob.lowerKey(slot);
				List<Instant> expected = new ArrayList<>();
				for (Instant missed = (previous != null) ? previous.plus(MISFIRE_PERIOD) : slot; missed
					.isBefore(slot); missed = missed.plus(MISFIRE_PERIOD)) {
					expected.add(missed);
				}
				if (!run.missedSlots.equals(expected)) {
					failures.add("run-once catch-up " + run + ": missedSlots should be the slots " + expected
							+ " between the run before it and its own slot");
				}
				if (run.succeeded()) {
					run.missedSlots.forEach((missed) -> standsFor.put(missed, run));
				}
			}
		}
		int onceCovered = 0;
		Set<Long> onceUntraced = new HashSet<>();
		for (Instant slot : onceGrid) {
			List<Run> runs = onceJob.getOrDefault(slot, List.of());
			boolean succeeded = runs.stream().anyMatch(Run::succeeded);
			if (succeeded && standsFor.containsKey(slot)) {
				failures.add(NodeJobs.RUN_ONCE + " slot " + slot + " ran and was caught up by " + standsFor.get(slot));
			}
			else if (standsFor.containsKey(slot)) {
				onceCovered++;
			}
			else if (!succeeded && !runs.isEmpty()) {
				// claimed, but its run died: recovery=none does not run it again
				died.add(NodeJobs.RUN_ONCE + "@" + slot);
			}
			else if (!succeeded && claimedWithoutTrace(onceJob, slot, faultsAndStalls, onceUntraced)) {
				died.add(NodeJobs.RUN_ONCE + "@" + slot + " (claim without a trace)");
			}
			else if (!succeeded) {
				lost[0]++;
				failures.add("lost slot " + NodeJobs.RUN_ONCE + "@" + slot + ": no run, no catch-up run stands for it");
			}
		}
		List<Long> onceLatencies = catchUps(onceJob, NodeJobs.RUN_ONCE, report, failures, true);
		report.add("  misfire=run-once: " + onceGrid.size() + " slots, " + onceCovered + " stood for by a catch-up "
				+ "run, catch-up latency restart -> catch-up run start (ms) " + stats(onceLatencies));
		// misfire: run-all, misfire-limit
		TreeMap<Instant, List<Run>> allJob = byJob.getOrDefault(job(NodeJobs.RUN_ALL), new TreeMap<>());
		List<Instant> allGrid = grid(allJob, MISFIRE_PERIOD, end);
		List<List<Instant>> ranges = new ArrayList<>();
		List<Instant> range = new ArrayList<>();
		for (Instant slot : allGrid) {
			boolean claimed = allJob.getOrDefault(slot, List.of())
				.stream()
				.anyMatch((run) -> !"CATCH_UP".equals(run.trigger));
			if (!claimed) {
				range.add(slot);
			}
			else if (!range.isEmpty()) {
				ranges.add(range);
				range = new ArrayList<>();
			}
		}
		if (!range.isEmpty()) {
			ranges.add(range);
		}
		int skippedByLimit = 0;
		int caughtUp = 0;
		Set<Long> allUntraced = new HashSet<>();
		int widest = 0;
		for (List<Instant> missed : ranges) {
			widest = Math.max(widest, missed.size());
			// the catch-up runs of the stretch, oldest first, and the claims they came
			// from: one claim's runs are on one node with consecutive tokens (startRun
			// raises the token by one); nodes that start one after the other may each
			// catch up what was missed when they looked
			List<Run> catchUps = new ArrayList<>();
			for (Instant slot : missed) {
				allJob.getOrDefault(slot, List.of())
					.stream()
					.filter(Run::succeeded)
					.findFirst()
					.ifPresent(catchUps::add);
			}
			List<List<Run>> claims = new ArrayList<>();
			for (Run run : catchUps) {
				List<Run> claim = claims.isEmpty() ? null : claims.get(claims.size() - 1);
				Run last = (claim != null) ? claim.get(claim.size() - 1) : null;
				if (last != null && last.node.equals(run.node) && run.token == last.token + 1) {
					claim.add(run);
				}
				else {
					claims.add(new ArrayList<>(List.of(run)));
				}
			}
			for (List<Run> claim : claims) {
				if (claim.size() > MISFIRE_LIMIT) {
					failures.add(NodeJobs.RUN_ALL + " caught up " + claim.size() + " slots in one claim, more than "
							+ "misfire-limit " + MISFIRE_LIMIT + ": " + claim);
				}
			}
			// the newest oldest slot of a claim that caught up misfire-limit slots: the
			// slots before it were skipped by the limit. Not only the stretch's first
			// claim: a node that catches up a slot just before a whole-cluster stop
			// leaves
			// one stretch with two catch-ups, the later one full
			Instant limitFrom = claims.stream()
				.filter((claim) -> claim.size() == MISFIRE_LIMIT)
				.map((claim) -> claim.get(0).slot)
				.max(Comparator.naturalOrder())
				.orElse(null);
			Instant previousStart = null;
			long previousToken = Long.MIN_VALUE;
			for (Instant slot : missed) {
				List<Run> runs = allJob.getOrDefault(slot, List.of());
				Run run = runs.stream().filter(Run::succeeded).findFirst().orElse(null);
				if (run == null && !runs.isEmpty()) {
					died.add(NodeJobs.RUN_ALL + "@" + slot);
					continue;
				}
				if (run == null && claimedWithoutTrace(allJob, slot, faultsAndStalls, allUntraced)) {
					died.add(NodeJobs.RUN_ALL + "@" + slot + " (claim without a trace)");
					continue;
				}
				if (run == null && limitFrom != null && slot.isBefore(limitFrom)) {
					// older than the newest misfire-limit slots of a full catch-up
					skippedByLimit++;
					continue;
				}
				if (run == null) {
					lost[0]++;
					failures.add("lost slot " + NodeJobs.RUN_ALL + "@" + slot + " among the missed slots " + missed
							+ ": not caught up, and not older than a full catch-up of misfire-limit " + MISFIRE_LIMIT
							+ " slots (" + claims + ")");
					continue;
				}
				caughtUp++;
				if (previousStart != null && (run.dbStarted.isBefore(previousStart) || run.token <= previousToken)) {
					failures.add(NodeJobs.RUN_ALL + " caught up " + run + " before an older missed slot");
				}
				previousStart = run.dbStarted;
				previousToken = run.token;
			}
		}
		if (!this.clusterStops.isEmpty() && widest <= MISFIRE_LIMIT) {
			failures.add("no stretch of missed " + NodeJobs.RUN_ALL + " slots longer than misfire-limit "
					+ MISFIRE_LIMIT + ": the limit was not tried");
		}
		List<Long> allLatencies = catchUps(allJob, NodeJobs.RUN_ALL, report, failures, false);
		report.add("  misfire=run-all (misfire-limit " + MISFIRE_LIMIT + "): " + allGrid.size() + " slots, "
				+ ranges.size() + " stretches of missed slots (longest " + widest + "), " + caughtUp
				+ " caught up oldest first, " + skippedByLimit + " older ones skipped by the limit, catch-up "
				+ "latency restart -> first catch-up run start (ms) " + stats(allLatencies));
		if (!died.isEmpty()) {
			report.add("  claimed slots whose run died (recovery=none, not run again): " + died);
		}
		report.add("lost slots of the policy jobs: " + lost[0]);
	}

	/**
	 * The checks of the jobs that lose their leases on purpose and of the
	 * {@code @Transactional} job (see {@link #LEASE_LOSS_JOBS}): no slot lost; every
	 * attempt that ended with {@code LeaseLostException} is stored as {@code lost} in the
	 * library's run ledger and a later attempt of its slot succeeded; every overrunning
	 * attempt ended that way; every run of the {@code @Transactional} job ran in a
	 * transaction of its own, runs 2..n of catch-up and recovery sequences included.
	 * @param window the runs in the window of an unrecorded completion (see
	 * {@link #duplicates})
	 */
	private void checkLeaseLosses(Map<String, TreeMap<Instant, List<Run>>> byJob, Instant end, List<Fault> observed,
			Set<Long> window, List<String> report, List<String> failures) throws Exception {
		Map<Long, RunNotes> notes = loadNotes();
		report.add("jobs that check their lease (recovery=lost, max-attempts " + LEASE_LOSS_MAX_ATTEMPTS
				+ "), and the @Transactional job, slots up to " + end + ":");
		int lostSlots = 0;
		Map<String, Duration> periods = Map.of(NodeJobs.CHECKED, CHECKED_PERIOD, NodeJobs.OVERRUN, OVERRUN_PERIOD,
				NodeJobs.TRANSACTIONAL, TRANSACTIONAL_PERIOD);
		for (String suffix : LEASE_LOSS_JOBS) {
			String name = job(suffix);
			TreeMap<Instant, List<Run>> slots = byJob.getOrDefault(name, new TreeMap<>());
			Map<Long, LibraryRun> library = this.libraryRuns.getOrDefault(name, Map.of());
			List<Instant> grid = grid(slots, periods.get(suffix), end);
			List<String> skipped = new ArrayList<>();
			for (Instant slot : grid) {
				lostSlots += checkRecovered(suffix, slot, slots, observed, window, skipped, failures);
			}
			if (grid.isEmpty()) {
				failures.add("no run of " + suffix);
			}
			// every attempt that ended by a lease loss: stored lost, and run again
			int leaseLost = 0;
			int storedLost = 0;
			int recovered = 0;
			List<Long> recoveryLatencies = new ArrayList<>();
			for (Run run : runsOf(slots)) {
				RunNotes note = notes.get(run.id);
				if (note == null || !note.leaseLost) {
					continue;
				}
				leaseLost++;
				LibraryRun stored = library.get(run.token);
				if (stored == null) {
					failures.add(
							"an attempt that ended with LeaseLostException is not in the library's run ledger: " + run);
				}
				else if (!"lost".equals(stored.state)) {
					failures.add("an attempt that ended with LeaseLostException is stored as '" + stored.state
							+ "', not 'lost': " + run + "; stored " + stored);
				}
				else {
					storedLost++;
				}
				if (!run.slot.isAfter(end)) {
					Run again = slots.get(run.slot)
						.stream()
						.filter((later) -> later.attempt > run.attempt && succeededForStore(later))
						.findFirst()
						.orElse(null);
					if (again == null) {
						failures.add("the slot of an attempt that ended with LeaseLostException was not run again "
								+ "successfully: " + run + "; runs of the slot " + slots.get(run.slot));
					}
					else {
						recovered++;
						if (run.dbStarted != null && again.dbStarted != null) {
							recoveryLatencies.add(Duration.between(run.dbStarted, again.dbStarted).toMillis());
						}
					}
				}
			}
			// what the library's ledger says of these jobs' runs
			Map<String, Long> states = new TreeMap<>();
			library.values().forEach((stored) -> states.merge(stored.state, 1L, Long::sum));
			Map<Long, Run> byToken = new HashMap<>();
			runsOf(slots).forEach((run) -> byToken.put(run.token, run));
			List<String> failedStored = new ArrayList<>();
			library.values()
				.stream()
				.filter((stored) -> "failed".equals(stored.state))
				.forEach((stored) -> failedStored.add(stored + " ledger " + byToken.get(stored.token)));
			long threwOtherwise = runsOf(slots).stream()
				.filter((run) -> run.failed && (notes.get(run.id) == null || !notes.get(run.id).leaseLost))
				.count();
			report.add(String.format(Locale.ROOT,
					"  %s: %d slots, %d runs; %d attempts ended with LeaseLostException, %d of them stored 'lost', "
							+ "%d slots run again successfully (start of the lost attempt -> start of the "
							+ "successful one, ms: %s); runs that threw otherwise: %d; library ledger: %d runs %s; slots without a "
							+ "run inside fault windows: %d",
					suffix, grid.size(), runsOf(slots).size(), leaseLost, storedLost, recovered,
					stats(recoveryLatencies), threwOtherwise, library.size(), states, skipped.size()));
			if (!failedStored.isEmpty()) {
				report.add("    stored 'failed': " + failedStored);
			}
			if (NodeJobs.OVERRUN.equals(suffix)) {
				checkOverruns(slots, notes, report, failures);
			}
			if (NodeJobs.CHECKED.equals(suffix) && leaseLost == 0) {
				failures.add("no run of " + suffix + " ended with LeaseLostException");
			}
			if (NodeJobs.TRANSACTIONAL.equals(suffix)) {
				checkTransactions(slots, notes, report, failures);
			}
		}
		report.add("lost slots of the jobs that check their lease and of the @Transactional job: " + lostSlots);
		report.add("runs with a recovery policy that returned normally after their lease had stopped being valid, "
				+ "which the run ledger records as succeeded, counted as their slot's success (a run of the slot "
				+ "after one is the window of an unrecorded completion when its node logged that another claim "
				+ "had taken the job over first): " + this.completedLate.size() + " " + this.completedLate);
	}

	/**
	 * Every attempt 1 of an overrunning slot that ended did so with
	 * {@code LeaseLostException}, at its {@code lockAtMostFor}.
	 */
	private static void checkOverruns(TreeMap<Instant, List<Run>> slots, Map<Long, RunNotes> notes, List<String> report,
			List<String> failures) {
		int overruns = 0;
		List<Long> durations = new ArrayList<>();
		for (Run run : runsOf(slots)) {
			if (run.attempt != 1 || !NodeJobs.overrunsFirstAttempt(run.slot) || run.dbEnded == null) {
				continue;
			}
			RunNotes note = notes.get(run.id);
			if (note == null || !note.leaseLost) {
				failures.add("an overrunning attempt did not end with LeaseLostException: " + run);
				continue;
			}
			overruns++;
			durations.add(Duration.between(run.startedAt, run.endedAt).toMillis());
		}
		if (overruns == 0) {
			failures.add("no attempt of " + NodeJobs.OVERRUN + " overran its lock-at-most-for");
		}
		report.add("    overruns of lock-at-most-for " + OVERRUN_LOCK_AT_MOST_FOR.toMillis()
				+ " ms ended with LeaseLostException: " + overruns + ", run time (ms) " + stats(durations));
	}

	/**
	 * Every run of the {@code @Transactional} job ran in a transaction, each in its own;
	 * sequences of several runs under one claim happened.
	 */
	private static void checkTransactions(TreeMap<Instant, List<Run>> slots, Map<Long, RunNotes> notes,
			List<String> report, List<String> failures) {
		List<Run> runs = runsOf(slots);
		int inTransaction = 0;
		Map<Long, Run> byTxid = new HashMap<>();
		int withTxid = 0;
		for (Run run : runs) {
			RunNotes note = notes.get(run.id);
			if (note == null || !Boolean.TRUE.equals(note.inTransaction)) {
				if (run.dbEnded != null) {
					failures.add("a run of the @Transactional job ran outside a transaction: " + run
							+ ((note != null) ? " (in_transaction " + note.inTransaction + ")" : ""));
				}
				continue;
			}
			inTransaction++;
			if (note.txid != null) {
				withTxid++;
				Run same = byTxid.put(note.txid, run);
				if (same != null) {
					failures.add("two runs of the @Transactional job in one transaction " + note.txid + ": " + same
							+ " and " + run);
				}
			}
		}
		// runs 2..n of a sequence: the run before it on the same node, with the fencing
		// token just below, was a catch-up or recovery run of the same claim
		Map<String, TreeMap<Long, Run>> byNode = new HashMap<>();
		runs.forEach((run) -> byNode.computeIfAbsent(run.node, (node) -> new TreeMap<>()).put(run.token, run));
		int later = 0;
		int longest = 0;
		for (TreeMap<Long, Run> nodeRuns : byNode.values()) {
			int length = 1;
			for (Run run : nodeRuns.values()) {
				Run before = nodeRuns.get(run.token - 1);
				boolean follows = before != null && !"SCHEDULED".equals(before.trigger) && before.dbEnded != null
						&& run.dbStarted != null && !run.dbStarted.isBefore(before.dbEnded)
						&& Duration.between(before.dbEnded, run.dbStarted).compareTo(Duration.ofSeconds(2)) < 0;
				if (follows) {
					later++;
					length++;
					longest = Math.max(longest, length);
					RunNotes note = notes.get(run.id);
					if (note == null || !Boolean.TRUE.equals(note.inTransaction)) {
						failures.add("run 2..n of a sequence outside a transaction: " + run);
					}
				}
				else {
					length = 1;
				}
			}
		}
		if (later == 0) {
			failures.add("no catch-up or recovery sequence of several runs of the @Transactional job");
		}
		report.add("    @Transactional: " + runs.size() + " runs, " + inTransaction + " in a transaction (" + withTxid
				+ " with the database's transaction id, all distinct); runs 2..n of a sequence under one claim: "
				+ later + ", longest sequence " + longest + " runs");
	}

	/**
	 * Return a run of an earlier slot of the job that was running, by the database's
	 * clock, at the given slot's fire time, or {@code null}.
	 */
	private static Run heldThrough(TreeMap<Instant, List<Run>> jobRuns, Instant slot) {
		// the last few slots before it: a run that held the lease for longer is a
		// defect to report, not a skip to excuse
		int looked = 0;
		for (List<Run> earlier : jobRuns.headMap(slot, false).descendingMap().values()) {
			if (looked++ == 3) {
				break;
			}
			for (Run run : earlier) {
				if (run.dbStarted != null && run.dbEnded != null && !run.dbStarted.isAfter(slot)
						&& run.dbEnded.isAfter(slot)) {
					return run;
				}
			}
		}
		return null;
	}

	/**
	 * Read what the rows of the jobs of {@link #LEASE_LOSS_JOBS} noted.
	 */
	private Map<Long, RunNotes> loadNotes() throws Exception {
		return inLedger((ledger) -> {
			try (PreparedStatement query = ledger.prepareStatement("SELECT id, lease_lost, in_transaction, txid "
					+ "FROM cluster_ledger WHERE run_id = ? AND job IN (?, ?, ?)")) {
				query.setString(1, this.runId);
				for (int i = 0; i < LEASE_LOSS_JOBS.size(); i++) {
					query.setString(i + 2, job(LEASE_LOSS_JOBS.get(i)));
				}
				Map<Long, RunNotes> notes = new HashMap<>();
				try (ResultSet result = query.executeQuery()) {
					while (result.next()) {
						notes.put(result.getLong(1), new RunNotes(Boolean.TRUE.equals(result.getObject(2)),
								(Boolean) result.getObject(3), (Long) result.getObject(4)));
					}
				}
				return notes;
			}
		});
	}

	/**
	 * Check one slot of a job with a recovery policy and misfire=skip.
	 * @param window the runs in the window of an unrecorded completion (see
	 * {@link #duplicates}): they may follow a successful run
	 * @return 1 if the slot is lost, else 0
	 */
	private int checkRecovered(String name, Instant slot, TreeMap<Instant, List<Run>> jobRuns, List<Fault> observed,
			Set<Long> window, List<String> skipped, List<String> failures) {
		List<Run> runs = jobRuns.get(slot);
		if (runs == null) {
			Run holder = heldThrough(jobRuns, slot);
			if (holder != null) {
				// misfire=skip: a trigger that finds the job's lease held by a run of an
				// earlier slot (a recovery run that a fault pushed past the next fire
				// time) skips its slot, as it should
				skipped.add(name + "@" + slot + " (lease held by " + holder + ")");
				return 0;
			}
			Fault fault = faultCovering(slot);
			if (fault == null) {
				fault = observed.stream()
					.filter((stall) -> covers(stall, slot)
							&& Duration.between(stall.start, stall.end).compareTo(MAX_EXCUSED_STALL) <= 0)
					.findFirst()
					.orElse(null);
			}
			if (fault != null) {
				skipped.add(name + "@" + slot);
				return 0;
			}
			failures.add("lost slot " + name + "@" + slot + ": no run, outside every fault window");
			return 1;
		}
		List<Run> succeeded = runs.stream().filter(this::succeededForStore).toList();
		if (succeeded.isEmpty()) {
			failures.add("lost slot " + name + "@" + slot + ": no successful run among " + runs);
			return 1;
		}
		Run success = succeeded.get(0);
		runs.stream()
			.filter((run) -> run != success && run.attempt > success.attempt && !window.contains(run.id))
			.forEach((run) -> failures.add("attempt after the successful " + success + ": " + run));
		return 0;
	}

	/**
	 * The catch-up after each whole-cluster stop: a first catch-up run, which for
	 * run-once stands for several missed slots.
	 * @return the latencies restart -> catch-up run start
	 */
	private List<Long> catchUps(TreeMap<Instant, List<Run>> job, String name, List<String> report,
			List<String> failures, boolean standsForSeveral) {
		List<Long> latencies = new ArrayList<>();
		for (ClusterStop stop : this.clusterStops) {
			List<Run> catchUps = job.values()
				.stream()
				.flatMap(List::stream)
				.filter((run) -> "CATCH_UP".equals(run.trigger) && run.dbStarted != null
						&& run.dbStarted.isAfter(stop.at) && run.dbStarted.isBefore(stop.started.plus(SETTLE)))
				.sorted(Comparator.comparing(Run::dbStarted))
				.toList();
			if (catchUps.isEmpty()) {
				failures.add("no catch-up run of " + name + " after the whole-cluster stop at " + stop.at);
				continue;
			}
			Run first = catchUps.get(0);
			if (standsForSeveral && first.missedSlots.size() < 2) {
				// a later catch-up may follow for a slot missed while the nodes were
				// still
				// starting: its missedSlots() are checked like any other's
				failures.add("after the whole-cluster stop at " + stop.at + ", the first catch-up run of " + name
						+ " should stand for several missed slots: " + catchUps);
			}
			long latency = Duration.between(stop.restarting, first.dbStarted).toMillis();
			latencies.add(latency);
			report.add(String.format(Locale.ROOT,
					"  %s: whole-cluster stop at %s, restart at %s, first node up after %d ms, all after %d ms; %d "
							+ "catch-up run(s), the first (slot %s, missed slots %s) on %s %d ms after the restart, "
							+ "%d ms after the first node was up",
					name, stop.at, stop.restarting, Duration.between(stop.restarting, stop.firstUp).toMillis(),
					Duration.between(stop.restarting, stop.started).toMillis(), catchUps.size(), first.slot,
					first.missedSlots, first.node, latency,
					Duration.between(stop.firstUp, first.dbStarted).toMillis()));
		}
		return latencies;
	}

	/**
	 * Whether a slot that has no run in the harness's ledger was claimed in the store by
	 * a node that a fault stopped between the claim and the first statement of the job
	 * method, which writes the run's row: a {@code kill -9} a few milliseconds after the
	 * slot began, or a claim that the store committed while its answer was lost to an
	 * outage. Such a claim is a run that died before it started; under
	 * {@code recovery: none} it is not run again, and as the store holds the slot as
	 * claimed, no catch-up stands for it. The evidence is the store's: every claim raises
	 * the job's fencing token by one, so a claim that left no run leaves a token that no
	 * run carries between the runs of the slots around it. A claim that took over pending
	 * work leaves its own token too, just before its first catch-up or recovery run: that
	 * one explains nothing. Each other such token explains one slot, and only a slot with
	 * a fault near its start.
	 * @param job the runs of the job by slot
	 * @param slot a slot without any run
	 * @param faults the injected faults and the measured stalls
	 * @param explained the tokens that already explained a slot
	 */
	static boolean claimedWithoutTrace(TreeMap<Instant, List<Run>> job, Instant slot, List<Fault> faults,
			Set<Long> explained) {
		Instant from = slot.minus(SLOT_TOLERANCE).minus(SKEW);
		Instant to = slot.plus(TTL).plus(SKEW);
		if (faults.stream().noneMatch((fault) -> overlaps(fault.start, fault.end, from, to))) {
			return false;
		}
		OptionalLong below = job.headMap(slot, false)
			.values()
			.stream()
			.flatMap(List::stream)
			.mapToLong(Run::token)
			.max();
		OptionalLong above = job.tailMap(slot, false)
			.values()
			.stream()
			.flatMap(List::stream)
			.mapToLong(Run::token)
			.min();
		if (below.isEmpty() || above.isEmpty()) {
			return false;
		}
		Map<Long, Run> byToken = new HashMap<>();
		job.values().forEach((runs) -> runs.forEach((run) -> byToken.put(run.token, run)));
		for (long token = below.getAsLong() + 1; token < above.getAsLong(); token++) {
			Run next = byToken.get(token + 1);
			// a claim that took over pending work (a catch-up or a recovery) runs every
			// slot with a token of its own (startRun): its own token is carried by no run
			boolean tookOverWork = next != null && !"SCHEDULED".equals(next.trigger);
			if (!byToken.containsKey(token) && !tookOverWork && explained.add(token)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The slots of a policy job from its first run to the end, one period apart.
	 */
	private static List<Instant> grid(TreeMap<Instant, List<Run>> job, Duration period, Instant end) {
		List<Instant> slots = new ArrayList<>();
		if (job.isEmpty()) {
			return slots;
		}
		for (Instant slot = job.firstKey(); !slot.isAfter(end); slot = slot.plus(period)) {
			slots.add(slot);
		}
		return slots;
	}

	static String stats(List<Long> values) {
		if (values.isEmpty()) {
			return "none";
		}
		List<Long> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		return sorted + " median " + sorted.get(sorted.size() / 2) + " max " + sorted.get(sorted.size() - 1);
	}

	private String offsets() {
		List<String> offsets = new ArrayList<>();
		for (int i = 0; i < this.profile.nodes; i++) {
			offsets.add(String.valueOf(offset(i)));
		}
		return String.join("/", offsets);
	}

	private Fault faultCovering(Instant slot) {
		return covering(this.faults, slot);
	}

	/**
	 * Return the fault among some whose window (with the margins of
	 * {@link #faultCovering}) holds a slot.
	 */
	private static Fault covering(List<Fault> faults, Instant slot) {
		return faults.stream().filter((fault) -> covers(fault, slot)).findFirst().orElse(null);
	}

	/**
	 * Whether a fault's window holds a slot: from one interval and the clock skew before
	 * it starts to one TTL, one interval and the skew after it ends.
	 */
	private static boolean covers(Fault fault, Instant slot) {
		return overlaps(slot, slot, fault.start.minus(INTERVAL).minus(SKEW),
				fault.end.plus(TTL).plus(INTERVAL).plus(SKEW));
	}

	/**
	 * Whether two closed intervals of time share an instant.
	 */
	private static boolean overlaps(Instant aStart, Instant aEnd, Instant bStart, Instant bEnd) {
		return !aEnd.isBefore(bStart) && !aStart.isAfter(bEnd);
	}

	/**
	 * Return the measured stall that excuses a missed slot of a job: one whose window
	 * (with the margins of {@link #faultCovering}) holds the slot, that lasted at most
	 * {@link #MAX_EXCUSED_STALL}, and, for the pause of one node, only if that node was
	 * running the job during the pause (a node that held nothing cannot keep the others
	 * from a slot).
	 */
	private static Fault stallCovering(List<Fault> stalls, Instant slot, List<Run> jobRuns) {
		for (Fault stall : stalls) {
			if (!covers(stall, slot) || Duration.between(stall.start, stall.end).compareTo(MAX_EXCUSED_STALL) > 0) {
				continue;
			}
			if (stall.node == null || jobRuns.stream()
				.anyMatch((run) -> run.node.equals(stall.node) && run.dbStarted != null && overlaps(run.dbStarted,
						(run.dbEnded != null) ? run.dbEnded : Instant.MAX, stall.start, stall.end))) {
				return stall;
			}
		}
		return null;
	}

	private static List<Run> runsOf(TreeMap<Instant, List<Run>> slots) {
		return slots.values().stream().flatMap(List::stream).toList();
	}

	/**
	 * Whether a run that claimed a later slot than the one its trigger was meant for
	 * started (database clock) before the last node's trigger for that slot could have
	 * fired: only then can its claim be why nobody ran the slot.
	 */
	private static boolean claimedBeforeOthersFired(Run late, Instant slot) {
		return late.dbStarted != null && late.dbStarted.isBefore(slot.plus(SKEW));
	}

	/**
	 * Return the fault among some whose window overlaps a stall's.
	 */
	private static Fault covering(List<Fault> faults, Fault stall) {
		return faults.stream()
			.filter((fault) -> overlaps(stall.start, stall.end, fault.start.minus(SKEW), fault.end.plus(SKEW)))
			.findFirst()
			.orElse(null);
	}

	/**
	 * Return the lines of every node's log that say a release failed, by node id.
	 */
	private Map<String, List<String>> releaseWarnings() throws IOException {
		return releaseWarnings(this.nodes);
	}

	/**
	 * Return the lines of some nodes' logs that say a release failed, by node id.
	 * @param nodes the nodes
	 * @return the lines
	 */
	static Map<String, List<String>> releaseWarnings(List<Node> nodes) throws IOException {
		Map<String, List<String>> warnings = new HashMap<>();
		for (Node node : nodes) {
			if (!Files.exists(node.log)) {
				continue;
			}
			// ISO-8859-1 reads any byte: a torn line at a kill -9 must not abort the
			// check
			for (String line : Files.readAllLines(node.log, StandardCharsets.ISO_8859_1)) {
				if (line.contains(RELEASE_FAILED)) {
					warnings.computeIfAbsent(node.id, (id) -> new ArrayList<>()).add(line);
				}
			}
		}
		return warnings;
	}

	/**
	 * The WARNs the engine logs when the store did not record that a run of a job with
	 * {@code recovery: lost|failed} succeeded, so that the slot may run again (the
	 * documented at-least-once window): the store answered that another claim had taken
	 * the job over first, or the engine gave up retrying.
	 * @param job the job
	 * @param token the fencing token of the run
	 * @param slot its slot
	 * @param recovery the job's recovery policy, {@code lost} or {@code failed}
	 * @return the texts of the WARNs, each up to what may follow it
	 */
	static List<String> unrecordedCompletionWarnings(String job, long token, Instant slot, String recovery) {
		String run = job + "' for slot " + slot + " (fencingToken=" + token + ", succeeded)";
		return List.of("cluster-singleton could not record the end of job '" + run
				+ ": another claim took the job over first and may run the slot again (recovery=" + recovery + ")",
				"cluster-singleton gave up recording the end of job '" + run);
	}

	/**
	 * The first of {@link #unrecordedCompletionWarnings}.
	 * @param job the job
	 * @param token the fencing token of the run
	 * @param slot its slot
	 * @param recovery the job's recovery policy
	 * @return the text of the WARN
	 */
	static String unrecordedCompletionWarning(String job, long token, Instant slot, String recovery) {
		return unrecordedCompletionWarnings(job, token, slot, recovery).get(0);
	}

	/**
	 * Count the duplicates: two runs of one (job, slot, attempt), or two successful runs
	 * of one (job, slot). A run of a recovery job's slot that starts after a successful
	 * run of the same slot (the latest one with a lower attempt) had ended is in the
	 * <em>window of an unrecorded completion</em>, and no duplicate, only if the node of
	 * that successful run logged, for its job, fencing token and slot, that the store
	 * could not record its success ({@link #unrecordedCompletionWarning}). Every other
	 * second successful run of a slot is a duplicate.
	 * @param byJob the runs by job and slot
	 * @param recoveryJobs the jobs with a recovery policy, with it ({@code lost} or
	 * {@code failed})
	 * @param releaseWarnings the nodes' log lines about a failed release, by node id
	 * @return the duplicates, their failures, and the window's runs
	 */
	static Duplicates duplicates(Map<String, TreeMap<Instant, List<Run>>> byJob, Map<String, String> recoveryJobs,
			Map<String, List<String>> releaseWarnings) {
		return duplicates(byJob, recoveryJobs, releaseWarnings, (run) -> null);
	}

	/**
	 * As {@link #duplicates(Map, Map, Map)}, with one more explanation of a run again
	 * after a success: {@code diedWithNode} says why the store never recorded that
	 * success (its node was killed before the completion was sent), or {@code null}.
	 */
	static Duplicates duplicates(Map<String, TreeMap<Instant, List<Run>>> byJob, Map<String, String> recoveryJobs,
			Map<String, List<String>> releaseWarnings, Function<Run, String> diedWithNode) {
		return duplicates(byJob, recoveryJobs, releaseWarnings, diedWithNode, Run::succeeded);
	}

	/**
	 * As {@link #duplicates(Map, Map, Map, Function)}, with the slot's successes told by
	 * {@code isSuccess}: also a run that returned normally after its lease had stopped
	 * being valid, which the library's run ledger records as {@code succeeded} (see
	 * {@link #succeededForStore}). Such a run's completion may still have been refused,
	 * when another claim had taken the job over by the time the store answered again; its
	 * node then logged so, and a run of the slot after it is the window of an unrecorded
	 * completion like any other.
	 */
	static Duplicates duplicates(Map<String, TreeMap<Instant, List<Run>>> byJob, Map<String, String> recoveryJobs,
			Map<String, List<String>> releaseWarnings, Function<Run, String> diedWithNode, Predicate<Run> isSuccess) {
		int count = 0;
		List<String> failures = new ArrayList<>();
		List<String> unrecorded = new ArrayList<>();
		Set<Long> window = new HashSet<>();
		for (Map.Entry<String, TreeMap<Instant, List<Run>>> job : byJob.entrySet()) {
			String recovery = recoveryJobs.get(job.getKey());
			for (List<Run> sameSlot : job.getValue().values()) {
				Map<Integer, List<Run>> byAttempt = new TreeMap<>();
				sameSlot
					.forEach((run) -> byAttempt.computeIfAbsent(run.attempt, (attempt) -> new ArrayList<>()).add(run));
				int sameAttempt = byAttempt.values().stream().mapToInt((same) -> same.size() - 1).sum();
				List<Run> succeeded = sameSlot.stream()
					.filter(isSuccess)
					.sorted(Comparator.comparingInt(Run::attempt).thenComparingLong(Run::id))
					.toList();
				// the runs after a success whose completion the store could not record
				Map<Long, String> inWindow = new LinkedHashMap<>();
				List<String> explained = new ArrayList<>();
				if (recovery != null) {
					for (Run run : sameSlot) {
						Run before = succeeded.stream()
							.filter((success) -> success.attempt < run.attempt)
							.reduce((first, second) -> second)
							.orElse(null);
						if (before == null || run.dbStarted == null || !run.dbStarted.isAfter(before.dbEnded)) {
							continue;
						}
						List<String> expected = unrecordedCompletionWarnings(before.job, before.token, before.slot,
								recovery);
						String line = releaseWarnings.getOrDefault(before.node, List.of())
							.stream()
							.filter((candidate) -> candidate.contains(" WARN ")
									&& expected.stream().anyMatch(candidate::contains))
							.findFirst()
							.orElse(null);
						if (line == null) {
							line = diedWithNode.apply(before);
						}
						if (line != null) {
							inWindow.put(run.id, line);
							explained.add(String.format(Locale.ROOT,
									"slot %s of %s: attempt %d on %s (token %d) succeeded, ended %s, its node logged "
											+ "[%s]; then attempt %d on %s (token %d, %s) started %s, %d ms after",
									before.slot, before.job, before.attempt, before.node, before.token, before.dbEnded,
									line.length() > 600 ? line.substring(0, 600) + "..." : line, run.attempt, run.node,
									run.token, run.succeeded() ? "succeeded" : "did not succeed", run.dbStarted,
									Duration.between(before.dbEnded, run.dbStarted).toMillis()));
						}
					}
				}
				long extraSuccesses = succeeded.stream().skip(1).filter((run) -> !inWindow.containsKey(run.id)).count();
				int extra = (int) Math.max(extraSuccesses, sameAttempt);
				if (extra > 0) {
					count += extra;
					failures.add("duplicate runs of one slot: " + sameSlot + (explained.isEmpty() ? ""
							: " (in the window of an unrecorded completion: " + explained + ", but not all of them)"));
				}
				else {
					window.addAll(inWindow.keySet());
					unrecorded.addAll(explained);
				}
			}
		}
		return new Duplicates(count, failures, unrecorded, window);
	}

	/**
	 * Return the stalls the harness measured: the stall watches' (the store did not
	 * answer a durable write within a second) and every node's {@code [pause]} lines of a
	 * second or more (its JVM did not run; a SIGSTOP shows here too).
	 */
	private List<Fault> observedStalls() throws IOException {
		List<Fault> stalls = new ArrayList<>();
		for (StallWatch watch : this.watches) {
			for (StallWatch.Stall stall : watch.stalls()) {
				stalls.add(new Fault("store stall: " + stall, stall.start(), stall.end(), null));
			}
		}
		for (Node node : this.nodes) {
			if (!Files.exists(node.log)) {
				continue;
			}
			// ISO-8859-1 reads any byte: a torn line at a kill -9 must not abort the
			// check
			for (String line : Files.readAllLines(node.log, StandardCharsets.ISO_8859_1)) {
				int at = line.indexOf(PAUSE_PREFIX);
				if (at < 0) {
					continue;
				}
				// "[pause] 1234 ms, <from> .. <to>"
				String[] parts = line.substring(at + PAUSE_PREFIX.length()).split("(\\s+ms,\\s+|\\s+\\.\\.\\s+)");
				if (parts.length == 3 && Long.parseLong(parts[0].trim()) >= StallWatch.STALL.toMillis()) {
					stalls.add(new Fault("node pause: " + node.id + " did not run for " + parts[0].trim() + " ms",
							Instant.parse(parts[1].trim()), Instant.parse(parts[2].trim()), node.id));
				}
			}
		}
		stalls.sort(Comparator.comparing(Fault::start));
		return stalls;
	}

	private static List<Instant> instants(String text) {
		if (text == null || text.isBlank()) {
			return List.of();
		}
		return Stream.of(text.split(",")).map(String::trim).map(Instant::parse).toList();
	}

	private static Instant instant(Timestamp timestamp) {
		return (timestamp != null) ? timestamp.toInstant() : null;
	}

	static void sleepUntil(Instant instant) throws InterruptedException {
		long millis = Duration.between(Instant.now(), instant).toMillis();
		if (millis > 0) {
			Thread.sleep(millis);
		}
	}

	private static Connection ledger() throws SQLException {
		return connect(LEDGER_URL, "ledger");
	}

	static Connection connect(String url, String applicationName) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		properties.setProperty("ApplicationName", applicationName);
		// a restarting server fails a query rather than hanging it: it is retried
		properties.setProperty("connectTimeout", "5");
		properties.setProperty("socketTimeout", "60");
		return DriverManager.getConnection(url, properties);
	}

	/**
	 * Run some work on a new ledger connection, retried while the server is away (a
	 * PostgreSQL restart), for at most {@link #LEDGER_RETRY}.
	 */
	private static <T> T inLedger(SqlWork<T> work) throws SQLException, InterruptedException {
		return retrying(LEDGER_URL, "ledger", work);
	}

	static <T> T retrying(String url, String applicationName, SqlWork<T> work)
			throws SQLException, InterruptedException {
		Instant deadline = Instant.now().plus(LEDGER_RETRY);
		boolean logged = false;
		while (true) {
			try (Connection connection = connect(url, applicationName)) {
				return work.apply(connection);
			}
			catch (SQLException ex) {
				if (Instant.now().isAfter(deadline)) {
					throw ex;
				}
				if (!logged) {
					log("query failed, retrying for up to %s: %s", LEDGER_RETRY, ex);
					logged = true;
				}
				Thread.sleep(200);
			}
		}
	}

	static void deleteRecursively(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Collections.reverseOrder()).toList()) {
				Files.delete(path);
			}
		}
	}

	static void log(String format, Object... args) {
		System.out.println("[cluster-proof] " + String.format(Locale.ROOT, format, args));
	}

	/**
	 * Send one command to the harness's Redis server and read its reply.
	 */
	private Object redis(String... args) throws IOException {
		return redis(this.redisServer.port, args);
	}

	/**
	 * Send one command to Redis and read its reply (RESP2).
	 */
	private static Object redis(int port, String... args) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
			socket.setSoTimeout(10000);
			StringBuilder command = new StringBuilder("*" + args.length + "\r\n");
			for (String arg : args) {
				command.append('$')
					.append(arg.getBytes(StandardCharsets.UTF_8).length)
					.append("\r\n")
					.append(arg)
					.append("\r\n");
			}
			OutputStream out = socket.getOutputStream();
			out.write(command.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			return readReply(socket.getInputStream());
		}
	}

	private static Object readReply(InputStream in) throws IOException {
		char type = (char) in.read();
		String line = readLine(in);
		switch (type) {
			case '+':
			case ':':
				return line;
			case '-':
				throw new IOException("Redis: " + line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] bytes = in.readNBytes(length + 2);
				return new String(bytes, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				List<Object> items = new ArrayList<>();
				for (int i = 0; i < count; i++) {
					items.add(readReply(in));
				}
				return items;
			}
			default:
				throw new IOException("unexpected Redis reply type " + type);
		}
	}

	private static String readLine(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != -1 && c != '\r') {
			line.append((char) c);
		}
		in.read();
		return line.toString();
	}

	/**
	 * The profile: how many nodes, jobs and cycles, and whether the store restart of the
	 * JDBC backend restarts the PostgreSQL cluster ({@code cluster.proof.pg-restart}, by
	 * default on for the long profile only: the short one runs in the default build and
	 * must not restart the machine's shared server); for the leader-mode scenario, how
	 * many jobs and how many kills of the leader ({@code cluster.proof.leader-kills}).
	 */
	private record Profile(String name, int nodes, int jobs, int cycles, boolean pgRestart, int policyRounds,
			int lostKills, int leaderJobs, int leaderKills) {

		static Profile current() {
			String name = System.getProperty("cluster.proof.profile", "short");
			Profile profile = "long".equals(name) ? new Profile(name, 5, 50, 10, true, 3, 2, 20, 8)
					: new Profile("short", 3, 10, 1, false, 1, 2, 5, 2);
			int cycles = Integer.getInteger("cluster.proof.cycles", profile.cycles);
			String pgRestart = System.getProperty("cluster.proof.pg-restart", "");
			return new Profile(profile.name, profile.nodes, profile.jobs, cycles,
					pgRestart.isBlank() ? profile.pgRestart : Boolean.parseBoolean(pgRestart.trim()),
					Integer.getInteger("cluster.proof.policy-rounds", profile.policyRounds), profile.lostKills,
					profile.leaderJobs, Integer.getInteger("cluster.proof.leader-kills", profile.leaderKills));
		}

	}

	@FunctionalInterface
	private interface NodeStarter {

		Node start(String id, long offsetMillis) throws IOException;

	}

	@FunctionalInterface
	interface SqlWork<T> {

		T apply(Connection connection) throws SQLException;

	}

	/**
	 * The stall watch's write to PostgreSQL: an autocommit {@code UPDATE}, on a
	 * connection that is kept, and opened again after a failure.
	 */
	private static final class PostgresProbe implements StallWatch.Probe {

		private final String url;

		private final String applicationName;

		private Connection connection;

		PostgresProbe(String url, String applicationName) {
			this.url = url;
			this.applicationName = applicationName;
		}

		@Override
		public void write() throws SQLException {
			try {
				if (this.connection == null) {
					this.connection = connect(this.url, this.applicationName);
				}
				try (Statement statement = this.connection.createStatement()) {
					statement.executeUpdate("UPDATE cluster_proof_probe SET n = n + 1 WHERE id = 1");
				}
			}
			catch (SQLException ex) {
				close();
				throw ex;
			}
		}

		@Override
		public void close() {
			if (this.connection != null) {
				try {
					this.connection.close();
				}
				catch (SQLException ex) {
					// already broken
				}
				this.connection = null;
			}
		}

	}

	/**
	 * A {@code redis-server} of the harness's own: bound to 127.0.0.1 on a free port, its
	 * data in a directory of the run, with durable persistence (AOF, fsync on every
	 * write, no RDB snapshots), so that a {@code kill -9} loses no acknowledged write.
	 */
	private static final class RedisServer {

		private final Path binary;

		private final int port;

		private final Path directory;

		private final Path log;

		private Process process;

		RedisServer(Path binary, int port, Path directory, Path log) {
			this.binary = binary;
			this.port = port;
			this.directory = directory;
			this.log = log;
		}

		void start() throws IOException {
			List<String> command = List.of(this.binary.toString(), "--port", String.valueOf(this.port), "--bind",
					"127.0.0.1", "--dir", this.directory.toString(), "--appendonly", "yes", "--appendfsync", "always",
					"--save", "", "--daemonize", "no", "--logfile", "");
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
				.start();
		}

		/**
		 * Poll until the server answers {@code PING} (not while it loads its AOF).
		 * @return when it answered
		 */
		Instant awaitAnswering() throws IOException {
			AtomicReference<Instant> answered = new AtomicReference<>();
			try {
				Awaitility.await()
					.atMost(STORE_BACK)
					.pollDelay(Duration.ZERO)
					.pollInterval(Duration.ofMillis(10))
					.until(() -> {
						if (!this.process.isAlive()) {
							throw new AssertionError("redis-server exited with " + this.process.exitValue() + ":\n"
									+ Files.readString(this.log));
						}
						try {
							if ("PONG".equals(redis(this.port, "PING"))) {
								answered.set(Instant.now());
								return true;
							}
						}
						catch (IOException ex) {
							// not listening yet, or still loading
						}
						return false;
					});
			}
			catch (ConditionTimeoutException ex) {
				throw new AssertionError("redis-server on port " + this.port + " did not answer within " + STORE_BACK
						+ ":\n" + Files.readString(this.log), ex);
			}
			return answered.get();
		}

		/**
		 * A crash: SIGKILL, no shutdown.
		 */
		void kill() throws InterruptedException {
			this.process.destroyForcibly();
			this.process.waitFor();
		}

		void stop() throws InterruptedException {
			if (this.process != null && this.process.isAlive()) {
				this.process.destroy();
				if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
					kill();
				}
			}
		}

	}

	/**
	 * A fault window, injected or measured.
	 *
	 * @param name what happened
	 * @param start when it started
	 * @param end when it ended
	 * @param node the one node a SIGSTOP or a measured pause stopped; otherwise
	 * {@code null}
	 */
	record Fault(String name, Instant start, Instant end, String node) {

		Fault(String name, Instant start, Instant end) {
			this(name, start, end, null);
		}

	}

	/**
	 * A kill -9.
	 *
	 * @param node the killed node
	 * @param at when the harness sent it
	 * @param dead when the harness saw the process gone: runs of the node that the ledger
	 * says started between the two were started before the signal landed
	 * @param heldJobs the jobs the node was running
	 */
	private record Kill(String node, Instant at, Instant dead, List<String> heldJobs) {
	}

	private record LostKill(String node, Instant at, long ledgerId) {
	}

	/**
	 * One run as the library's own run ledger records it.
	 *
	 * @param token its fencing token
	 * @param slot its slot
	 * @param attempt its attempt
	 * @param state {@code running}, {@code succeeded}, {@code failed} or {@code lost}
	 * @param owner the node's owner id
	 */
	record LibraryRun(long token, Instant slot, int attempt, String state, String owner) {
	}

	/**
	 * What a ledger row of the jobs of {@link #LEASE_LOSS_JOBS} says beyond {@link Run}.
	 *
	 * @param leaseLost the run ended with {@code LeaseLostException}
	 * @param inTransaction a transaction was active in the run ({@code null}: not said)
	 * @param txid the database's id of that transaction, if known
	 */
	record RunNotes(boolean leaseLost, Boolean inTransaction, Long txid) {
	}

	/**
	 * A whole-cluster stop.
	 *
	 * @param at when every node was killed
	 * @param restarting when the harness started the node JVMs again
	 * @param firstUp when the first of them logged that it had started
	 * @param started when the harness saw all of them started
	 */
	private record ClusterStop(Instant at, Instant restarting, Instant firstUp, Instant started) {
	}

	/**
	 * The duplicates of a run.
	 *
	 * @param count how many runs were one too many
	 * @param failures one per slot with a duplicate
	 * @param unrecorded one line per run in the window of an unrecorded completion (no
	 * duplicate)
	 * @param window the ids of those runs
	 */
	record Duplicates(int count, List<String> failures, List<String> unrecorded, Set<Long> window) {
	}

	record Run(long id, String job, Instant slot, String node, long token, Boolean leaseValid, Instant dbStarted,
			Instant dbEnded, Instant startedAt, Instant endedAt, boolean dbStartedDerived, boolean dbEndedDerived,
			Instant fireTime, int attempt, String trigger, List<Instant> missedSlots, boolean failed) {

		/**
		 * Whether this run ended, did not throw and still held its lease at its end.
		 */
		boolean succeeded() {
			return this.dbEnded != null && !this.failed && Boolean.TRUE.equals(this.leaseValid);
		}

		@Override
		public String toString() {
			return "run " + this.id + " (" + this.job + " slot " + this.slot + " attempt " + this.attempt + " "
					+ this.trigger + " on " + this.node + ", token " + this.token + ", started " + this.dbStarted
					+ ((this.dbEnded == null) ? ", never ended" : ", ended " + this.dbEnded) + ", lease valid at end "
					+ this.leaseValid + (this.failed ? ", threw" : "")
					+ (this.missedSlots.isEmpty() ? "" : ", missed slots " + this.missedSlots) + ")";
		}

		/**
		 * Whether this run started well before its slot on its node's clock: a trigger
		 * more than half a period late that the slot rule took for an early trigger of
		 * the next slot.
		 */
		boolean borrowedNextSlot() {
			return this.startedAt.isBefore(this.slot.minus(BORROW_THRESHOLD));
		}

	}

}
