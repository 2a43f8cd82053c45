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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The store's own counters, read through a connection of their own (for PostgreSQL in
 * another database than the herd's, so that reading does not count).
 * <p>
 * Besides the statements, what they cost the store, so that wrapping statements together
 * cannot look cheaper than it is: on PostgreSQL the WAL bytes written and the transaction
 * ids consumed, both cluster-wide, and the rows inserted, updated or deleted in the
 * herd's database ({@code pg_stat_database}, attempts in rolled-back transactions
 * included); on MariaDB the row lock waits and the time spent in them
 * ({@code Innodb_row_lock_waits}, {@code Innodb_row_lock_time}) and the rows written,
 * updated or deleted ({@code Handler_write + Handler_update + Handler_delete}, attempts
 * included: MariaDB 10.11 has no {@code Innodb_rows_*}), all server-wide.
 *
 * @author cluster-singleton contributors
 */
final class HerdCounters implements AutoCloseable {

	/** The columns of {@link Delta#work()}, in the order of the CSV file. */
	static final List<String> WORK_COLUMNS = List.of("wal_bytes_per_tick", "xids_per_tick", "rows_touched_per_tick",
			"row_lock_waits_per_tick", "row_lock_time_ms_per_tick");

	private static final List<String> MARIADB_WORK = List.of("Innodb_row_lock_waits", "Innodb_row_lock_time",
			"Handler_write", "Handler_update", "Handler_delete");

	private static final List<String> MARIADB_DETAIL = List.of("Com_select", "Com_insert", "Com_update", "Com_delete",
			"Com_set_option", "Com_commit", "Com_rollback");

	private final String store;

	private Connection connection;

	private RedisClient redisClient;

	private StatefulRedisConnection<String, String> redisConnection;

	private RedisCommands<String, String> redis;

