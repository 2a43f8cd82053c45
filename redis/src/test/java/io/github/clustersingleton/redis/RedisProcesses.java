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

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.test.TestStores;

import org.springframework.util.FileSystemUtils;

/**
 * Redis servers and Sentinels on loopback ports in a temporary directory, started from
 * the {@code redis-server} that {@link TestStores#redisServerBinary()} resolves (the one
 * on the PATH, else the one of the {@code embedded-redis} artifact; a Sentinel is that
 * binary with {@code --sentinel}) for a test, all killed by {@link #close()}: a master,
 * replicas, Sentinels, kill -9, SIGSTOP, restart as a replica. Commands go to the servers
 * over a socket ({@link #cli}, {@link #command}), so no {@code redis-cli} is needed.
 *
 * @author cluster-singleton contributors
 */
final class RedisProcesses implements AutoCloseable {

	static final String MASTER_NAME = "leases";

	private final Path directory;

	private final Map<Integer, Process> servers = new LinkedHashMap<>();

	private final List<Process> sentinels = new ArrayList<>();

	private final List<Integer> sentinelPorts = new ArrayList<>();

	private static int nextPort = 17000 + (int) (ProcessHandle.current().pid() % 2000) * 10;

	RedisProcesses() throws IOException {
		this.directory = Files.createTempDirectory("cluster-singleton-redis");
	}

	/**
	 * Start a server, a replica of {@code masterPort} unless that is 0.
	 */
	int startServer(int masterPort) throws IOException {
		int port = freePort();
		start(port, masterPort);
		return port;
	}

