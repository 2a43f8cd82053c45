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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server of the test's own, started with the machine's binaries
 * ({@code /usr/lib/postgresql/<version>/bin}, or {@code cluster.proof.pg-bin}) as the
 * {@code postgres} OS user ({@code initdb} and {@code postgres} refuse to run as root),
 * its data directory under a temporary directory that user owns. It can be a primary or a
 * streaming standby of another one ({@code pg_basebackup -R}), be killed with
 * {@code kill -9} (the postmaster and every backend), promoted, and rebuilt as the
 * standby of the new primary. The machine's own servers are never touched.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class PostgresServer {

	private static final Duration WAIT = Duration.ofSeconds(60);

	final String name;

	final String host;

	final int port;

	private final Path directory;

	private final Path data;

	private final Path log;

	private PostgresServer(String name, String host, int port, Path directory) {
		this.name = name;
		this.host = host;
		this.port = port;
		this.directory = directory;
		this.data = directory.resolve(name);
		this.log = directory.resolve(name + ".log");
	}

	/**
	 * A temporary directory owned by the {@code postgres} OS user, for the servers' data.
	 * @return the directory
	 */
	static Path temporaryDirectory() throws Exception {
		Path directory = Files.createTempDirectory("cluster-proof-pg-");
		run(List.of("chown", "postgres:postgres", directory.toString()));
		return directory;
	}

	/**
	 * Create a primary: {@code initdb} with trust authentication, ready to stream to
	 * standbys.
	 * @param name the name of its data directory
	 * @param host the address it listens on
	 * @param port its port
	 * @param directory the temporary directory
	 * @param settings more {@code postgresql.conf} lines
	 * @return the server, not started
	 */
	static PostgresServer primary(String name, String host, int port, Path directory, List<String> settings)
			throws Exception {
		PostgresServer server = new PostgresServer(name, host, port, directory);
		asPostgres(List.of(bin("initdb"), "-D", server.data.toString(), "-U", "postgres", "-A", "trust", "--no-sync",
				"-E", "UTF8", "--locale=C"));
		List<String> conf = new ArrayList<>(List.of("wal_level = replica", "max_wal_senders = 5", "hot_standby = on",
				"shared_buffers = 16MB", "max_connections = 60", "wal_keep_size = 64MB"));
		conf.addAll(settings);
		asPostgres(List.of("sh", "-c",
				"cat >> " + server.data.resolve("postgresql.conf") + " <<'EOF'\n" + String.join("\n", conf) + "\nEOF"));
		if (server.host.startsWith("127.")) {
			return server;
		}
		// a server on another address (the partition test's veth): let its clients in
		asPostgres(List.of("sh", "-c", "echo 'host all all 0.0.0.0/0 trust' >> " + server.data.resolve("pg_hba.conf")));
		return server;
	}

	/**
	 * The standby of a primary, not started: its data directory is replaced by a base
	 * backup of the primary that follows it ({@code pg_basebackup -R}).
	 * @param name the name of its data directory
	 * @param port its port
	 * @param directory the temporary directory
	 * @param primary the primary to follow
	 * @return the server
	 */
	static PostgresServer standby(String name, int port, Path directory, PostgresServer primary) throws Exception {
		PostgresServer server = new PostgresServer(name, primary.host, port, directory);
		server.followFresh(primary);
		return server;
	}

	/**
	 * Delete this server's data and take a new base backup of a primary, to follow it.
	 * @param primary the primary
	 */
	void followFresh(PostgresServer primary) throws Exception {
		ClusterProofTests.deleteRecursively(this.data);
		asPostgres(List.of(bin("pg_basebackup"), "-h", primary.host, "-p", String.valueOf(primary.port), "-U",
				"postgres", "-D", this.data.toString(), "-R", "-X", "stream", "-c", "fast", "--no-sync"));
	}

	void start() throws Exception {
		asPostgres(List.of(bin("pg_ctl"), "-D", this.data.toString(), "-l", this.log.toString(), "-w", "-t", "60", "-o",
				"-p " + this.port + " -c listen_addresses=" + listenAddresses() + " -c unix_socket_directories="
						+ this.directory,
				"start"));
	}

	/**
	 * {@code kill -9} of the postmaster and all its processes, and wait until they are
	 * gone.
	 * @return when the signal was sent
	 */
	Instant kill() throws Exception {
		long pid = Long.parseLong(Files.readAllLines(this.data.resolve("postmaster.pid")).get(0).trim());
		ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
		List<ProcessHandle> processes = new ArrayList<>(postmaster.descendants().toList());
		processes.add(0, postmaster);
		Instant at = Instant.now();
		processes.forEach(ProcessHandle::destroyForcibly);
		for (ProcessHandle process : processes) {
			process.onExit().get();
		}
		return at;
	}

	void promote() throws Exception {
		asPostgres(List.of(bin("pg_ctl"), "-D", this.data.toString(), "-w", "-t", "60", "promote"));
	}

	/**
	 * Stop it if it runs ({@code immediate}: its data is deleted next).
	 */
	void stop() {
		if (Files.exists(this.data.resolve("postmaster.pid"))) {
			try {
				asPostgres(List.of(bin("pg_ctl"), "-D", this.data.toString(), "-m", "immediate", "-w", "stop"));
			}
			catch (Exception ex) {
				ClusterProofTests.log("could not stop %s: %s", this.name, ex);
			}
		}
	}

	/**
	 * Its address, and the loopback address too when that is another one (the partition
	 * test's nodes outside the namespace connect there).
	 */
	private String listenAddresses() {
		return this.host.startsWith("127.") ? this.host : "'" + this.host + ",127.0.0.1'";
	}

	/**
	 * Fail with a clear message unless this JVM runs as root or the opt-out property
	 * {@code cluster.proof.skip-root-tests=true} is set, in which case the test is
	 * reported as skipped (aborted) with the same message.
	 * @param what what needs root
	 */
	static void requireRoot(String what) throws Exception {
		Process id = new ProcessBuilder("id", "-u").start();
		String uid = new String(id.getInputStream().readAllBytes()).trim();
		id.waitFor();
		if ("0".equals(uid)) {
			return;
		}
		String message = what + " needs root (it runs PostgreSQL servers as the postgres OS user through runuser, "
				+ "and creates network namespaces); this JVM runs as uid " + uid + ". Run the build as root (as "
				+ ".ci/run does), or opt out explicitly with -Dcluster.proof.skip-root-tests=true";
		if (Boolean.getBoolean("cluster.proof.skip-root-tests")) {
			org.junit.jupiter.api.Assumptions.abort(message);
		}
		throw new AssertionError(message);
	}

	String url(String database) {
		return "jdbc:postgresql://" + this.host + ":" + this.port + "/" + database;
	}

	/**
	 * Wait until a standby streams from this primary ({@code sync} if asked for).
	 * @param sync whether it must be a synchronous standby
	 */
	void awaitStandby(boolean sync) throws Exception {
		Instant deadline = Instant.now().plus(WAIT);
		String query = "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
				+ (sync ? " AND sync_state = 'sync'" : "");
		while (Instant.now().isBefore(deadline)) {
			try (Connection connection = ClusterProofTests.connect(url("postgres"), "harness");
					Statement statement = connection.createStatement();
					ResultSet result = statement.executeQuery(query)) {
				result.next();
				if (result.getInt(1) > 0) {
					return;
				}
			}
			catch (SQLException ex) {
				// starting
			}
			Thread.sleep(100);
		}
		throw new AssertionError("no standby streams from " + this.name + " within " + WAIT + "; see " + this.log);
	}

	/**
	 * Stop every server and delete the temporary directory.
	 * @param directory the temporary directory
	 * @param servers the servers
	 */
	static void destroy(Path directory, List<PostgresServer> servers) throws IOException {
		servers.forEach(PostgresServer::stop);
		ClusterProofTests.deleteRecursively(directory);
	}

	private static String bin(String name) {
		String directory = System.getProperty("cluster.proof.pg-bin", "/usr/lib/postgresql/15/bin");
		return Path.of(directory, name).toString();
	}

	private static void asPostgres(List<String> command) throws Exception {
		List<String> full = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
		full.addAll(command);
		run(full);
	}

	private static void run(List<String> command) throws Exception {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		if (process.waitFor() != 0) {
			throw new AssertionError(command + " failed (" + process.exitValue() + "):\n" + output);
		}
	}

}