	private HerdCounters(String store) throws SQLException {
		this.store = store;
		if ("kubernetes".equals(store)) {
			HerdBenchmark.KubernetesApi.get();
		}
		else if ("redis".equals(store)) {
			this.redisClient = RedisClient.create(redisUri().toString());
			this.redisConnection = this.redisClient.connect();
			this.redis = this.redisConnection.sync();
		}
		else if ("postgresql".equals(store)) {
			this.connection = java.sql.DriverManager.getConnection(jdbcUrl(store, "postgres"));
			try (Statement statement = this.connection.createStatement();
					ResultSet result = statement
						.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + HerdBenchmark.DATABASE + "'")) {
				if (!result.next()) {
					statement.execute("CREATE DATABASE " + HerdBenchmark.DATABASE);
				}
			}
		}
		else {
			this.connection = java.sql.DriverManager.getConnection(jdbcUrl(store, ""));
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("CREATE DATABASE IF NOT EXISTS " + HerdBenchmark.DATABASE);
			}
		}
	}

	static HerdCounters open(String store) throws SQLException {
		return new HerdCounters(store);
	}

	static java.net.URI redisUri() {
		String url = System.getenv("CLUSTER_SINGLETON_TEST_REDIS_URL");
		return java.net.URI.create((url != null && !url.isBlank()) ? url : "redis://127.0.0.1:6379");
	}

	static String jdbcUrl(String store, String database) {
		return switch (store) {
			case "postgresql" -> "jdbc:postgresql://127.0.0.1:5432/" + database + "?user=postgres";
			case "mariadb" -> "jdbc:mariadb://127.0.0.1:3306/" + database + "?user=root&password=";
			default -> throw new IllegalArgumentException("Unknown store '" + store + "'");
		};
	}

	String describe() {
		return switch (this.store) {
			case "postgresql" -> "pg_stat_database xact_commit+xact_rollback";
			case "mariadb" -> "Questions";
			case "kubernetes" -> "API requests";
			default -> "INFO commandstats calls incl. commands inside scripts";
		};
	}

	Snapshot read() {
		try {
			return switch (this.store) {
				case "postgresql" -> readPostgreSql();
				case "mariadb" -> readMariaDb();
				case "kubernetes" -> HerdBenchmark.KubernetesApi.get().read();
				default -> readRedis();
			};
		}
		catch (SQLException | IOException ex) {
			throw new IllegalStateException("Could not read the counters of " + this.store, ex);
		}
	}

	private Snapshot readPostgreSql() throws SQLException, IOException {
		long transactions;
		Map<String, Long> work = new LinkedHashMap<>();
		Map<Long, Long> cpu = new HashMap<>();
		try (Statement statement = this.connection.createStatement()) {
			try (ResultSet result = statement.executeQuery(
					"SELECT xact_commit + xact_rollback, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database"
							+ " WHERE datname = '" + HerdBenchmark.DATABASE + "'")) {
				result.next();
				transactions = result.getLong(1);
				work.put("rows", result.getLong(2));
			}
			// The insert position, which does not wait for the WAL writer (a commit that
			// wrote nothing else is not flushed at once), before and after the counter's
			// own transaction id, whose commit record then falls outside every tick.
			work.put("wal", walPosition(statement));
			try (ResultSet result = statement.executeQuery("SELECT pg_current_xact_id()::text::bigint")) {
				result.next();
				work.put("xid", result.getLong(1));
			}
			work.put("wal_after_xid", walPosition(statement));
			try (ResultSet result = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = '"
					+ HerdBenchmark.DATABASE + "' OR backend_type <> 'client backend'")) {
				while (result.next()) {
					long pid = result.getLong(1);
					cpu.put(pid, cpuTicks(pid));
				}
			}
		}
		return new Snapshot(Map.of("statements", transactions), work, cpu, 0);
	}

	private static long walPosition(Statement statement) throws SQLException {
		try (ResultSet result = statement
			.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint")) {
			result.next();
			return result.getLong(1);
		}
	}

	private Snapshot readMariaDb() throws SQLException, IOException {
		Map<String, Long> values = new LinkedHashMap<>();
		Map<String, Long> work = new LinkedHashMap<>();
		try (Statement statement = this.connection.createStatement();
				ResultSet result = statement.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN "
						+ "('Questions', 'Com_show_status', 'Com_select', 'Com_insert', 'Com_update', "
						+ "'Com_delete', 'Com_set_option', 'Com_commit', 'Com_rollback', 'Innodb_row_lock_waits', "
						+ "'Innodb_row_lock_time', 'Handler_write', 'Handler_update', 'Handler_delete')")) {
			while (result.next()) {
				String name = result.getString(1);
				(MARIADB_WORK.contains(name) ? work : values).put(name, result.getLong(2));
			}
		}
		// the reads of this counter are statements too
		values.put("statements", values.get("Questions") - values.get("Com_show_status"));
		Map<Long, Long> cpu = new HashMap<>();
		for (long pid : pids("mariadbd")) {
			cpu.put(pid, cpuTicks(pid));
		}
		return new Snapshot(values, work, cpu, 0);
	}

	private Snapshot readRedis() {
		Map<String, Long> values = new LinkedHashMap<>();
		long total = 0;
		long evalsha = 0;
		for (String line : this.redis.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
				String command = line.substring("cmdstat_".length(), line.indexOf(':'));
				String calls = line.substring(line.indexOf("calls=") + 6);
				long count = Long.parseLong(calls.substring(0, calls.indexOf(',')));
				total += count;
				if ("evalsha".equals(command)) {
					evalsha = count;
				}
				values.put(command, count);
			}
		}
		values.put("statements", total);
		values.put("evalsha", evalsha);
		double cpuSeconds = 0;
		for (String line : this.redis.info("cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				cpuSeconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return new Snapshot(values, Map.of(), cpuSeconds * 1000);
	}

	private static List<Long> pids(String name) throws IOException {
		List<Long> pids = new ArrayList<>();
		try (var stream = Files.list(Path.of("/proc"))) {
			for (Path process : stream.toList()) {
				String file = process.getFileName().toString();
				if (file.chars().allMatch(Character::isDigit)) {
					try {
						String comm = Files.readString(process.resolve("comm")).trim();
						if (comm.equals(name)) {
							pids.add(Long.parseLong(file));
						}
					}
					catch (IOException ex) {
						// gone
					}
				}
			}
		}
		return pids;
	}

	/**
	 * A process's {@code utime + stime}, in clock ticks (10 ms), or -1 if unknown.
	 */
	private static long cpuTicks(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			// fields 14 and 15 of stat, counted from the state (field 3) here
			return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	@Override
	public void close() throws Exception {
		if (this.connection != null) {
			this.connection.close();
		}
		if (this.redisConnection != null) {
			this.redisConnection.close();
			this.redisClient.shutdown();
		}
		if ("kubernetes".equals(this.store)) {
			// its threads would keep the JVM running
			HerdBenchmark.KubernetesApi.stop();
		}
	}

	/**
	 * The counters at one moment: named values ({@code statements} among them), the
	 * readings behind {@link #WORK_COLUMNS}, CPU clock ticks per server process, or the
	 * server's CPU milliseconds.
	 */
	record Snapshot(Map<String, Long> values, Map<String, Long> work, Map<Long, Long> cpuTicks, double cpuMillis) {

		Snapshot(Map<String, Long> values, Map<Long, Long> cpuTicks, double cpuMillis) {
			this(values, Map.of(), cpuTicks, cpuMillis);
		}

		Delta minus(Snapshot before, long pokeCost) {
			double cpu = this.cpuMillis - before.cpuMillis;
			for (Map.Entry<Long, Long> process : this.cpuTicks.entrySet()) {
				Long earlier = before.cpuTicks.get(process.getKey());
				if (earlier != null && earlier >= 0 && process.getValue() >= 0) {
					cpu += (process.getValue() - earlier) * 10.0;
				}
			}
			StringBuilder detail = new StringBuilder();
			for (Map.Entry<String, Long> value : this.values.entrySet()) {
				String name = value.getKey();
				if (!name.equals("statements") && !name.equals("Questions") && !name.equals("Com_show_status")
						&& (MARIADB_DETAIL.contains(name) || !name.startsWith("Com_"))) {
					long delta = value.getValue() - before.values.getOrDefault(name, 0L);
					if (delta != 0) {
						detail.append((detail.length() > 0) ? " " : "").append(name).append('=').append(delta);
					}
				}
			}
			return new Delta(this.values.get("statements") - before.values.get("statements") - pokeCost,
					this.values.getOrDefault("evalsha", 0L) - before.values.getOrDefault("evalsha", 0L), cpu,
					detail.toString(), workSince(before));
		}

		private Map<String, Long> workSince(Snapshot before) {
			Map<String, Long> work = new LinkedHashMap<>();
			if (this.work.containsKey("xid")) {
				// the commit record of the earlier read's own xid is before the tick
				work.put("wal_bytes_per_tick", this.work.get("wal") - before.work.get("wal_after_xid"));
				// the later read's own xid is the one after the last the tick consumed
				work.put("xids_per_tick", this.work.get("xid") - before.work.get("xid") - 1);
				work.put("rows_touched_per_tick", workDelta(before, "rows"));
			}
			else if (this.work.containsKey("Innodb_row_lock_waits")) {
				work.put("rows_touched_per_tick", workDelta(before, "Handler_write")
						+ workDelta(before, "Handler_update") + workDelta(before, "Handler_delete"));
				work.put("row_lock_waits_per_tick", workDelta(before, "Innodb_row_lock_waits"));
				work.put("row_lock_time_ms_per_tick", workDelta(before, "Innodb_row_lock_time"));
			}
			return work;
		}

		private long workDelta(Snapshot before, String name) {
			return this.work.get(name) - before.work.get(name);
		}

	}

	/**
	 * What the store counted between two snapshots; {@code work} by column of
	 * {@link #WORK_COLUMNS}, without those the store has no counter for.
	 */
	record Delta(long statements, long evalsha, double cpuMillis, String detail, Map<String, Long> work) {

	}

}