	void start(int port, int masterPort) throws IOException {
		Path dir = Files.createDirectories(this.directory.resolve("r" + port));
		List<String> command = new ArrayList<>(List.of(TestStores.redisServerBinary().toString(), "--port",
				Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(), "--save", "", "--appendonly",
				"no", "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"));
		if (masterPort != 0) {
			command.addAll(List.of("--replicaof", "127.0.0.1", Integer.toString(masterPort)));
		}
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile())
			.start();
		this.servers.put(port, process);
		waitForPing(port);
	}

	/**
	 * Start a Redis Cluster node (cluster-node-timeout 1000 ms), or restart one with its
	 * nodes.conf.
	 */
	int startClusterNode(int port) throws IOException {
		if (port == 0) {
			port = freePort();
			while (port + 10000 > 65535 || !isFree(port + 10000)) {
				port = freePort();
			}
		}
		Path dir = Files.createDirectories(this.directory.resolve("c" + port));
		Process process = new ProcessBuilder(TestStores.redisServerBinary().toString(), "--port",
				Integer.toString(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file",
				"nodes.conf", "--cluster-node-timeout", "1000", "--dir", dir.toString(), "--save", "", "--appendonly",
				"no", "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
			.start();
		this.servers.put(port, process);
		waitForPing(port);
		return port;
	}

	/**
	 * Start a Redis Cluster: {@code masters} masters that share the hash slots evenly,
	 * each with {@code replicasPerMaster} replicas, set up with {@code CLUSTER} commands
	 * (so without {@code redis-cli}, which the {@code embedded-redis} artifact lacks).
	 * Returns once every node reports {@code cluster_state:ok} and every master has its
	 * replicas in sync.
	 * @param masters the number of masters
	 * @param replicasPerMaster the number of replicas of each master
	 * @return the ports of the masters, in slot order ({@link #serverPorts()} lists them
	 * first, then the replicas: replica k of master i at index
	 * {@code masters * (1 + k) + i})
	 */
	List<Integer> startCluster(int masters, int replicasPerMaster) throws IOException, InterruptedException {
		List<Integer> masterPorts = new ArrayList<>();
		List<Integer> all = new ArrayList<>();
		for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
			all.add(startClusterNode(0));
		}
		masterPorts.addAll(all.subList(0, masters));
		for (int i = 0; i < masters; i++) {
			int port = masterPorts.get(i);
			expectOk(port, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
			List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
			for (int slot = i * 16384 / masters; slot < (i + 1) * 16384 / masters; slot++) {
				addSlots.add(Integer.toString(slot));
			}
			expectOk(port, addSlots.toArray(String[]::new));
		}
		for (int port : all.subList(1, all.size())) {
			expectOk(all.get(0), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(port));
		}
		awaitCluster(all, "cluster_known_nodes:" + all.size());
		for (int i = masters; i < all.size(); i++) {
			String masterId = command(masterPorts.get((i - masters) % masters), "CLUSTER", "MYID");
			expectOk(all.get(i), "CLUSTER", "REPLICATE", masterId);
		}
		awaitCluster(all, "cluster_state:ok");
		if (replicasPerMaster > 0) {
			for (int port : masterPorts) {
				waitForReplicas(port, replicasPerMaster, Duration.ofSeconds(30));
			}
		}
		return masterPorts;
	}

	private static void expectOk(int port, String... args) throws IOException {
		String reply = command(port, args);
		if (!"OK".equals(reply)) {
			throw new IllegalStateException(args[0] + " " + args[1] + " on port " + port + " answered " + reply);
		}
	}

	private static void awaitCluster(List<Integer> ports, String info) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		for (int port : ports) {
			while (!command(port, "CLUSTER", "INFO").contains(info)) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Cluster node " + port + " does not report " + info);
				}
				Thread.sleep(50);
			}
		}
	}

	/** Send one command as a RESP array of bulk strings. */
	private static void send(Socket socket, String... args) throws IOException {
		StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
		for (String arg : args) {
			request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
			request.append(arg).append("\r\n");
		}
		OutputStream out = socket.getOutputStream();
		out.write(request.toString().getBytes(StandardCharsets.UTF_8));
		out.flush();
	}

	/**
	 * Send one command to a server over a socket and return its reply as text (the
	 * message of an error reply, the text of a simple, integer or bulk reply; arrays are
	 * not supported). Unlike {@link #cli}, needs no {@code redis-cli}.
	 * @param port the server's port
	 * @param args the command and its arguments
	 * @return the reply
	 */
	static String command(int port, String... args) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
			socket.setSoTimeout(10000);
			send(socket, args);
			DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
			String line = readLine(in);
			switch (line.charAt(0)) {
				case '+', '-', ':':
					return line.substring(1);
				case '$':
					int length = Integer.parseInt(line.substring(1));
					if (length < 0) {
						return "";
					}
					byte[] bulk = new byte[length + 2];
					in.readFully(bulk);
					return new String(bulk, 0, length, StandardCharsets.UTF_8);
				default:
					throw new IOException("Unsupported reply " + line);
			}
		}
	}

	private static String readLine(DataInputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != '\n') {
			if (c < 0) {
				throw new IOException("Connection closed");
			}
			if (c != '\r') {
				line.append((char) c);
			}
		}
		return line.toString();
	}

	/**
	 * The port of the master that serves a slot as node {@code askPort} sees it, or -1.
	 */
	static int clusterMaster(int askPort, int slot) throws IOException, InterruptedException {
		for (String line : cli(askPort, "CLUSTER", "NODES").split("\\R")) {
			String[] fields = line.split(" ");
			if (fields.length < 9 || !fields[2].contains("master") || fields[2].contains("fail")) {
				continue;
			}
			for (int f = 8; f < fields.length; f++) {
				if (fields[f].startsWith("[")) {
					continue;
				}
				String[] range = fields[f].split("-");
				int from = Integer.parseInt(range[0]);
				int to = (range.length > 1) ? Integer.parseInt(range[1]) : from;
				if (slot >= from && slot <= to) {
					String address = fields[1].split("@")[0];
					return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
				}
			}
		}
		return -1;
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	int startSentinel(int masterPort, int quorum) throws IOException {
		int port = freePort();
		Path conf = this.directory.resolve("sentinel-" + port + ".conf");
		Files.writeString(conf,
				String.join("\n", "port " + port, "bind 127.0.0.1", "dir " + this.directory,
						"sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " " + quorum,
						"sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
						"sentinel failover-timeout " + MASTER_NAME + " 3000",
						"sentinel parallel-syncs " + MASTER_NAME + " 1", ""));
		Process process = new ProcessBuilder(TestStores.redisServerBinary().toString(), conf.toString(), "--sentinel")
			.redirectErrorStream(true)
			.redirectOutput(this.directory.resolve("sentinel-" + port + ".log").toFile())
			.start();
		this.sentinels.add(process);
		this.sentinelPorts.add(port);
		waitForPing(port);
		return port;
	}

	List<Integer> sentinelPorts() {
		return this.sentinelPorts;
	}

	/** Kill -9 a server. */
	void kill(int port) throws InterruptedException {
		Process process = this.servers.remove(port);
		if (process != null) {
			process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

	void signal(int port, String signal) throws IOException, InterruptedException {
		Process process = this.servers.get(port);
		new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
	}

	/**
	 * The master a majority of the Sentinels name, waiting (up to 30s) until a majority
	 * agrees.
	 */
	int sentinelMaster() throws IOException, InterruptedException {
		return sentinelMaster(false);
	}

	/**
	 * The master a majority (or all) of the Sentinels name, waiting (up to 30s) until
	 * they agree.
	 */
	int sentinelMaster(boolean all) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		Map<Integer, Integer> votes = new LinkedHashMap<>();
		while (System.nanoTime() < deadline) {
			votes.clear();
			for (int sentinel : this.sentinelPorts) {
				String reply = cli(sentinel, "SENTINEL", "get-master-addr-by-name", MASTER_NAME);
				String[] lines = reply.trim().split("\\s+");
				if (lines.length == 2) {
					votes.merge(Integer.parseInt(lines[1]), 1, Integer::sum);
				}
			}
			for (Map.Entry<Integer, Integer> vote : votes.entrySet()) {
				if (all ? vote.getValue() == this.sentinelPorts.size()
						: vote.getValue() * 2 > this.sentinelPorts.size()) {
					return vote.getKey();
				}
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("The Sentinels do not agree on a master: " + votes);
	}

	/** The ports of the servers running now. */
	List<Integer> serverPorts() {
		return new ArrayList<>(this.servers.keySet());
	}

	/**
	 * Send one command to a server or Sentinel over a socket and return its reply as
	 * {@code redis-cli} prints it when its output is not a terminal: a simple, error,
	 * integer or bulk reply as its text, an array as its elements (nested ones flattened)
	 * one per line, a null as {@code ""}. Also {@code ""} when nothing answers on the
	 * port within 5 s (down, or stopped with SIGSTOP), where {@link #command} throws.
	 * @param port the server's port
	 * @param args the command and its arguments
	 * @return the reply
	 */
	static String cli(int port, String... args) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
			socket.setSoTimeout(5000);
			send(socket, args);
			StringBuilder reply = new StringBuilder();
			readReply(new DataInputStream(new BufferedInputStream(socket.getInputStream())), reply);
			return reply.toString();
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static void readReply(DataInputStream in, StringBuilder reply) throws IOException {
		String line = readLine(in);
		if (line.isEmpty()) {
			throw new IOException("Empty reply line");
		}
		switch (line.charAt(0)) {
			case '+', '-', ':' -> reply.append(line, 1, line.length());
			case '$' -> {
				int length = Integer.parseInt(line.substring(1));
				if (length >= 0) {
					byte[] bulk = new byte[length + 2];
					in.readFully(bulk);
					reply.append(new String(bulk, 0, length, StandardCharsets.UTF_8));
				}
			}
			case '*' -> {
				int count = Integer.parseInt(line.substring(1));
				for (int i = 0; i < count; i++) {
					if (i > 0) {
						reply.append('\n');
					}
					readReply(in, reply);
				}
			}
			default -> throw new IOException("Unsupported reply " + line);
		}
	}

	static void waitForPing(int port) throws IOException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			try {
				if (cli(port, "PING").contains("PONG")) {
					return;
				}
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException(ex);
			}
		}
		throw new IOException("redis-server on port " + port + " did not answer within 20s");
	}

	/** Wait until {@code port} reports {@code connected_slaves} of at least n. */
	static void waitForReplicas(int port, int n, Duration timeout) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		// Connected is not enough: a replica that is still loading the master's snapshot
		// after a resync counts as connected but acknowledges nothing. Wait until a WAIT
		// for n replicas succeeds, which is what min-replicas needs.
		while (System.nanoTime() < deadline) {
			String acknowledged = command(port, "WAIT", Integer.toString(n), "200").trim();
			if (acknowledged.matches("\\d+") && Integer.parseInt(acknowledged) >= n) {
				return;
			}
			Thread.sleep(50);
		}
		throw new IllegalStateException("redis-server on port " + port + " has fewer than " + n + " replicas");
	}

	private static synchronized int freePort() {
		while (true) {
			int port = nextPort++;
			try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
				return port;
			}
			catch (IOException ex) {
				// taken, try the next
			}
		}
	}

	@Override
	public void close() {
		List<Process> processes = new ArrayList<>(this.sentinels);
		processes.addAll(this.servers.values());
		processes.forEach(Process::destroyForcibly);
		processes.forEach((process) -> {
			try {
				process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		this.servers.clear();
		try {
			// the servers' and sentinels' configuration files and logs
			FileSystemUtils.deleteRecursively(this.directory);
		}
		catch (IOException ex) {
			// a temporary directory left behind
		}
	}

}
