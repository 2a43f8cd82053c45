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

package io.github.clustersingleton.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.clustersingleton.test.TestStores;

/**
 * Redis servers of a test's own (the {@code redis-server} that
 * {@link TestStores#redisServerBinary()} resolves: the one on the PATH, else the one of
 * the {@code embedded-redis} artifact), on free loopback ports with temporary directories
 * and no persistence, which a test can kill ({@code SIGKILL}) and start again empty on
 * the same port. Every server started is killed on {@link #close()} and at JVM exit.
 *
 * @author cluster-singleton contributors
 */
public final class LocalRedisServers implements AutoCloseable {

	private final String binary;

	private final int[] ports;

	private final Process[] processes;

	private final Path directory;

	private final Thread shutdownHook = new Thread(this::killAll, "local-redis-servers");

	public LocalRedisServers(int count) throws IOException {
		this.binary = TestStores.redisServerBinary().toString();
		this.ports = new int[count];
		this.processes = new Process[count];
		this.directory = Files.createTempDirectory("cluster-singleton-quorum");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
		for (int i = 0; i < count; i++) {
			this.ports[i] = freePort();
			start(i);
		}
	}

	public int port(int member) {
		return this.ports[member];
	}

	int size() {
		return this.ports.length;
	}

	/**
	 * Start a member (again), empty.
	 * @param member the member
	 */
	synchronized void start(int member) throws IOException {
		Path dir = this.directory.resolve("member-" + member);
		Files.createDirectories(dir);
		this.processes[member] = new ProcessBuilder(this.binary, "--port", Integer.toString(this.ports[member]),
				"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--protected-mode",
				"no")
			.redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile())
			.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			try (Socket socket = new Socket("127.0.0.1", this.ports[member])) {
				return;
			}
			catch (IOException ex) {
				sleep(20);
			}
		}
		throw new IllegalStateException("redis-server on port " + this.ports[member] + " did not start");
	}

	/**
	 * Start again every member that was killed and not started since (a test that failed
	 * before its own restart), so that the next test finds every member up.
	 * @throws IOException when a server cannot be started
	 */
	synchronized void startKilled() throws IOException {
		for (int i = 0; i < this.ports.length; i++) {
			Process process = this.processes[i];
			if (process == null || !process.isAlive()) {
				start(i);
			}
		}
	}

	/**
	 * Kill a member with {@code SIGKILL}: what it held is gone.
	 * @param member the member
	 */
	synchronized void kill(int member) {
		Process process = this.processes[member];
		if (process != null) {
			process.destroyForcibly();
			try {
				process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.processes[member] = null;
		}
	}

	@Override
	public void close() {
		killAll();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// shutting down already
		}
		try (Stream<Path> paths = Files.walk(this.directory)) {
			List<Path> all = new ArrayList<>(paths.sorted(Comparator.reverseOrder()).toList());
			for (Path path : all) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException ex) {
			// a temporary directory left behind
		}
	}

	private void killAll() {
		for (int i = 0; i < this.ports.length; i++) {
			kill(i);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
