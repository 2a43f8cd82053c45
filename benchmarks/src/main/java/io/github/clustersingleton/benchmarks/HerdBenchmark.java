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

package io.github.clustersingleton.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.NodePresence;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.kubernetes.KubernetesLeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.LeaderElection;
import io.github.clustersingleton.lease.ScheduledFireTime;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The herd at the top of the minute: N nodes whose J cron jobs all fire at the same
 * instant, what the store sees per tick, and how late the runs start. By default each
 * node is an application in this JVM ({@link HerdApplications}): a Spring Boot
 * application context with Spring's scheduler (one thread, Spring Boot's default
 * {@code spring.task.scheduling.pool.size=1}), the starter's auto-configuration, its own
 * backend (with its own connection pool of two connections, Redis connection factory or
 * Kubernetes client) as the lease backend bean, and one bean whose J methods are
 * {@code @Scheduled} every ten seconds and guarded with {@code @ClusterSingleton}, or
 * with ShedLock's {@code @SchedulerLock} and its Spring integration for ShedLock's rows.
 * Every trigger goes through the path it takes in an application: Spring's cron trigger,
 * the bean post-processor's interceptor, the engine. A tick is one fire time of the
 * crons, measured from a second before it. With {@code -Dherd.registration=direct} each
 * node is instead an engine the benchmark builds and calls itself: a
 * {@link ClusterSingletonExecutor} and a {@link ScheduledThreadPoolExecutor} on which all
 * J tasks of a tick are scheduled for the same instant (ShedLock's providers called
 * directly, {@code lock} then {@code unlock}).
 * <p>
 * Per tick the store's own counters are read before and after (once every run ended and
 * the run ledger's writes drained): PostgreSQL {@code xact_commit + xact_rollback} of a
 * database of its own ({@code herd}), with every pooled connection poked by a one-row
 * read so that its backend flushes its statistics, whose calibrated cost is subtracted;
 * MariaDB {@code Questions} minus the counter reads (server-wide: other clients count
 * too); Redis {@code INFO commandstats} without {@code INFO}, commands run inside Lua
 * scripts included (server-wide: give the herd a Redis of its own through
 * {@code CLUSTER_SINGLETON_TEST_REDIS_URL}); Kubernetes ({@code kubernetes}, fabric8's
 * mock API server in CRUD mode in this JVM, without ShedLock, which has no Kubernetes
 * provider) the requests the server answered. Store CPU is the server processes'
 * {@code utime + stime} ({@code /proc}) or Redis {@code used_cpu_*}. What the statements
 * cost the store is read too (see {@link HerdCounters}): PostgreSQL's WAL bytes,
 * transaction ids and rows touched, MariaDB's rows touched and row lock waits, taken from
 * the tick of median statements. The client side counts each node's calls to its backend,
 * its run ledger or its lock provider.
 * <p>
 * The herd's tables live in a database of its own, {@code herd}, created when missing.
 * <p>
 * Arguments: the output directory (default {@code docs/benchmarks}), then the stores
 * (default {@code postgresql redis mariadb}). System properties: {@code herd.nodes}
 * ({@code 3,10,30}), {@code herd.jobs} ({@code 10,100,500}), {@code herd.grid.<store>}
 * (pairs such as {@code 3x10,30x500}, instead of the full grid), {@code herd.contenders}
 * ({@code ours,unrouted,leader,shedlock}), {@code herd.ticks} (measured ticks after one
 * warm-up, {@code 3}), {@code herd.threads} (scheduler threads per node, {@code 1}),
 * {@code herd.pool} (JDBC connections per node, {@code 2}), {@code herd.period} (the
 * jobs' cron period in seconds, {@code 10}; a tick must end within it),
 * {@code herd.registration} ({@code spring} or {@code direct}), {@code herd.chartsOnly}
 * (redraw the charts from the CSV file only). Rows go into {@code herd.csv}, replacing
 * rows of the same store, contender, N, J and threads; the charts are drawn from the
 * whole file. Rows written before a column existed keep an empty cell in it.
 *
 * @author cluster-singleton contributors
 */
public final class HerdBenchmark {

	/** The library's default lease TTL. */
	private static final Duration TTL = Duration.ofSeconds(30);

	/** The library's default slot tolerance. */
	private static final Duration SLOT_TOLERANCE = Duration.ofSeconds(1);

	/** The default of cluster-singleton.preferred-node.sweep-delay. */
	private static final Duration SWEEP_DELAY = Duration.ofMillis(250);

	/** The library's default {@code lockAtMostFor}, also given to ShedLock. */
	private static final Duration LOCK_AT_MOST_FOR = Duration.ofMinutes(30);

	/**
	 * ShedLock's {@code lockAtLeastFor}: what keeps a late node from running the same
	 * occurrence again once the winner unlocked; ticks are spaced so that it has expired.
	 */
	private static final Duration SHEDLOCK_AT_LEAST_FOR = Duration.ofSeconds(5);

	/**
	 * Connections per node on JDBC: two by default, as thirty nodes of a larger pool
	 * would pass PostgreSQL's default {@code max_connections} of 100.
	 */
	private static final int POOL_SIZE = Integer.getInteger("herd.pool", 2);

	private static final String LEASE_TABLE = "herd_lease";

	private static final String RUN_TABLE = "herd_run";

	private static final String SHEDLOCK_TABLE = "herd_shedlock";

	private static final String KEY_PREFIX = "herd";

	static final String DATABASE = "herd";

	private static final long SETTLE_MILLIS = 1100;

	/**
	 * The jobs' cron period: every tick fires at a multiple of it, so that each tick is a
	 * slot of every job, as the top of the minute is for jobs that run every minute. It
	 * is longer than the routing horizon (2.5 s with the defaults), within which a job
	 * that fires again is not left to its preferred node, and than the 8 looks of a
	 * sweep.
	 */
	private static final Duration TICK_PERIOD = Duration.ofSeconds(Integer.getInteger("herd.period", 10));

	/**
	 * Whether the nodes are applications ({@link HerdApplications}): the jobs are
	 * {@code @Scheduled} methods and every trigger goes through Spring's scheduler and
	 * the bean post-processor's interceptor, as in an application ({@code spring}, the
	 * default), or engines the benchmark calls itself at the fire time ({@code direct}).
	 */
	private static final boolean APPLICATIONS = !"direct".equals(System.getProperty("herd.registration", "spring"));

	/** How many looks a sweep makes at most (PreferredNodes.MAX_LOOKS). */
	private static final int MAX_LOOKS = 8;

	private static final List<String> COLUMNS = List.of("store", "contender", "nodes", "jobs", "threads", "ticks",
			"load1_before", "store_counter", "store_statements_per_tick", "store_statements_min",
			"store_statements_max", "store_detail", "evalsha_per_tick", "store_cpu_ms_per_tick",
			"nodes_cpu_ms_per_tick", "client_calls_per_tick", "client_calls_per_node", "client_calls_max_node",
			"acquires", "releases", "ledger_writes", "other_calls", "background_calls_per_node_per_min",
			"runs_per_tick", "duplicate_runs_per_tick", "missed_jobs_per_tick", "delay_p50_ms", "delay_p99_ms",
			"delay_max_ms", "tick_ms", "wal_bytes_per_tick", "xids_per_tick", "rows_touched_per_tick",
			"row_lock_waits_per_tick", "row_lock_time_ms_per_tick", "registration", "runs_max_node");

	private HerdBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		Path directory = Path.of((args.length > 0) ? args[0] : "docs/benchmarks");
		List<String> stores = (args.length > 1) ? Arrays.asList(args).subList(1, args.length)
				: List.of("postgresql", "redis", "mariadb");
		List<Integer> nodes = ints(System.getProperty("herd.nodes", "3,10,30"));
		List<Integer> jobs = ints(System.getProperty("herd.jobs", "10,100,500"));
		List<String> contenders = List
			.of(System.getProperty("herd.contenders", "ours,unrouted,leader,shedlock").split(","));
		int ticks = Integer.getInteger("herd.ticks", 3);
		int threads = Integer.getInteger("herd.threads", 1);
		Path csv = directory.resolve("herd.csv");
		Map<String, Map<String, String>> rows = readCsv(csv);
		for (String store : Boolean.getBoolean("herd.chartsOnly") ? List.<String>of() : stores) {
			Map<Integer, List<Integer>> grid = grid(System.getProperty("herd.grid." + store), nodes, jobs);
			try (HerdCounters counters = HerdCounters.open(store)) {
				for (Map.Entry<Integer, List<Integer>> perNodes : grid.entrySet()) {
					try (Herd herd = Herd.open(store, perNodes.getKey(), threads)) {
						long pokeCost = herd.calibratePoke(counters);
						for (int jobCount : perNodes.getValue()) {
							for (String contender : contenders) {
								String load = loadAverage();
								Map<String, String> row = new Measurement(herd, counters, contender, jobCount, ticks,
										pokeCost)
									.run();
								row.put("load1_before", load);
								rows.put(key(row), row);
								writeCsv(csv, rows);
								System.out.println(row);
							}
						}
					}
				}
			}
		}
		drawCharts(rows.values(), directory);
	}

	private static List<Integer> ints(String list) {
		return Arrays.stream(list.split(",")).map(String::trim).map(Integer::parseInt).toList();
	}

	private static Map<Integer, List<Integer>> grid(String pairs, List<Integer> nodes, List<Integer> jobs) {
		Map<Integer, List<Integer>> grid = new TreeMap<>();
		if (pairs != null && !pairs.isBlank()) {
			for (String pair : pairs.split(",")) {
				String[] parts = pair.trim().split("x");
				grid.computeIfAbsent(Integer.parseInt(parts[0]), (n) -> new ArrayList<>())
					.add(Integer.parseInt(parts[1]));
			}
		}
		else {
			nodes.forEach((n) -> grid.put(n, jobs));
		}
		return grid;
	}

	private static String key(Map<String, String> row) {
		return row.get("store") + "/" + row.get("contender") + "/" + row.get("nodes") + "/" + row.get("jobs") + "/"
				+ row.get("threads");
	}

	static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0];
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static Map<String, Map<String, String>> readCsv(Path csv) throws IOException {
		Map<String, Map<String, String>> rows = new LinkedHashMap<>();
		if (!Files.exists(csv)) {
			return rows;
		}
		List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
		if (lines.isEmpty()) {
			return rows;
		}
		String[] header = lines.get(0).split(",", -1);
		for (String line : lines.subList(1, lines.size())) {
			String[] cells = line.split(",", -1);
			Map<String, String> row = new LinkedHashMap<>();
			for (int i = 0; i < header.length && i < cells.length; i++) {
				row.put(header[i], cells[i]);
			}
			rows.put(key(row), row);
		}
		return rows;
	}

	private static void writeCsv(Path csv, Map<String, Map<String, String>> rows) throws IOException {
		Files.createDirectories(csv.toAbsolutePath().getParent());
		List<String> lines = new ArrayList<>();
		lines.add(String.join(",", COLUMNS));
		List<Map<String, String>> sorted = new ArrayList<>(rows.values());
		sorted.sort((a, b) -> {
			for (String column : List.of("store", "contender")) {
				int order = a.get(column).compareTo(b.get(column));
				if (order != 0) {
					return order;
				}
			}
			for (String column : List.of("nodes", "jobs", "threads")) {
				int order = Integer.compare(Integer.parseInt(a.get(column)), Integer.parseInt(b.get(column)));
				if (order != 0) {
					return order;
				}
			}
			return 0;
		});
		for (Map<String, String> row : sorted) {
			lines.add(String.join(",",
					COLUMNS.stream().map((column) -> row.getOrDefault(column, "").replace(',', ';')).toList()));
		}
		Files.write(csv, lines, StandardCharsets.UTF_8);
	}

	private static void drawCharts(Collection<Map<String, String>> rows, Path directory) throws IOException {
		Map<String, String> storeNames = new LinkedHashMap<>();
		storeNames.put("postgresql", "PostgreSQL");
		storeNames.put("mariadb", "MariaDB");
		storeNames.put("redis", "Redis");
		storeNames.put("kubernetes", "Kubernetes (mock)");
		Map<String, String> contenderNames = new LinkedHashMap<>();
		contenderNames.put("ours", "ours");
		contenderNames.put("unrouted", "ours, routing off");
		contenderNames.put("shedlock", "ShedLock");
		contenderNames.put("leader", "leader mode");
		SvgChart delays = new SvgChart("p99 start delay, 30 nodes", "jobs firing at once",
				"p99 delay after the fire time (ms)")
			.logX()
			.logY();
		boolean anyDelay = false;
		for (Map.Entry<String, String> store : storeNames.entrySet()) {
			List<Map<String, String>> ofStore = rows.stream()
				.filter((row) -> row.get("store").equals(store.getKey()) && "1".equals(row.get("threads")))
				.toList();
			if (ofStore.isEmpty()) {
				continue;
			}
			String counter = ofStore.get(0).get("store_counter").replace(" incl. commands inside scripts", "");
			String title = store.getValue() + ("redis".equals(store.getKey())
					? ": commands per tick, incl. those inside Lua scripts" : ": store statements per tick");
			SvgChart statements = new SvgChart(title, "jobs firing at once", counter + " per tick").logX().logY();
			int largest = ofStore.stream().mapToInt((row) -> Integer.parseInt(row.get("nodes"))).max().orElse(0);
			for (Map.Entry<String, String> contender : contenderNames.entrySet()) {
				List<Integer> nodeCounts = ofStore.stream()
					.filter((row) -> row.get("contender").equals(contender.getKey()))
					.map((row) -> Integer.parseInt(row.get("nodes")))
					.distinct()
					.sorted()
					.toList();
				for (int nodes : nodeCounts) {
					// leader mode hardly depends on N: its largest herd only
					if ("leader".equals(contender.getKey()) && nodes != largest) {
						continue;
					}
					List<Map<String, String>> points = ofStore.stream()
						.filter((row) -> row.get("contender").equals(contender.getKey())
								&& Integer.parseInt(row.get("nodes")) == nodes)
						.sorted((x, y) -> Double.compare(number(x, "jobs"), number(y, "jobs")))
						.toList();
					String name = contender.getValue() + ", " + nodes + " nodes";
					statements.series(name, values(points, (row) -> number(row, "jobs")),
							values(points, (row) -> Math.max(1, number(row, "store_statements_per_tick"))));
					if (nodes == 30 && ("postgresql".equals(store.getKey()) || "redis".equals(store.getKey()))) {
						delays.series(store.getValue() + " " + contender.getValue(),
								values(points, (row) -> number(row, "jobs")),
								values(points, (row) -> Math.max(0.1, number(row, "delay_p99_ms"))));
						anyDelay = true;
					}
				}
			}
			statements.write(directory.resolve("herd-statements-" + store.getKey() + ".svg"));
		}
		if (anyDelay) {
			delays.write(directory.resolve("herd-delay.svg"));
		}
	}

	private static double number(Map<String, String> row, String column) {
		String value = row.get(column);
		return (value == null || value.isEmpty()) ? 0 : Double.parseDouble(value);
	}

	private static double[] values(List<Map<String, String>> rows, ToDoubleFunction<Map<String, String>> value) {
		return rows.stream().mapToDouble(value).toArray();
	}

	/**
	 * The CPU time this process has used, all its threads: the nodes' schedulers, clients
	 * and engines, and the benchmark's own few reads of the counters.
	 */
	static long processCpuNanos() {
		OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
		return (os instanceof com.sun.management.OperatingSystemMXBean process) ? process.getProcessCpuTime() : 0;
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static void sleepUntil(Instant instant) {
		long millis = Duration.between(Instant.now(), instant).toMillis();
		if (millis > 0) {
			sleep(millis);
		}
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
	}

	private static String format(double value) {
		return (value == Math.rint(value)) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.2f", value);
	}

	/**
	 * One configuration (store, contender, N, J): a warm-up tick, then the measured ones.
	 */
	private static final class Measurement {

		private final Herd herd;

		private final HerdCounters counters;

		private final String contender;

		private final int jobCount;

		private final int ticks;

		private final long pokeCost;

		private final List<String> jobNames = new ArrayList<>();

		private final List<JobDefinition> jobs = new ArrayList<>();

		private final List<ClusterSingletonExecutor> executors = new ArrayList<>();

		/** The nodes as applications, when {@link #APPLICATIONS}. */
		private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

		private final List<LockProvider> lockProviders = new ArrayList<>();

		private final List<Calls> calls = new ArrayList<>();

		/** Per node of a routed contender: each job's body in the current tick. */
		private final List<AtomicReferenceArray<Runnable>> bodies = new ArrayList<>();

		private final AtomicLong lastLock = new AtomicLong();

		/** Per measured tick of the applications: the most runs one node made. */
		private final List<Double> busiestNodeRuns = new ArrayList<>();

		Measurement(Herd herd, HerdCounters counters, String contender, int jobCount, int ticks, long pokeCost) {
			this.herd = herd;
			this.counters = counters;
			this.contender = contender;
			this.jobCount = jobCount;
			this.ticks = ticks;
			this.pokeCost = pokeCost;
			for (int j = 0; j < jobCount; j++) {
				String name = "herd-job-" + j;
				this.jobNames.add(name);
				this.jobs.add(JobDefinition.of(name, LOCK_AT_MOST_FOR, Duration.ZERO)
					.withSchedule(CronSlotSchedule.of("*/" + TICK_PERIOD.toSeconds() + " * * * * *", ZoneOffset.UTC)));
			}
		}

		Map<String, String> run() throws Exception {
			String leaderLease = "herd-leader-" + UUID.randomUUID().toString().substring(0, 8);
			for (int i = 0; i < this.herd.size(); i++) {
				Calls nodeCalls = new Calls(leaderLease);
				this.calls.add(nodeCalls);
				if (APPLICATIONS) {
					startApplication(i, nodeCalls, leaderLease);
					continue;
				}
				if ("shedlock".equals(this.contender)) {
					this.lockProviders.add(this.herd.lockProvider(i));
					continue;
				}
				ClusterSingletonExecutor executor = new ClusterSingletonExecutor(
						new Counting(this.herd.backend(i), nodeCalls),
						new ClusterSingletonExecutor.Settings(this.herd.owner(i), TTL, SLOT_TOLERANCE, true),
						Clock.systemUTC(), new ClusterSingletonListener() {
						});
				if ("leader".equals(this.contender)) {
					executor.enableLeaderMode(leaderLease, LeaderElection.Listener.NONE);
					executor.startLeaderElection();
				}
				else if (routed()) {
					// as the auto-configuration does by default: every job registered,
					// with
					// an invocation the sweep can run, and preferred-node routing on
					AtomicReferenceArray<Runnable> bodies = new AtomicReferenceArray<>(this.jobCount);
					this.bodies.add(bodies);
					for (int j = 0; j < this.jobCount; j++) {
						int job = j;
						executor.registerJob(this.jobs.get(j), () -> {
							bodies.get(job).run();
							return null;
						});
					}
					executor.enablePreferredNodes(SWEEP_DELAY);
					executor.startBackgroundWork();
				}
				this.executors.add(executor);
			}
			if (routed()) {
				// two heartbeats: every node has seen every other one
				sleep(2 * TTL.toMillis() / 3 + SETTLE_MILLIS);
			}
			long started = System.nanoTime();
			try {
				if ("leader".equals(this.contender)) {
					awaitLeader();
				}
				if (APPLICATIONS) {
					tickScheduled(false);
				}
				else {
					tick(false);
				}
				List<Tick> measured = new ArrayList<>();
				for (int t = 0; t < this.ticks; t++) {
					measured.add(APPLICATIONS ? tickScheduled(true) : tick(true));
				}
				double minutes = (System.nanoTime() - started) / 60e9;
				long background = this.calls.stream().mapToLong((c) -> c.background.get()).sum();
				return summarize(measured, background / minutes / this.herd.size());
			}
			finally {
				if (APPLICATIONS) {
					this.applications.forEach(ConfigurableApplicationContext::close);
				}
				else {
					this.executors.forEach(ClusterSingletonExecutor::close);
				}
			}
		}

		/**
		 * Start a node as an application: ours with the node's counting backend as its
		 * lease backend bean, ShedLock with the node's counting lock provider.
		 */
		private void startApplication(int node, Calls nodeCalls, String leaderLease) {
			boolean shedlock = "shedlock".equals(this.contender);
			LeaseBackend backend = shedlock ? null : new Counting(this.herd.backend(node), nodeCalls);
			LockProvider lockProvider = shedlock
					? HerdApplications.counting(this.herd.lockProvider(node), nodeCalls.acquires, nodeCalls.releases)
					: null;
			ConfigurableApplicationContext application = HerdApplications.start(node, this.jobCount, TICK_PERIOD,
					this.contender, this.herd.owner(node), leaderLease, this.herd.threads, backend, lockProvider);
			this.applications.add(application);
			if (!shedlock) {
				this.executors.add(application.getBean(ClusterSingletonExecutor.class));
			}
		}

		/**
		 * Measure one fire time of the applications' cron triggers: the store's counters
		 * a second before it and after every job ran, every sweep looked and the run
		 * ledger's writes drained. The triggers fire at every period whether measured or
		 * not; a tick whose work reaches into the next fire time fails the run, since the
		 * counters would mix the two (a longer {@code herd.period} fits it).
		 */
		private Tick tickScheduled(boolean measured) throws Exception {
			int nodes = this.herd.size();
			long period = TICK_PERIOD.toSeconds();
			Instant earliest = Instant.now().plusMillis(1200);
			Instant fire = Instant.ofEpochSecond((earliest.getEpochSecond() / period + 1) * period);
			HerdRuns.Tick runs = HerdRuns.expect(fire, TICK_PERIOD, this.jobCount, nodes);
			try {
				sleepUntil(fire.minusMillis(1000));
				this.herd.poke();
				HerdCounters.Snapshot before = this.counters.read();
				long[] callsBefore = callTotals();
				long[] nodeBefore = this.calls.stream().mapToLong(Calls::total).toArray();
				long cpuBefore = processCpuNanos();
				long fireNanos = System.nanoTime() + Duration.between(Instant.now(), fire).toNanos();
				if (!runs.everyJobRan.await(period + 1, TimeUnit.SECONDS)) {
					throw new IllegalStateException(this.herd.store + " " + this.contender + " " + nodes + "x"
							+ this.jobCount + ": " + runs.everyJobRan.getCount() + " jobs did not run for " + fire);
				}
				// a sweep looks up to MAX_LOOKS times, a sweep delay apart
				sleepUntil(fire.plus(SWEEP_DELAY.multipliedBy(MAX_LOOKS + 2)));
				awaitLedger();
				sleep(SETTLE_MILLIS);
				this.herd.poke();
				HerdCounters.Snapshot after = this.counters.read();
				long[] callsAfter = callTotals();
				long cpuAfter = processCpuNanos();
				if (!Instant.now().isBefore(fire.plus(TICK_PERIOD))) {
					throw new IllegalStateException(this.herd.store + " " + this.contender + " " + nodes + "x"
							+ this.jobCount + ": the tick at " + fire + " was still at work at the next fire time;"
							+ " measure with a longer -Dherd.period");
				}
				if (!measured) {
					return null;
				}
				int[] extra = duplicatesAndMissed(runs.runs, fire);
				int duplicates = extra[0];
				int missed = extra[1];
				long[] perNode = new long[nodes];
				int busiest = 0;
				for (int i = 0; i < nodes; i++) {
					perNode[i] = this.calls.get(i).total() - nodeBefore[i];
					busiest = Math.max(busiest, runs.runsPerNode.get(i));
				}
				this.busiestNodeRuns.add((double) busiest);
				return new Tick(after.minus(before, this.pokeCost), callsAfter[0] - callsBefore[0],
						callsAfter[1] - callsBefore[1], callsAfter[2] - callsBefore[2], callsAfter[3] - callsBefore[3],
						perNode, this.jobCount - missed + duplicates, duplicates, missed,
						runs.delays.stream().sorted().toList(), (runs.lastRun.get() - fireNanos) / 1e6,
						(cpuAfter - cpuBefore) / 1e6);
			}
			finally {
				HerdRuns.forget(runs);
			}
		}

		private void awaitLeader() {
			long deadline = System.nanoTime() + TTL.toNanos();
			while (System.nanoTime() < deadline) {
				for (ClusterSingletonExecutor executor : this.executors) {
					if (executor.leadership().orElseThrow().isLeader()) {
						return;
					}
				}
				sleep(10);
			}
			throw new IllegalStateException("No leader was elected");
		}

		private Tick tick(boolean measured) throws Exception {
			int nodes = this.herd.size();
			sleep(SETTLE_MILLIS);
			this.herd.poke();
			HerdCounters.Snapshot before = this.counters.read();
			long[] callsBefore = callTotals();
			long[] nodeBefore = this.calls.stream().mapToLong(Calls::total).toArray();
			long cpuBefore = processCpuNanos();
			Instant earliest = Instant.now().plusMillis(1200);
			if ("shedlock".equals(this.contender)) {
				Instant expired = Instant.ofEpochMilli(this.lastLock.get()).plus(SHEDLOCK_AT_LEAST_FOR).plusMillis(500);
				earliest = expired.isAfter(earliest) ? expired : earliest;
			}
			long period = TICK_PERIOD.toSeconds();
			Instant fire = Instant.ofEpochSecond((earliest.getEpochSecond() / period + 1) * period);
			AtomicIntegerArray runs = new AtomicIntegerArray(this.jobCount);
			ConcurrentLinkedQueue<Long> delays = new ConcurrentLinkedQueue<>();
			ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
			CountDownLatch done = new CountDownLatch(nodes * this.jobCount);
			AtomicLong lastEnd = new AtomicLong();
			long fireNanos = System.nanoTime() + Duration.between(Instant.now(), fire).toNanos();
			for (int i = 0; i < nodes; i++) {
				int node = i;
				for (int j = 0; j < this.jobCount; j++) {
					int job = j;
					Runnable body = () -> {
						delays.add(Duration.between(fire, Instant.now()).toNanos());
						runs.incrementAndGet(job);
					};
					Runnable task = () -> {
						try {
							fire(node, job, fire, body);
						}
						catch (Throwable ex) {
							failures.add(ex);
						}
						finally {
							lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
							done.countDown();
						}
					};
					this.herd.scheduler(node).schedule(task, fireNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
			}
			if (!done.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The tick did not end within 10 minutes");
			}
			if (!failures.isEmpty()) {
				IllegalStateException failure = new IllegalStateException(
						failures.size() + " runs failed, the first with " + failures.peek());
				failure.initCause(failures.peek());
				throw failure;
			}
			awaitLedger();
			sleep(SETTLE_MILLIS);
			this.herd.poke();
			HerdCounters.Snapshot after = this.counters.read();
			long[] callsAfter = callTotals();
			long cpuAfter = processCpuNanos();
			if (!measured) {
				return null;
			}
			int[] extra = duplicatesAndMissed(runs, fire);
			int duplicates = extra[0];
			int missed = extra[1];
			long[] perNode = new long[nodes];
			for (int i = 0; i < nodes; i++) {
				perNode[i] = this.calls.get(i).total() - nodeBefore[i];
			}
			return new Tick(after.minus(before, this.pokeCost), callsAfter[0] - callsBefore[0],
					callsAfter[1] - callsBefore[1], callsAfter[2] - callsBefore[2], callsAfter[3] - callsBefore[3],
					perNode, runs.length() - missed + duplicates, duplicates, missed, delays.stream().sorted().toList(),
					(lastEnd.get() - fireNanos) / 1e6, (cpuAfter - cpuBefore) / 1e6);
		}

		/**
		 * Count a tick's extra and missing runs: ours must run each job exactly once (the
		 * run fails otherwise); ShedLock's may run one twice or not at all.
		 * @return the duplicate runs and the jobs that did not run
		 */
		private int[] duplicatesAndMissed(AtomicIntegerArray runs, Instant fire) {
			int duplicates = 0;
			int missed = 0;
			for (int j = 0; j < runs.length(); j++) {
				int count = runs.get(j);
				if (count != 1 && !"shedlock".equals(this.contender)) {
					throw new IllegalStateException(this.herd.store + " " + this.contender + " " + this.herd.size()
							+ "x" + this.jobCount + ": job " + j + " ran " + count + " times in the tick at " + fire);
				}
				duplicates += Math.max(0, count - 1);
				missed += (count == 0) ? 1 : 0;
			}
			return new int[] { duplicates, missed };
		}

		private void fire(int node, int job, Instant fire, Runnable body) throws Throwable {
			Calls nodeCalls = this.calls.get(node);
			if ("shedlock".equals(this.contender)) {
				nodeCalls.acquires.incrementAndGet();
				Optional<SimpleLock> lock = this.lockProviders.get(node)
					.lock(new LockConfiguration(Instant.now(), this.jobNames.get(job), LOCK_AT_MOST_FOR,
							SHEDLOCK_AT_LEAST_FOR));
				if (lock.isPresent()) {
					this.lastLock.accumulateAndGet(System.currentTimeMillis(), Math::max);
					try {
						body.run();
					}
					finally {
						nodeCalls.releases.incrementAndGet();
						lock.get().unlock();
					}
				}
				return;
			}
			// a cron trigger as the scheduler makes it: its slot the fire time, routed
			// for ours with the default settings
			if (routed()) {
				this.bodies.get(node).set(job, body);
			}
			Throwable[] failure = new Throwable[1];
			ScheduledFireTime.runAt(fire, () -> {
				try {
					ClusterSingletonExecutor executor = this.executors.get(node);
					ClusterSingletonExecutor.Invocation invocation = () -> {
						body.run();
						return null;
					};
					if (routed()) {
						executor.execute(this.jobs.get(job), true, invocation);
					}
					else {
						executor.execute(this.jobs.get(job), fire, RunTrigger.SCHEDULED, invocation);
					}
				}
				catch (Throwable ex) {
					failure[0] = ex;
				}
			});
			if (failure[0] != null) {
				throw failure[0];
			}
		}

		/**
		 * Whether this contender routes each job's trigger to its preferred node: ours,
		 * with the default settings; {@code unrouted} is ours with
		 * {@code cluster-singleton.preferred-node.enabled=false}.
		 */
		private boolean routed() {
			return "ours".equals(this.contender);
		}

		/** Sums over the nodes: acquires, releases, ledger writes, other calls. */
		private long[] callTotals() {
			long[] totals = new long[4];
			for (Calls c : this.calls) {
				totals[0] += c.acquires.get();
				totals[1] += c.releases.get();
				totals[2] += c.ledgerWrites.get();
				totals[3] += c.other.get();
			}
			return totals;
		}

		private void awaitLedger() {
			long last = -1;
			long stableSince = System.nanoTime();
			while (System.nanoTime() - stableSince < TimeUnit.MILLISECONDS.toNanos(500)) {
				long now = this.calls.stream().mapToLong((c) -> c.ledgerWrites.get()).sum();
				if (now != last) {
					last = now;
					stableSince = System.nanoTime();
				}
				sleep(50);
			}
		}

		private Map<String, String> summarize(List<Tick> ticks, double backgroundPerNodePerMinute) {
			int nodes = this.herd.size();
			Map<String, String> row = new LinkedHashMap<>();
			row.put("store", this.herd.store);
			row.put("contender", this.contender);
			row.put("nodes", Integer.toString(nodes));
			row.put("jobs", Integer.toString(this.jobCount));
			row.put("threads", Integer.toString(this.herd.threads));
			row.put("ticks", Integer.toString(ticks.size()));
			row.put("store_counter", this.counters.describe());
			List<Double> statements = ticks.stream().map((t) -> (double) t.store.statements()).toList();
			row.put("store_statements_per_tick", format(median(statements)));
			row.put("store_statements_min",
					format(statements.stream().mapToDouble(Double::doubleValue).min().orElse(0)));
			row.put("store_statements_max",
					format(statements.stream().mapToDouble(Double::doubleValue).max().orElse(0)));
			Tick middle = ticks.stream()
				.sorted((a, b) -> Long.compare(a.store.statements(), b.store.statements()))
				.toList()
				.get(ticks.size() / 2);
			row.put("store_detail", middle.store.detail());
			// what the statements cost the store, from the same tick as their detail
			middle.store.work().forEach((column, value) -> row.put(column, format(value)));
			row.put("evalsha_per_tick", format(median(ticks.stream().map((t) -> (double) t.store.evalsha()).toList())));
			row.put("store_cpu_ms_per_tick", format(median(ticks.stream().map((t) -> t.store.cpuMillis()).toList())));
			row.put("nodes_cpu_ms_per_tick", format(median(ticks.stream().map(Tick::nodesCpuMillis).toList())));
			List<Double> totals = ticks.stream().map((t) -> (double) Arrays.stream(t.perNode).sum()).toList();
			row.put("client_calls_per_tick", format(median(totals)));
			row.put("client_calls_per_node", format(median(totals) / nodes));
			row.put("client_calls_max_node", format(
					median(ticks.stream().map((t) -> (double) Arrays.stream(t.perNode).max().orElse(0)).toList())));
			row.put("acquires", format(median(ticks.stream().map((t) -> (double) t.acquires).toList())));
			row.put("releases", format(median(ticks.stream().map((t) -> (double) t.releases).toList())));
			row.put("ledger_writes", format(median(ticks.stream().map((t) -> (double) t.ledgerWrites).toList())));
			row.put("other_calls", format(median(ticks.stream().map((t) -> (double) t.other).toList())));
			row.put("background_calls_per_node_per_min", format(backgroundPerNodePerMinute));
			row.put("runs_per_tick", format(median(ticks.stream().map((t) -> (double) t.runs).toList())));
			row.put("duplicate_runs_per_tick",
					format(median(ticks.stream().map((t) -> (double) t.duplicates).toList())));
			row.put("missed_jobs_per_tick", format(median(ticks.stream().map((t) -> (double) t.missed).toList())));
			row.put("delay_p50_ms", format(median(ticks.stream().map((t) -> t.percentile(0.50)).toList())));
			row.put("delay_p99_ms", format(median(ticks.stream().map((t) -> t.percentile(0.99)).toList())));
			row.put("delay_max_ms", format(median(ticks.stream().map((t) -> t.percentile(1.0)).toList())));
			row.put("tick_ms", format(median(ticks.stream().map((t) -> t.millis).toList())));
			row.put("registration", APPLICATIONS ? "spring" : "direct");
			row.put("runs_max_node", this.busiestNodeRuns.isEmpty() ? "" : format(median(this.busiestNodeRuns)));
			return row;
		}

	}

	private record Tick(HerdCounters.Delta store, long acquires, long releases, long ledgerWrites, long other,
			long[] perNode, int runs, int duplicates, int missed, List<Long> delays, double millis,
			double nodesCpuMillis) {

		double percentile(double p) {
			if (this.delays.isEmpty()) {
				return 0;
			}
			int index = (int) Math.ceil(p * this.delays.size()) - 1;
			return this.delays.get(Math.max(0, Math.min(index, this.delays.size() - 1))) / 1e6;
		}

	}

	/**
	 * The calls one node made: to its lease backend (or lock provider), split by kind;
	 * renewals and the leader lease's acquisitions are background work, counted apart.
	 */
	private static final class Calls {

		private final String leaderLease;

		private final AtomicLong acquires = new AtomicLong();

		private final AtomicLong releases = new AtomicLong();

		private final AtomicLong ledgerWrites = new AtomicLong();

		private final AtomicLong other = new AtomicLong();

		private final AtomicLong background = new AtomicLong();

		Calls(String leaderLease) {
			this.leaderLease = leaderLease;
		}

		long total() {
			return this.acquires.get() + this.releases.get() + this.ledgerWrites.get() + this.other.get();
		}

	}

	/**
	 * A node's counting view of its backend and of its backend's run ledger.
	 */
	private static final class Counting extends ForwardingLeaseBackend {

		private final Calls calls;

		private final RunLedger ledger;

		Counting(LeaseBackend delegate, Calls calls) {
			super(delegate);
			this.calls = calls;
			RunLedger target = delegate.runLedger();
			this.ledger = new RunLedger() {

				@Override
				public void record(RunRecord run, int maxRuns) {
					try {
						target.record(run, maxRuns);
					}
					finally {
						calls.ledgerWrites.incrementAndGet();
					}
				}

				@Override
				public void recordAll(List<RunRecord> runs, int maxRuns) {
					// one call, however many runs it carries: the store counters show
					// what it cost
					try {
						target.recordAll(runs, maxRuns);
					}
					finally {
						calls.ledgerWrites.incrementAndGet();
					}
				}

				@Override
				public void recordAll(List<RunRecord> runs, int maxRuns, Predicate<RunRecord> firstRecord) {
					try {
						target.recordAll(runs, maxRuns, firstRecord);
					}
					finally {
						calls.ledgerWrites.incrementAndGet();
					}
				}

				@Override
				public void markLostBefore(String jobName, long fencingToken) {
					try {
						target.markLostBefore(jobName, fencingToken);
					}
					finally {
						calls.ledgerWrites.incrementAndGet();
					}
				}

				@Override
				public List<RunRecord> history(String jobName, int limit) {
					calls.other.incrementAndGet();
					return target.history(jobName, limit);
				}

				@Override
				public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
					calls.other.incrementAndGet();
					return target.lastSuccess(jobNames);
				}

			};
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			if (this.calls.leaderLease.equals(request.jobName())) {
				this.calls.background.incrementAndGet();
			}
			else {
				this.calls.acquires.incrementAndGet();
			}
			return super.tryAcquire(request);
		}

		/**
		 * Count the round trips of claims sent together: one per 64 claims on PostgreSQL
		 * (one statement of the claims' statements each), one pipeline on Redis.
		 */
		@Override
		public List<AcquireResult> tryAcquireAll(List<LeaseRequest> requests) {
			if (!acquiresTogether()) {
				// one after another, each counted as a call
				return requests.stream().map(this::tryAcquire).toList();
			}
			this.calls.acquires.addAndGet("redis".equals(id()) ? 1 : (requests.size() + 63) / 64);
			return super.tryAcquireAll(requests);
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			this.calls.background.incrementAndGet();
			return super.renew(leases, ttl);
		}

		/**
		 * Count a heartbeat as background work, and a sweep's read as a call of the tick.
		 */
		@Override
		public Optional<NodePresence> presence() {
			Calls calls = this.calls;
			return super.presence().map((presence) -> new NodePresence() {

				@Override
				public Set<String> heartbeat(String owner, Duration ttl) {
					calls.background.incrementAndGet();
					return presence.heartbeat(owner, ttl);
				}

				@Override
				public void leave(String owner) {
					calls.background.incrementAndGet();
					presence.leave(owner);
				}

				@Override
				public Set<String> claimedSince(Collection<String> jobNames, Instant slot) {
					calls.other.incrementAndGet();
					return presence.claimedSince(jobNames, slot);
				}

			});
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
			this.calls.releases.incrementAndGet();
			super.release(lease, lockAtLeastFor);
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
			this.calls.releases.incrementAndGet();
			super.release(lease, lockAtLeastFor, completion);
		}

		@Override
		public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
			this.calls.releases.incrementAndGet();
			return super.completeRun(lease, lockAtLeastFor, completion);
		}

		@Override
		public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
			this.calls.other.incrementAndGet();
			return super.startRun(lease, slot, attempt);
		}

		@Override
		public Set<String> findPending(Map<String, ClaimPolicy> policies) {
			this.calls.other.incrementAndGet();
			return super.findPending(policies);
		}

		@Override
		public RunLedger runLedger() {
			return this.ledger;
		}

		@Override
		public Optional<LeaseInfo> describe(String jobName) {
			this.calls.other.incrementAndGet();
			return super.describe(jobName);
		}

		@Override
		public boolean forceRelease(String jobName) {
			this.calls.other.incrementAndGet();
			return super.forceRelease(jobName);
		}

		@Override
		public void probe() {
			this.calls.other.incrementAndGet();
			super.probe();
		}

	}

	/**
	 * The nodes of one store: per node a connection pool or Redis connection factory and
	 * a scheduler, shared by the contenders measured one after the other.
	 */
	private static final class Herd implements AutoCloseable {

		private final String store;

		private final int threads;

		private final String run = UUID.randomUUID().toString().substring(0, 8);

		private final List<HikariDataSource> pools = new ArrayList<>();

		private final List<LettuceConnectionFactory> factories = new ArrayList<>();

		private final List<KubernetesClient> kubernetesClients = new ArrayList<>();

		private final List<KubernetesLeaseBackend> kubernetesBackends = new ArrayList<>();

		private final List<ScheduledThreadPoolExecutor> schedulers = new ArrayList<>();

		private Herd(String store, int nodes, int threads) {
			this.store = store;
			this.threads = threads;
			for (int i = 0; i < nodes; i++) {
				if (isKubernetes()) {
					this.kubernetesClients.add(KubernetesApi.get().server.createClient());
				}
				else if (isRedis()) {
					LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(
							HerdCounters.redisUri().getHost(), HerdCounters.redisUri().getPort()));
					factory.afterPropertiesSet();
					factory.start();
					this.factories.add(factory);
				}
				else {
					HikariConfig config = new HikariConfig();
					config.setJdbcUrl(HerdCounters.jdbcUrl(store, DATABASE));
					config.setMaximumPoolSize(POOL_SIZE);
					config.setMinimumIdle(POOL_SIZE);
					config.setPoolName("herd-node-" + i);
					this.pools.add(new HikariDataSource(config));
				}
				ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(threads, (task) -> {
					Thread thread = new Thread(task, "herd-scheduler-" + this.schedulers.size());
					thread.setDaemon(true);
					return thread;
				});
				this.schedulers.add(scheduler);
			}
			if (!isRedis() && !isKubernetes()) {
				createTables();
			}
		}

		static Herd open(String store, int nodes, int threads) {
			return new Herd(store, nodes, threads);
		}

		boolean isRedis() {
			return "redis".equals(this.store);
		}

		boolean isKubernetes() {
			return "kubernetes".equals(this.store);
		}

		int size() {
			return this.schedulers.size();
		}

		String owner(int node) {
			return "herd-" + this.run + "-node-" + node;
		}

		ScheduledThreadPoolExecutor scheduler(int node) {
			return this.schedulers.get(node);
		}

		LeaseBackend backend(int node) {
			if (isKubernetes()) {
				KubernetesLeaseBackend backend = new KubernetesLeaseBackend(this.kubernetesClients.get(node),
						KubernetesApi.NAMESPACE, TTL, Clock.systemUTC());
				backend.initialize();
				this.kubernetesBackends.add(backend);
				return backend;
			}
			if (isRedis()) {
				RedisLeaseBackend backend = new RedisLeaseBackend(
						new SpringDataRedisScriptExecutor(this.factories.get(node)), KEY_PREFIX);
				backend.initialize();
				return backend;
			}
			JdbcLeaseBackend backend = new JdbcLeaseBackend(this.pools.get(node), LEASE_TABLE, RUN_TABLE);
			// as the auto-configuration does
			backend.setRenewalTimeout(TTL.dividedBy(4));
			backend.initialize();
			return backend;
		}

		LockProvider lockProvider(int node) {
			if (isKubernetes()) {
				throw new IllegalArgumentException("ShedLock has no Kubernetes Lease provider");
			}
			if (isRedis()) {
				return new RedisLockProvider(this.factories.get(node), KEY_PREFIX);
			}
			return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
				.withJdbcTemplate(new JdbcTemplate(this.pools.get(node)))
				.withTableName(SHEDLOCK_TABLE)
				.usingDbTime()
				.build());
		}

		private void createTables() {
			HikariDataSource first = this.pools.get(0);
			String timestamp = "mariadb".equals(this.store) ? "DATETIME(3)" : "TIMESTAMP";
			try (Connection connection = first.getConnection(); Statement statement = connection.createStatement()) {
				// the library's schema, with tables of the herd's own
				String schema = new String(HerdBenchmark.class.getClassLoader()
					.getResourceAsStream("io/github/clustersingleton/jdbc/schema-" + this.store + ".sql")
					.readAllBytes(), StandardCharsets.UTF_8);
				StringBuilder sql = new StringBuilder();
				for (String line : schema.split("\n")) {
					if (!line.trim().startsWith("--")) {
						sql.append(line).append('\n');
					}
				}
				for (String ddl : sql.toString().split(";")) {
					if (!ddl.isBlank()) {
						statement.execute(ddl.replace("cluster_singleton_manual_run", "herd_manual_run")
							.replace("cluster_singleton_lease", LEASE_TABLE)
							.replace("cluster_singleton_run", RUN_TABLE));
					}
				}
				statement.execute("CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE
						+ " (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until " + timestamp + " NOT NULL, locked_at "
						+ timestamp + " NOT NULL, locked_by VARCHAR(255) NOT NULL)");
			}
			catch (SQLException | IOException ex) {
				throw new IllegalStateException("Failed to create the herd's tables", ex);
			}
		}

		/**
		 * Make every pooled connection's PostgreSQL backend flush its statistics. A
		 * backend flushes them when a transaction ends at least a second after its last
		 * flush, else up to ten seconds later, and only when that transaction left
		 * statistics of a relation pending: a bare {@code SELECT 1} counts as a
		 * transaction but does not flush, so the poke reads a row of the herd's lease
		 * table. One connection after the other, so that no flush waits for another's
		 * lock.
		 */
		void poke() {
			if (!"postgresql".equals(this.store)) {
				return;
			}
			for (HikariDataSource pool : this.pools) {
				List<Connection> borrowed = new ArrayList<>();
				try {
					for (int c = 0; c < POOL_SIZE; c++) {
						borrowed.add(pool.getConnection());
					}
					for (Connection connection : borrowed) {
						try (Statement statement = connection.createStatement()) {
							statement.execute("SELECT 1 FROM " + LEASE_TABLE + " LIMIT 1");
						}
					}
				}
				catch (SQLException ex) {
					throw new IllegalStateException("Poke failed", ex);
				}
				finally {
					for (Connection connection : borrowed) {
						try {
							connection.close();
						}
						catch (SQLException ex) {
							// returned to the pool anyway
						}
					}
				}
			}
		}

		/**
		 * Measure what one {@link #poke()} costs the store's counter, to subtract it.
		 * @param counters the store's counters
		 * @return the statements one poke adds
		 */
		long calibratePoke(HerdCounters counters) {
			if (!"postgresql".equals(this.store)) {
				return 0;
			}
			sleep(SETTLE_MILLIS);
			poke();
			List<Long> costs = new ArrayList<>();
			List<Map<String, Long>> work = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				sleep(SETTLE_MILLIS);
				HerdCounters.Snapshot before = counters.read();
				poke();
				HerdCounters.Delta cost = counters.read().minus(before, 0);
				costs.add(cost.statements());
				work.add(cost.work());
			}
			System.out.println(this.store + " " + size() + " nodes: one poke costs " + costs + " " + work);
			return costs.stream().sorted().toList().get(1);
		}

		@Override
		public void close() {
			this.schedulers.forEach(ScheduledThreadPoolExecutor::shutdownNow);
			this.pools.forEach(HikariDataSource::close);
			this.factories.forEach(LettuceConnectionFactory::destroy);
			this.kubernetesBackends.forEach(KubernetesLeaseBackend::close);
			this.kubernetesClients.forEach(KubernetesClient::close);
		}

	}

	/**
	 * The Kubernetes API server of the herd: fabric8's mock server in CRUD mode, in this
	 * JVM, counting the requests it answers by method.
	 */
	static final class KubernetesApi {

		static final String NAMESPACE = "herd";

		private static KubernetesApi instance;

		private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();

		/** Per kind of request, the time the mock server spent answering. */
		private final Map<String, AtomicLong> nanos = new ConcurrentHashMap<>();

		private final KubernetesMockServer server;

		private KubernetesApi() {
			java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
			this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
					new KubernetesCrudDispatcher() {

						@Override
						public MockResponse dispatch(RecordedRequest request) {
							String path = request.getPath();
							boolean list = "GET".equals(request.getMethod()) && path != null
									&& (path.contains("labelSelector") || path.split("\\?")[0].endsWith("/leases"));
							String kind = list ? "LIST" : request.getMethod();
							KubernetesApi.this.requests.computeIfAbsent(kind, (m) -> new AtomicLong())
								.incrementAndGet();
							long started = System.nanoTime();
							MockResponse response = super.dispatch(request);
							KubernetesApi.this.nanos.computeIfAbsent(kind, (m) -> new AtomicLong())
								.addAndGet(System.nanoTime() - started);
							// as a real API server does, to the second
							return response.setHeader("Date",
									DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)));
						}

					}, false);
			this.server.init();
		}

		static synchronized KubernetesApi get() {
			if (instance == null) {
				instance = new KubernetesApi();
			}
			return instance;
		}

		static synchronized void stop() {
			if (instance != null) {
				instance.server.destroy();
				instance = null;
			}
		}

		HerdCounters.Snapshot read() {
			Map<String, Long> values = new TreeMap<>();
			long total = 0;
			for (Map.Entry<String, AtomicLong> method : this.requests.entrySet()) {
				values.put(method.getKey(), method.getValue().get());
				total += method.getValue().get();
			}
			for (Map.Entry<String, AtomicLong> method : this.nanos.entrySet()) {
				values.put(method.getKey() + "_server_ms", method.getValue().get() / 1_000_000);
			}
			values.put("statements", total);
			return new HerdCounters.Snapshot(values, Map.of(), 0);
		}

	}

}
