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
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.RedisLeaseScript;
import io.github.clustersingleton.redis.RedisScriptExecutor;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Cost curves of the watchdog's renewal round against the number of held leases (1 to
 * 10,000) on each store, and the heap per registered job and per held lease
 * ({@link HeapCost}). One renewal round is what {@code LeaseWatchdog} does at every tick:
 * one {@link LeaseBackend#renew} call with every held lease (the backends split it into
 * statements or script calls of at most 1,000 leases). A plain runner, not JMH: every
 * point is renewed {@value #WARM_UP} times to warm up (the first point of a store
 * {@value #STORE_WARM_UP} times more), then timed {@value #ROUNDS} times (median, p90,
 * min, max). On PostgreSQL the runner vacuums its table every {@value #VACUUM_EVERY}
 * rounds (untimed), since autovacuum is off on the benchmark server; with
 * {@code -Dcost.vacuum=false} it does not, and the table bloats. Statements per round
 * come from the client (statements prepared, scripts called) and from the store's own
 * counters: PostgreSQL {@code pg_stat_database} of a database of this runner's own,
 * MariaDB the session's {@code Questions} on the pool's only connection, Redis
 * {@code INFO commandstats}. Writes {@code cost-curves.csv}, {@code cost-curves.md},
 * {@code heap.txt} and the SVG charts into the directory given as the first argument; the
 * other arguments pick the parts ({@code heap}, {@code postgresql}, {@code mariadb},
 * {@code h2}, {@code redis}; all by default).
 *
 * @author cluster-singleton contributors
 */
public final class CostCurves {

	private static final int[] SIZES = { 1, 10, 100, 1_000, 10_000 };

	private static final int STORE_WARM_UP = 200;

	private static final int WARM_UP = 10;

	private static final int ROUNDS = 31;

	private static final int COUNT_SAMPLES = 3;

	private static final int FORKS = 3;

	private static final int DRIFT_ROUNDS = 7;

	private static final int VACUUM_EVERY = 5;

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final String TABLE = "cost_curve_lease";

	private static final String RUN_TABLE = "cost_curve_run";

	private static final String POSTGRES_DATABASE = "cost_curves";

	private static final String REDIS_PREFIX = "cost-curves";

	private static final List<String> PARTS = List.of("heap", "postgresql", "mariadb", "h2", "redis");

	private static final Map<String, String> LABELS = Map.of("postgresql", "PostgreSQL", "mariadb", "MariaDB", "h2",
			"H2 (in memory)", "redis", "Redis");

	private CostCurves() {
	}

	public static void main(String[] args) throws Exception {
		// no validation query when the pool hands out its connection: the store counters
		// must see the renewal only
		System.setProperty("com.zaxxer.hikari.aliveBypassWindowMs", "3600000");
		if (args.length == 3 && "--fork".equals(args[0])) {
			String load = loadAverage().split(" ")[0];
			try (Target target = Target.open(args[1])) {
				List<String> lines = measure(target, load).stream().map(Point::serialize).toList();
				Files.write(Path.of(args[2]), lines, StandardCharsets.UTF_8);
			}
			return;
		}
		Path directory = Path.of((args.length > 0) ? args[0] : "docs/benchmarks");
		List<String> parts = (args.length > 1) ? Arrays.asList(args).subList(1, args.length) : PARTS;
		Files.createDirectories(directory);
		long started = System.nanoTime();
		List<String> load = new ArrayList<>();
		if (parts.contains("heap")) {
			load.add(Instant.now() + " before heap: " + loadAverage());
			String heap = HeapCost.measure();
			System.out.println(heap);
			Files.writeString(directory.resolve("heap.txt"), heap, StandardCharsets.UTF_8);
		}
		int forks = Integer.getInteger("cost.forks", FORKS);
		Map<String, List<List<Point>>> runs = new LinkedHashMap<>();
		for (int fork = 1; fork <= forks; fork++) {
			for (String store : parts) {
				if (!"heap".equals(store)) {
					load.add(Instant.now() + " before " + store + ", fork " + fork + ": " + loadAverage());
					System.out.println(load.get(load.size() - 1));
					runs.computeIfAbsent(store, (key) -> new ArrayList<>()).add(fork(store));
				}
			}
		}
		Map<String, List<Point>> curves = new LinkedHashMap<>();
		runs.forEach((store, forkPoints) -> {
			List<Point> merged = new ArrayList<>();
			for (int i = 0; i < SIZES.length; i++) {
				int index = i;
				merged.add(Point.merge(forkPoints.stream().map((points) -> points.get(index)).toList()));
			}
			curves.put(store, merged);
		});
		load.add(Instant.now() + " end: " + loadAverage());
		load.add("total seconds: " + (System.nanoTime() - started) / 1_000_000_000L);
		load.forEach(System.out::println);
		if (!curves.isEmpty()) {
			write(directory, curves, load);
		}
	}

	/**
	 * Measure one store in a JVM of its own, as JMH forks. A fork that fails (the shared
	 * server out of connections, say) is run again, up to three times.
	 */
	private static List<Point> fork(String store) throws IOException, InterruptedException {
		Path file = Files.createTempFile("cost-curves-", ".txt");
		try {
			List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"),
					"-Dcost.vacuum=" + vacuum(), "-cp", System.getProperty("java.class.path"),
					CostCurves.class.getName(), "--fork", store, file.toString());
			for (int attempt = 1; new ProcessBuilder(command).inheritIO().start().waitFor() != 0; attempt++) {
				if (attempt == 3) {
					throw new IllegalStateException("The fork measuring " + store + " failed " + attempt + " times");
				}
				System.out.println("The fork measuring " + store + " failed; again in 10 s");
				Thread.sleep(10_000);
			}
			return Files.readAllLines(file, StandardCharsets.UTF_8)
				.stream()
				.map((line) -> Point.parse(store, line))
				.toList();
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

	private static List<Point> measure(Target target, String load) throws Exception {
		List<Point> points = new ArrayList<>();
		List<HeldLease> held = new ArrayList<>();
		String prefix = "cost-" + UUID.randomUUID().toString().substring(0, 8) + "-";
		for (int size : SIZES) {
			fill(target, held, prefix, size);
			if (size == SIZES[0]) {
				// the first point also warms up the JIT and the pool
				for (int i = 0; i < STORE_WARM_UP; i++) {
					renew(target, held);
				}
			}
			target.maintain(-1);
			for (int i = 0; i < WARM_UP; i++) {
				renew(target, held);
			}
			long calls = target.clientCalls.get();
			long[] nanos = new long[ROUNDS];
			for (int i = 0; i < ROUNDS; i++) {
				target.maintain(i);
				long start = System.nanoTime();
				renew(target, held);
				nanos[i] = System.nanoTime() - start;
			}
			double clientCalls = (target.clientCalls.get() - calls) / (double) ROUNDS;
			double early = median(Arrays.copyOfRange(nanos, 0, DRIFT_ROUNDS));
			double late = median(Arrays.copyOfRange(nanos, ROUNDS - DRIFT_ROUNDS, ROUNDS));
			long[] round = { -1, -1 };
			long[] idle = { -1, -1 };
			if (target.counter != null) {
				List<long[]> rounds = new ArrayList<>();
				List<long[]> idles = new ArrayList<>();
				long[] previous = target.counter.read();
				for (int i = 0; i < COUNT_SAMPLES; i++) {
					renew(target, held);
					long[] current = target.counter.read();
					rounds.add(minus(current, previous));
					previous = current;
				}
				for (int i = 0; i < COUNT_SAMPLES; i++) {
					long[] current = target.counter.read();
					idles.add(minus(current, previous));
					previous = current;
				}
				round = median(rounds);
				idle = median(idles);
			}
			Arrays.sort(nanos);
			Point point = new Point(target.name, size, nanos, new double[] { median(nanos) }, early, late, clientCalls,
					round, idle, load);
			System.out.println(point.csv());
			points.add(point);
		}
		return points;
	}

	private static void fill(Target target, List<HeldLease> held, String prefix, int size) {
		while (held.size() < size) {
			LeaseRequest request = new LeaseRequest(prefix + held.size(), "cost-node", UUID.randomUUID().toString(),
					TTL, null);
			AcquireResult result = target.backend.tryAcquire(request);
			if (!result.isAcquired()) {
				throw new IllegalStateException("Not acquired: " + request.jobName());
			}
			held.add(HeldLease.of(request, result.fencingToken()));
			if (held.size() % 1000 == 0) {
				// keep the earlier leases alive while the next thousands are taken
				renew(target, held);
			}
		}
	}

	private static void renew(Target target, List<HeldLease> held) {
		Set<String> renewed = target.backend.renew(held, TTL);
		if (renewed.size() != held.size()) {
			throw new IllegalStateException("Renewed " + renewed.size() + " of " + held.size() + " leases");
		}
	}

	private static double median(long[] nanos) {
		long[] sorted = nanos.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2] / 1000.0;
	}

	private static long[] minus(long[] a, long[] b) {
		return new long[] { a[0] - b[0], a[1] - b[1] };
	}

	private static long[] median(List<long[]> samples) {
		long[] first = samples.stream().mapToLong((s) -> s[0]).sorted().toArray();
		long[] second = samples.stream().mapToLong((s) -> s[1]).sorted().toArray();
		return new long[] { first[first.length / 2], second[second.length / 2] };
	}

	private static boolean vacuum() {
		return Boolean.parseBoolean(System.getProperty("cost.vacuum", "true"));
	}

	private static void write(Path directory, Map<String, List<Point>> curves, List<String> load) throws IOException {
		boolean vacuum = vacuum();
		List<String> csv = new ArrayList<>();
		csv.add(Point.CSV_HEADER);
		StringBuilder report = new StringBuilder();
		int forks = curves.values().iterator().next().get(0).forkMedians().length;
		report.append("Renewal round (one `backend.renew(allHeld, ttl)`) against held leases. ")
			.append(forks)
			.append(" forks (JVMs) per store, the stores taking turns; in each fork ")
			.append(WARM_UP)
			.append(" warm-up rounds, then ")
			.append(ROUNDS)
			.append(" timed rounds per point. Median, p90, min and max are over the rounds of all forks pooled. ")
			.append("Store counters: per fork the median of ")
			.append(COUNT_SAMPLES)
			.append(" rounds, minus the median of ")
			.append(COUNT_SAMPLES)
			.append(" idle intervals (the counter reading itself, other clients). PostgreSQL: ")
			.append(vacuum ? "autovacuum is off on this server, so the runner vacuums its table (untimed) before "
					+ "every point and every " + VACUUM_EVERY + " timed rounds, as autovacuum would in production.\n\n"
					: "no VACUUM (-Dcost.vacuum=false): the table bloats by one row version per lease and round.\n\n")
			.append("| store | held leases | median µs | p90 µs | min µs | max µs | µs per lease | "
					+ "median µs of each fork | median µs of the first / last 7 rounds of a fork | client statements or script calls per round | "
					+ "store counter per round | rows updated / commands inside scripts per round | load (1 min) |\n")
			.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		SvgChart time = new SvgChart("Renewal round vs held leases", "held leases", "µs per renewal round (median)")
			.logX()
			.logY();
		SvgChart perLease = new SvgChart("Renewal cost per lease", "held leases", "µs per lease (median round / N)")
			.logX()
			.logY();
		SvgChart statements = new SvgChart("Store statements per renewal round", "held leases",
				"statements or calls per round")
			.logX()
			.logY();
		for (Map.Entry<String, List<Point>> curve : curves.entrySet()) {
			List<Point> points = curve.getValue();
			double[] x = points.stream().mapToDouble(Point::leases).toArray();
			String label = LABELS.getOrDefault(curve.getKey(), curve.getKey());
			time.series(label, x, points.stream().mapToDouble((p) -> p.percentile(50)).toArray());
			perLease.series(label, x, points.stream().mapToDouble((p) -> p.percentile(50) / p.leases()).toArray());
			if (points.get(0).storeRound()[0] >= 0) {
				statements.series(label + " (" + Point.counterName(curve.getKey()) + ")", x,
						points.stream().mapToDouble((p) -> Math.max(0.5, p.storeStatements())).toArray());
				if ("redis".equals(curve.getKey())) {
					statements.series("Redis (in renew.lua)", x,
							points.stream().mapToDouble((p) -> Math.max(0.5, p.storeRows())).toArray());
				}
			}
			else {
				statements.series(label.replace(" (in memory)", "") + " (client count)", x,
						points.stream().mapToDouble(Point::clientCalls).toArray());
			}
			for (Point point : points) {
				csv.add(point.csv());
				report.append(point.markdown());
			}
		}
		report.append("\nLoad average (1/5/15 min, runnable/threads, last pid) on 2 cores:\n\n");
		load.forEach((line) -> report.append("    ").append(line).append('\n'));
		Files.write(directory.resolve("cost-curves.csv"), csv, StandardCharsets.UTF_8);
		Files.writeString(directory.resolve("cost-curves.md"), report, StandardCharsets.UTF_8);
		time.write(directory.resolve("renewal-cost.svg"));
		perLease.write(directory.resolve("renewal-per-lease.svg"));
		statements.write(directory.resolve("renewal-statements.svg"));
		System.out.println(report);
	}

	static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).trim();
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	/**
	 * One point of a curve.
	 *
	 * @param store the store
	 * @param leases the held leases renewed per round
	 * @param nanos the round times, sorted
	 * @param forkMedians the median round time of each fork, µs
	 * @param earlyMedian the median of the first timed rounds, µs
	 * @param lateMedian the median of the last timed rounds, µs
	 * @param clientCalls statements prepared or scripts called per round, as the client
	 * counted them
	 * @param storeRound the store counter's increase per round: statements (PostgreSQL
	 * transactions, MariaDB questions, Redis commands) and rows updated (PostgreSQL
	 * {@code tup_updated}, MariaDB {@code Handler_update}) or, on Redis, the commands
	 * scripts ran; {@code -1} without a counter
	 * @param storeIdle the same over an interval without a renewal
	 * @param load the 1-minute load average before the store
	 */
	record Point(String store, int leases, long[] nanos, double[] forkMedians, double earlyMedian, double lateMedian,
			double clientCalls, long[] storeRound, long[] storeIdle, String load) {

		/**
		 * Merge the forks' points of one size: their rounds pooled, the median of their
		 * other figures.
		 * @param forks the points of the forks
		 * @return the merged point
		 */
		static Point merge(List<Point> forks) {
			long[] nanos = forks.stream().flatMapToLong((p) -> Arrays.stream(p.nanos)).sorted().toArray();
			double[] medians = forks.stream().mapToDouble((p) -> p.percentile(50)).toArray();
			Point first = forks.get(0);
			return new Point(first.store, first.leases, nanos, medians,
					middle(forks.stream().mapToDouble(Point::earlyMedian).toArray()),
					middle(forks.stream().mapToDouble(Point::lateMedian).toArray()),
					middle(forks.stream().mapToDouble(Point::clientCalls).toArray()),
					median(forks.stream().map(Point::storeRound).toList()),
					median(forks.stream().map(Point::storeIdle).toList()),
					String.join("/", forks.stream().map(Point::load).toList()));
		}

		private static double middle(double[] values) {
			double[] sorted = values.clone();
			Arrays.sort(sorted);
			return sorted[sorted.length / 2];
		}

		String serialize() {
			StringBuilder line = new StringBuilder();
			line.append(this.leases).append(';').append(this.earlyMedian).append(';').append(this.lateMedian);
			line.append(';').append(this.clientCalls).append(';').append(this.storeRound[0]).append(';');
			line.append(this.storeRound[1]).append(';').append(this.storeIdle[0]).append(';');
			line.append(this.storeIdle[1]).append(';').append(this.load).append(';');
			line.append(String.join(" ", Arrays.stream(this.nanos).mapToObj(Long::toString).toList()));
			return line.toString();
		}

		static Point parse(String store, String line) {
			String[] fields = line.split(";");
			long[] nanos = Arrays.stream(fields[9].split(" ")).mapToLong(Long::parseLong).toArray();
			return new Point(store, Integer.parseInt(fields[0]), nanos, new double[] { median(nanos) },
					Double.parseDouble(fields[1]), Double.parseDouble(fields[2]), Double.parseDouble(fields[3]),
					new long[] { Long.parseLong(fields[4]), Long.parseLong(fields[5]) },
					new long[] { Long.parseLong(fields[6]), Long.parseLong(fields[7]) }, fields[8]);
		}

		static final String CSV_HEADER = "store,held_leases,rounds,median_us,p90_us,min_us,max_us,per_lease_us,fork_medians_us,first7_median_us,last7_median_us,"
				+ "client_calls_per_round,store_counter,store_statements_per_round,store_rows_or_inner_per_round,"
				+ "store_idle_statements,store_idle_rows_or_inner,load_1min";

		static String counterName(String store) {
			return switch (store) {
				case "postgresql" -> "xacts";
				case "mariadb" -> "Questions";
				case "redis" -> "EVALSHA";
				default -> "none";
			};
		}

		double percentile(int percent) {
			int index = (int) Math.ceil(percent / 100.0 * this.nanos.length) - 1;
			return this.nanos[Math.max(0, Math.min(this.nanos.length - 1, index))] / 1000.0;
		}

		double storeStatements() {
			if (this.storeRound[0] < 0) {
				return Double.NaN;
			}
			return this.storeRound[0] - this.storeIdle[0];
		}

		double storeRows() {
			if (this.storeRound[0] < 0) {
				return Double.NaN;
			}
			return this.storeRound[1] - this.storeIdle[1];
		}

		String csv() {
			return String.format(Locale.ROOT, "%s,%d,%d,%.1f,%.1f,%.1f,%.1f,%.3f,%s,%.1f,%.1f,%.2f,%s,%s,%s,%s,%s,%s",
					this.store, this.leases, this.nanos.length, percentile(50), percentile(90), this.nanos[0] / 1000.0,
					this.nanos[this.nanos.length - 1] / 1000.0, percentile(50) / this.leases, forkMedians("/", "%.1f"),
					this.earlyMedian, this.lateMedian, this.clientCalls, counterName(this.store),
					number(storeStatements()), number(storeRows()),
					(this.storeRound[0] < 0) ? "" : Long.toString(this.storeIdle[0]),
					(this.storeRound[0] < 0) ? "" : Long.toString(this.storeIdle[1]), this.load);
		}

		String markdown() {
			return String.format(Locale.ROOT,
					"| %s | %,d | %,.0f | %,.0f | %,.0f | %,.0f | %.2f | %s | %,.0f / %,.0f | %.0f | %s | %s | %s |%n",
					this.store, this.leases, percentile(50), percentile(90), this.nanos[0] / 1000.0,
					this.nanos[this.nanos.length - 1] / 1000.0, percentile(50) / this.leases,
					forkMedians(" / ", "%,.0f"), this.earlyMedian, this.lateMedian, this.clientCalls,
					(this.storeRound[0] < 0) ? "–" : number(storeStatements()),
					(this.storeRound[0] < 0) ? "–" : number(storeRows()), this.load);
		}

		private String forkMedians(String separator, String format) {
			return String.join(separator,
					Arrays.stream(this.forkMedians).mapToObj((m) -> String.format(Locale.ROOT, format, m)).toList());
		}

		private static String number(double value) {
			return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.0f", value);
		}

	}

	/**
	 * Reads a store's own counters: statements and rows (or commands inside scripts).
	 */
	@FunctionalInterface
	interface Counter {

		long[] read() throws Exception;

	}

	/**
	 * A store with a backend of this runner's own (own table, database or key prefix),
	 * the client's count of statements or script calls, and the store's counters.
	 */
	static final class Target implements AutoCloseable {

		final String name;

		final AtomicLong clientCalls = new AtomicLong();

		LeaseBackend backend;

		Counter counter;

		private final List<AutoCloseable> closeables = new ArrayList<>();

		private DataSource vacuum;

		private Target(String name) {
			this.name = name;
		}

		static Target open(String name) throws Exception {
			Target target = new Target(name);
			try {
				switch (name) {
					case "postgresql" -> target.openPostgres();
					case "mariadb" -> target.openJdbc(env("CLUSTER_SINGLETON_TEST_MARIADB_URL",
							"jdbc:mariadb://127.0.0.1:3306/test?user=root&password="));
					case "h2" -> target.openJdbc("jdbc:h2:mem:cost_curves;DB_CLOSE_DELAY=-1");
					case "redis" -> target.openRedis();
					default -> throw new IllegalArgumentException("Unknown store '" + name + "'");
				}
			}
			catch (Exception ex) {
				target.close();
				throw ex;
			}
			return target;
		}

		private void openPostgres() throws Exception {
			String adminUrl = env("CLUSTER_SINGLETON_TEST_POSTGRES_URL",
					"jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
			// a database of our own: pg_stat_database then counts this runner's
			// statements only
			Connection admin = DriverManager.getConnection(adminUrl);
			this.closeables.add(admin);
			try (Statement statement = admin.createStatement()) {
				statement.execute("DROP DATABASE IF EXISTS " + POSTGRES_DATABASE);
				statement.execute("CREATE DATABASE " + POSTGRES_DATABASE);
			}
			this.closeables.add(() -> {
				try (Statement statement = admin.createStatement()) {
					statement.execute("DROP DATABASE IF EXISTS " + POSTGRES_DATABASE + " WITH (FORCE)");
				}
			});
			openJdbc(adminUrl.replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + POSTGRES_DATABASE));
			this.counter = () -> settled(() -> {
				try (Statement statement = admin.createStatement();
						ResultSet result = statement
							.executeQuery("SELECT xact_commit + xact_rollback, tup_updated FROM pg_stat_database "
									+ "WHERE datname = '" + POSTGRES_DATABASE + "'")) {
					result.next();
					return new long[] { result.getLong(1), result.getLong(2) };
				}
			});
		}

		/**
		 * Read a counter that the store updates late (PostgreSQL flushes a backend's
		 * statistics at most once a second): until two readings a second apart agree.
		 */
		/**
		 * Before a round: on PostgreSQL, vacuum the lease table every few rounds, through
		 * a connection the client count does not see.
		 * @param round the round, {@code -1} before the warm-up of a point
		 * @throws SQLException on a database error
		 */
		void maintain(int round) throws SQLException {
			if (this.vacuum != null && (round == -1 || round % VACUUM_EVERY == VACUUM_EVERY - 1)) {
				try (Connection connection = this.vacuum.getConnection();
						Statement statement = connection.createStatement()) {
					// statistics once per point (before its warm-up): a new ANALYZE would
					// make the server plan the prepared renewal again
					statement.execute(((round == -1) ? "VACUUM (ANALYZE) " : "VACUUM ") + TABLE);
				}
			}
		}

		private static long[] settled(Counter counter) throws Exception {
			long[] previous = counter.read();
			for (int i = 0; i < 15; i++) {
				Thread.sleep(1100);
				long[] current = counter.read();
				if (Arrays.equals(current, previous)) {
					return current;
				}
				previous = current;
			}
			return previous;
		}

		private void openJdbc(String url) throws SQLException {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(url);
			// one connection: the renewal and the session counters share it
			config.setMaximumPoolSize(1);
			config.setMinimumIdle(1);
			config.setPoolName("cost-curves");
			HikariDataSource pool = new HikariDataSource(config);
			this.closeables.add(pool);
			String platform = this.name;
			try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("DROP TABLE IF EXISTS " + TABLE);
				statement.execute("DROP TABLE IF EXISTS " + RUN_TABLE);
				for (String sql : read("io/github/clustersingleton/jdbc/schema-" + platform + ".sql").split(";")) {
					if (!sql.isBlank()) {
						statement.execute(sql.replace("cluster_singleton_lease", TABLE)
							.replace("cluster_singleton_run", RUN_TABLE));
					}
				}
			}
			if (!"postgresql".equals(platform)) {
				this.closeables.add(() -> {
					try (Connection connection = pool.getConnection();
							Statement statement = connection.createStatement()) {
						statement.execute("DROP TABLE IF EXISTS " + TABLE);
						statement.execute("DROP TABLE IF EXISTS " + RUN_TABLE);
					}
				});
			}
			if ("postgresql".equals(platform) && vacuum()) {
				this.vacuum = pool;
			}
			JdbcLeaseBackend jdbc = new JdbcLeaseBackend(counting(pool), TABLE, RUN_TABLE);
			// as the auto-configuration does
			jdbc.setRenewalTimeout(TTL.dividedBy(4));
			jdbc.initialize();
			this.backend = jdbc;
			if ("mariadb".equals(platform)) {
				this.counter = () -> {
					try (Connection connection = pool.getConnection();
							Statement statement = connection.createStatement();
							ResultSet result = statement.executeQuery(
									"SHOW SESSION STATUS WHERE Variable_name IN ('Questions', 'Handler_update')")) {
						long[] values = new long[2];
						while (result.next()) {
							values["Questions".equalsIgnoreCase(result.getString(1)) ? 0 : 1] = result.getLong(2);
						}
						return values;
					}
				};
			}
		}

		private DataSource counting(DataSource pool) {
			return (DataSource) Proxy.newProxyInstance(CostCurves.class.getClassLoader(),
					new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
						Object result = invoke(pool, method, args);
						if (result instanceof Connection connection) {
							return Proxy.newProxyInstance(CostCurves.class.getClassLoader(),
									new Class<?>[] { Connection.class }, (p, m, a) -> {
										if (m.getName().startsWith("prepare")
												|| m.getName().equals("createStatement")) {
											this.clientCalls.incrementAndGet();
										}
										return invoke(connection, m, a);
									});
						}
						return result;
					});
		}

		private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		private void openRedis() {
			String url = Store.redisUrl();
			LettuceConnectionFactory factory = Store.redisConnectionFactory(url);
			this.closeables.add(factory::destroy);
			RedisClient client = RedisClient.create(url);
			this.closeables.add(client::shutdown);
			StatefulRedisConnection<String, String> connection = client.connect();
			this.closeables.add(connection);
			RedisCommands<String, String> redis = connection.sync();
			this.closeables.add(() -> deleteKeys(redis));
			RedisLeaseBackend redisBackend = new RedisLeaseBackend(
					new CountingScripts(new SpringDataRedisScriptExecutor(factory), this.clientCalls), REDIS_PREFIX);
			redisBackend.initialize();
			this.backend = redisBackend;
			this.counter = () -> {
				long total = 0;
				long evalsha = 0;
				for (String line : redis.info("commandstats").split("\r?\n")) {
					if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
						long calls = Long.parseLong(line.replaceFirst(".*:calls=(\\d+),.*", "$1"));
						total += calls;
						if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
							evalsha += calls;
						}
					}
				}
				return new long[] { evalsha, total - evalsha };
			};
		}

		/**
		 * Delete this runner's keys (its own prefix) and nothing else.
		 */
		private static void deleteKeys(RedisCommands<String, String> redis) {
			ScanArgs match = ScanArgs.Builder.matches("{" + REDIS_PREFIX + ":*").limit(1000);
			KeyScanCursor<String> cursor = redis.scan(match);
			while (true) {
				if (!cursor.getKeys().isEmpty()) {
					redis.unlink(cursor.getKeys().toArray(new String[0]));
				}
				if (cursor.isFinished()) {
					break;
				}
				cursor = redis.scan(ScanCursor.of(cursor.getCursor()), match);
			}
		}

		@Override
		public void close() {
			for (int i = this.closeables.size() - 1; i >= 0; i--) {
				try {
					this.closeables.get(i).close();
				}
				catch (Exception ex) {
					System.err.println("Clean-up of " + this.name + " failed: " + ex);
				}
			}
		}

	}

	/**
	 * Counts the script calls of a Redis backend.
	 */
	private static final class CountingScripts implements RedisScriptExecutor {

		private final RedisScriptExecutor delegate;

		private final AtomicLong calls;

		CountingScripts(RedisScriptExecutor delegate, AtomicLong calls) {
			this.delegate = delegate;
			this.calls = calls;
		}

		@Override
		public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
			this.calls.incrementAndGet();
			return this.delegate.execute(script, keys, args);
		}

		@Override
		public Replicated executeAndWait(RedisLeaseScript script, List<String> keys, List<String> args, int replicas,
				Duration timeout) {
			this.calls.incrementAndGet();
			return this.delegate.executeAndWait(script, keys, args, replicas, timeout);
		}

		@Override
		public void load(RedisLeaseScript script) {
			this.delegate.load(script);
		}

		@Override
		public void ping(String key) {
			this.delegate.ping(key);
		}

		@Override
		public Map<String, String> getConfig(String parameter) {
			return this.delegate.getConfig(parameter);
		}

	}

	private static String env(String variable, String fallback) {
		String value = System.getenv(variable);
		return (value != null && !value.isBlank()) ? value : fallback;
	}

	private static String read(String resource) {
		try (InputStream in = CostCurves.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException(resource + " not found");
			}
			StringBuilder sql = new StringBuilder();
			for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
				if (!line.trim().startsWith("--")) {
					sql.append(line).append('\n');
				}
			}
			return sql.toString();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
