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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;

/**
 * Crash takeover latency, a timed harness rather than JMH. Node A acquires a job's lease
 * with a TTL, renews it once after a third of the TTL (as the watchdog does) and then
 * stops renewing: a simulated crash right after a renewal, the worst case. Node B polls
 * {@code tryAcquire} every 100 ms from that moment; the sample is the time from the crash
 * until B holds the lease. Stores run in parallel, samples of one store in turn.
 * <p>
 * Then the same through the engine with preferred-node routing on
 * ({@link RoutedTakeover}), at TTL 5 s: the next slot's start delay after an idle
 * preferred node crashed, and the time from a crash during a run until another node runs
 * the job.
 * <p>
 * Arguments: the output JSON file (default {@code docs/benchmarks/takeover.json}), then
 * the number of samples at TTL 5 s (default 3), at TTL 30 s (default 1) and of each
 * routed case (default 3).
 *
 * @author cluster-singleton
 */
public final class TakeoverLatency {

	private static final long POLL_MILLIS = 100;

	private TakeoverLatency() {
	}

	public static void main(String[] args) throws Exception {
		Path output = Path.of((args.length > 0) ? args[0] : "docs/benchmarks/takeover.json");
		int shortSamples = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		int longSamples = (args.length > 2) ? Integer.parseInt(args[2]) : 1;
		int routedSamples = (args.length > 3) ? Integer.parseInt(args[3]) : 3;
		List<String> stores = List.of("postgresql", "redis");
		ExecutorService threads = Executors.newFixedThreadPool(stores.size());
		List<Future<String>> results = new ArrayList<>();
		for (String store : stores) {
			results.add(threads.submit(() -> run(store, shortSamples, longSamples, routedSamples)));
		}
		StringBuilder json = new StringBuilder("[\n");
		for (int i = 0; i < results.size(); i++) {
			json.append(results.get(i).get()).append((i < results.size() - 1) ? ",\n" : "\n");
		}
		json.append("]\n");
		threads.shutdown();
		Files.createDirectories(output.toAbsolutePath().getParent());
		Files.writeString(output, json.toString(), StandardCharsets.UTF_8);
		System.out.print(json);
	}

	private static String run(String storeName, int shortSamples, int longSamples, int routedSamples)
			throws IOException {
		try (Store store = Store.open(storeName)) {
			List<String> entries = new ArrayList<>();
			entries.add(entry(storeName, Duration.ofSeconds(5), samples(store, Duration.ofSeconds(5), shortSamples)));
			if (longSamples > 0) {
				entries
					.add(entry(storeName, Duration.ofSeconds(30), samples(store, Duration.ofSeconds(30), longSamples)));
			}
			if (routedSamples > 0) {
				entries.add(routed(store, Duration.ofSeconds(5), routedSamples));
			}
			return String.join(",\n", entries);
		}
	}

	private static List<Long> samples(Store store, Duration ttl, int count) {
		List<Long> millis = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			long sample = takeover(store.backend(), ttl);
			System.out.println(store.name() + " ttl=" + ttl.toSeconds() + "s takeover=" + sample + " ms");
			millis.add(sample);
		}
		return millis;
	}

	private static long takeover(LeaseBackend backend, Duration ttl) {
		String job = "bench-takeover-" + UUID.randomUUID().toString().substring(0, 8);
		LeaseRequest a = new LeaseRequest(job, "bench-node-a", UUID.randomUUID().toString(), ttl, null);
		AcquireResult held = backend.tryAcquire(a);
		if (!held.isAcquired()) {
			throw new IllegalStateException("Node A did not acquire " + job);
		}
		sleep(ttl.toMillis() / 3);
		Set<String> renewed = backend.renew(List.of(HeldLease.of(a, held.fencingToken())), ttl);
		if (renewed.size() != 1) {
			throw new IllegalStateException("Node A lost " + job + " before its crash");
		}
		// crash: no more renewals, no release
		long crashedAt = System.nanoTime();
		int attempts = 0;
		while (true) {
			attempts++;
			LeaseRequest b = new LeaseRequest(job, "bench-node-b", UUID.randomUUID().toString(), ttl, null);
			AcquireResult result = backend.tryAcquire(b);
			if (result.isAcquired()) {
				long took = (System.nanoTime() - crashedAt) / 1_000_000;
				if (result.fencingToken() <= held.fencingToken()) {
					throw new IllegalStateException("Fencing token did not grow: " + result.fencingToken());
				}
				backend.release(HeldLease.of(b, result.fencingToken()), Duration.ZERO);
				if (attempts < 2) {
					throw new IllegalStateException("Node B acquired " + job + " while A's lease was live");
				}
				return took;
			}
			sleep(POLL_MILLIS);
		}
	}

	private static String routed(Store store, Duration ttl, int count) {
		List<Long> idle = new ArrayList<>();
		List<Long> crashToRun = new ArrayList<>();
		List<Long> runDelay = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			idle.add(RoutedTakeover.idle(store, ttl));
			System.out.println(store.name() + " routed idle: next slot started " + idle.get(i) + " ms late");
			// the crashed node's presence entry expires before the next nodes start
			sleep(ttl.toMillis());
			long[] running = RoutedTakeover.running(store, ttl);
			crashToRun.add(running[0]);
			runDelay.add(running[1]);
			System.out.println(store.name() + " routed running: taken over " + running[0] + " ms after the crash,"
					+ " started " + running[1] + " ms after its fire time");
			sleep(ttl.toMillis());
		}
		return String.format(
				"  {\"store\": \"%s\", \"routed\": true, \"ttlMillis\": %d, \"periodMillis\": %d, "
						+ "\"sweepDelayMillis\": %d, \"idleNextSlotDelayMillis\": %s, "
						+ "\"runningCrashToRunMillis\": %s, \"runningRunDelayMillis\": %s, \"date\": \"%s\"}",
				store.name(), ttl.toMillis(), RoutedTakeover.PERIOD.toMillis(), RoutedTakeover.SWEEP_DELAY.toMillis(),
				idle, crashToRun, runDelay, Instant.now());
	}

	private static String entry(String store, Duration ttl, List<Long> samples) {
		long max = samples.stream().mapToLong(Long::longValue).max().orElse(0);
		double mean = samples.stream().mapToLong(Long::longValue).average().orElse(0);
		return String.format(
				"  {\"store\": \"%s\", \"ttlMillis\": %d, \"pollMillis\": %d, \"samplesMillis\": %s, "
						+ "\"meanMillis\": %.0f, \"maxMillis\": %d, \"date\": \"%s\"}",
				store, ttl.toMillis(), POLL_MILLIS, samples, mean, max, Instant.now());
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

}
