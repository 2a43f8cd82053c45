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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One JVM the cluster tests start: a Spring Boot application run from the test class path
 * with {@code java -cp}, its output in a log file of its own.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class Node {

	final String id;

	final long offsetMillis;

	final Process process;

	final Path log;

	/** What the application logs once it has started. */
	private final String startedLine;

	volatile boolean dead;

	volatile boolean stopped;

	private Node(String id, long offsetMillis, Process process, Path log, String startedLine) {
		this.id = id;
		this.offsetMillis = offsetMillis;
		this.process = process;
		this.log = log;
		this.startedLine = startedLine;
	}

	/**
	 * Start a JVM that runs a main class with the test class path.
	 * @param id the node's id
	 * @param offsetMillis the node's clock offset (only recorded here)
	 * @param mainClass the Spring Boot application
	 * @param arguments its arguments
	 * @param log where its output goes
	 * @return the node
	 * @throws IOException if it could not be started
	 */
	static Node start(String id, long offsetMillis, Class<?> mainClass, List<String> arguments, Path log)
			throws IOException {
		return start(List.of(), id, offsetMillis, mainClass, arguments, log);
	}

	/**
	 * Start a JVM that runs a main class with the test class path, through a command
	 * prefix (such as {@code ip netns exec <namespace>}).
	 * @param prefix the prefix
	 * @param id the node's id
	 * @param offsetMillis the node's clock offset (only recorded here)
	 * @param mainClass the Spring Boot application
	 * @param arguments its arguments
	 * @param log where its output goes
	 * @return the node
	 * @throws IOException if it could not be started
	 */
	static Node start(List<String> prefix, String id, long offsetMillis, Class<?> mainClass, List<String> arguments,
			Path log) throws IOException {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		List<String> command = new ArrayList<>(prefix);
		command.addAll(List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), mainClass.getName()));
		command.addAll(arguments);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new Node(id, offsetMillis, process, log, "Started " + mainClass.getSimpleName());
	}

	/**
	 * A normal shutdown of several nodes (each drains its ledger backlog), and wait until
	 * they are gone.
	 * @param nodes the nodes
	 */
	static void stopAll(List<Node> nodes) throws InterruptedException {
		for (Node node : nodes) {
			node.process.destroy();
		}
		for (Node node : nodes) {
			node.process.waitFor();
		}
	}

	/**
	 * {@code kill -9} of several nodes, and wait until they are gone.
	 * @param nodes the nodes
	 */
	static void killAll(List<Node> nodes) throws InterruptedException {
		for (Node node : nodes) {
			node.process.destroyForcibly();
			node.process.waitFor();
		}
	}

	void awaitStarted() throws Exception {
		Instant deadline = Instant.now().plusSeconds(90);
		while (Instant.now().isBefore(deadline)) {
			String text = Files.exists(this.log) ? Files.readString(this.log) : "";
			if (text.contains(this.startedLine)) {
				return;
			}
			if (!this.process.isAlive()) {
				throw new AssertionError("node " + this.id + " exited at startup:\n" + text);
			}
			Thread.sleep(100);
		}
		throw new AssertionError("node " + this.id + " did not start within 90 s; see " + this.log);
	}

	/**
	 * A crash: {@code kill -9}, and wait until the process is gone.
	 */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor();
		this.dead = true;
	}

	void signal(String signal) throws Exception {
		Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(this.process.pid())).start();
		assertThat(kill.waitFor()).as("kill -%s %s", signal, this.id).isZero();
	}

	void resume() throws Exception {
		if (this.stopped && this.process.isAlive()) {
			signal("CONT");
		}
		this.stopped = false;
	}

	/**
	 * The lines of the node's log that contain a text (ISO-8859-1 reads any byte: a torn
	 * line at a kill -9 must not abort a check).
	 */
	List<String> linesContaining(String text) throws IOException {
		if (!Files.exists(this.log)) {
			return List.of();
		}
		return Files.readAllLines(this.log, StandardCharsets.ISO_8859_1)
			.stream()
			.filter((line) -> line.contains(text))
			.toList();
	}

}
