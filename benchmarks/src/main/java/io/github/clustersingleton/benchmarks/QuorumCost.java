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

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.RedisLeaseScript;
import io.github.clustersingleton.redis.RedisQuorumLeaseBackend;
import io.github.clustersingleton.redis.RedisScriptExecutor;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures what a Redis quorum costs per acquisition against a single Redis: latency of
 * an uncontended acquisition and of its release (median, 99th percentile), and the Redis
 * calls each makes, in a timed loop. Run with
 * {@code java -cp ... QuorumCost output.txt redis://single redis://member1 redis://member2 redis://member3}.
 *
 * @author cluster-singleton contributors
 */
public final class QuorumCost {

	private static final int WARMUP = 2000;

	private static final int SAMPLES = 5000;

	private static final Duration TTL = Duration.ofSeconds(30);

	private QuorumCost() {
	}

	public static void main(String[] args) throws Exception {
		Path output = Path.of(args[0]);
		List<LettuceConnectionFactory> factories = new ArrayList<>();
		try {
			Counting single = new Counting(executor(args[1], factories));
			List<Counting> members = new ArrayList<>();
			for (String url : Arrays.asList(args).subList(2, args.length)) {
				members.add(new Counting(executor(url, factories)));
			}
			StringBuilder report = new StringBuilder();
			report.append(String.format(Locale.ROOT,
					"Uncontended acquisition then release, %d samples after %d "
							+ "warm-up, lease TTL %ds, Lettuce, every server on loopback (%s).%n%n",
					SAMPLES, WARMUP, TTL.toSeconds(), System.getProperty("os.arch")));
			report
				.append("| store | acquire p50 µs | acquire p99 µs | release p50 µs | release p99 µs | Redis calls per "
						+ "acquisition | sequential round trips per acquisition |\n|---|---|---|---|---|---|---|\n");
			measure(report, "single Redis", new RedisLeaseBackend(single), List.of(single), "1");
			try (RedisQuorumLeaseBackend quorum = new RedisQuorumLeaseBackend(new ArrayList<>(members),
					RedisLeaseBackend.DEFAULT_KEY_PREFIX)) {
				measure(report, "quorum of " + members.size(), quorum, members, "2 (grant, commit)");
			}
			System.out.print(report);
			Files.createDirectories(output.toAbsolutePath().getParent());
			Files.writeString(output, report);
		}
		finally {
			factories.forEach(LettuceConnectionFactory::destroy);
		}
	}

	private static void measure(StringBuilder report, String name, LeaseBackend backend, List<Counting> counters,
			String roundTrips) {
		String job = "quorum-cost-" + UUID.randomUUID();
		for (int i = 0; i < WARMUP; i++) {
			cycle(backend, job);
		}
		counters.forEach((counter) -> {
			counter.calls.set(0);
			counter.acquireCalls.set(0);
		});
		long[] acquire = new long[SAMPLES];
		long[] release = new long[SAMPLES];
		for (int i = 0; i < SAMPLES; i++) {
			cycle(backend, job);
			acquire[i] = lastAcquire;
			release[i] = lastRelease;
		}
		long acquireCalls = counters.stream().mapToLong((counter) -> counter.acquireCalls.get()).sum();
		Arrays.sort(acquire);
		Arrays.sort(release);
		report.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %.1f | %s |%n", name,
				acquire[SAMPLES / 2] / 1000, acquire[SAMPLES * 99 / 100] / 1000, release[SAMPLES / 2] / 1000,
				release[SAMPLES * 99 / 100] / 1000, acquireCalls / (double) SAMPLES, roundTrips));
	}

	private static long lastAcquire;

	private static long lastRelease;

	private static void cycle(LeaseBackend backend, String job) {
		LeaseRequest request = new LeaseRequest(job, "bench", UUID.randomUUID().toString(), TTL, null);
		long started = System.nanoTime();
		AcquireResult result = backend.tryAcquire(request);
		long acquired = System.nanoTime();
		if (!result.isAcquired()) {
			throw new IllegalStateException("not acquired: " + result);
		}
		backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
		lastAcquire = acquired - started;
		lastRelease = System.nanoTime() - acquired;
	}

	private static RedisScriptExecutor executor(String url, List<LettuceConnectionFactory> factories) {
		URI uri = URI.create(url);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
		factory.afterPropertiesSet();
		factory.start();
		factories.add(factory);
		return new SpringDataRedisScriptExecutor(factory);
	}

	/**
	 * Counts the script calls that acquire (the acquire script, or a quorum phase).
	 */
	private static final class Counting implements RedisScriptExecutor {

		private final RedisScriptExecutor delegate;

		private final AtomicLong calls = new AtomicLong();

		private final AtomicLong acquireCalls = new AtomicLong();

		Counting(RedisScriptExecutor delegate) {
			this.delegate = delegate;
		}

		@Override
		public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
			this.calls.incrementAndGet();
			if (script == RedisLeaseScript.ACQUIRE || script == RedisLeaseScript.QUORUM_GRANT
					|| script == RedisLeaseScript.QUORUM_COMMIT) {
				this.acquireCalls.incrementAndGet();
			}
			return this.delegate.execute(script, keys, args);
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

}
