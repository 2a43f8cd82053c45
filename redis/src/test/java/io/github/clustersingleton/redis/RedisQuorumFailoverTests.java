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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failover of a quorum member under load: three engines fire every-second cron jobs on a
 * quorum of three Redis servers (no persistence) while, one at a time and over and over,
 * a member is killed with {@code kill -9} and started again empty one lease TTL later;
 * the next member is killed only once every engine reaches the restarted one again and
 * each job was acquired since (a member that lost its data counts as failed until then).
 * Prints {@code failover redis-quorum: runs=N duplicates=N fence-repeats=N lost-slots=N
 * takeover-median-ms=N takeover-max-ms=N}, where takeover is the time from a kill to the
 * start of the next run of each job. The default build runs a short form (about 30
 * seconds); {@code -Dcluster-singleton.failover.seconds=N} runs longer, and
 * {@code -Dcluster-singleton.failover.report=path} writes the line to a file.
 *
 * @author cluster-singleton contributors
 */
@Tag("failover")
class RedisQuorumFailoverTests {

	private static final Duration TTL = Duration.ofSeconds(2);

	private static final int JOBS = 2;

	private static final int NODES = 3;

	@Test
	void killingOneMemberAtATimeLosesNoSlotAndRunsNoneTwice() throws Exception {
		int seconds = Integer.getInteger("cluster-singleton.failover.seconds", 30);
		List<AutoCloseable> resources = new ArrayList<>();
		LocalRedisServers servers = new LocalRedisServers(3);
		resources.add(servers);
		ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
		Map<String, Integer> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
		List<Long> kills = Collections.synchronizedList(new ArrayList<>());
		ExecutorService threads = Executors.newCachedThreadPool();
		List<ClusterSingletonExecutor> nodes = new ArrayList<>();
		List<RedisScriptExecutor> clients = new ArrayList<>();
		try {
			String run = "failover-" + System.nanoTime();
			List<JobDefinition> jobs = new ArrayList<>();
			for (int j = 0; j < JOBS; j++) {
				jobs.add(JobDefinition.of(run + "-" + j, Duration.ofMinutes(1), Duration.ZERO)
					.withSchedule(CronSlotSchedule.of("* * * * * *", ZoneOffset.UTC)));
			}
			for (int n = 0; n < NODES; n++) {
				List<RedisScriptExecutor> executors = new ArrayList<>();
				for (int m = 0; m < 3; m++) {
					executors.add(executor(servers.port(m), resources));
				}
				clients.addAll(executors);
				RedisQuorumLeaseBackend backend = new RedisQuorumLeaseBackend(executors,
						RedisLeaseBackend.DEFAULT_KEY_PREFIX);
				resources.add(backend);
				LeaseBackend chosen = Boolean.getBoolean("cluster-singleton.failover.single")
						? new RedisLeaseBackend(executors.get(0)) : backend;
				LeaseBackend used = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
						LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class },
						(proxy, method, args) -> {
							try {
								Object result = method.invoke(chosen, args);
								if (result instanceof io.github.clustersingleton.AcquireResult acquire) {
									outcomes.merge(acquire.outcome().tag(), 1, Integer::sum);
								}
								return result;
							}
							catch (java.lang.reflect.InvocationTargetException ex) {
								if (method.getName().equals("tryAcquire")) {
									outcomes.merge("error", 1, Integer::sum);
								}
								throw ex.getCause();
							}
						});
				ClusterSingletonExecutor node = new ClusterSingletonExecutor(used,
						new ClusterSingletonExecutor.Settings("node-" + n, TTL, Duration.ofSeconds(1), true),
						Clock.systemUTC(), new ClusterSingletonListener() {
						});
				nodes.add(node);
			}
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
			Future<?> killer = threads.submit(() -> {
				int victim = 0;
				while (System.nanoTime() - end < -TimeUnit.SECONDS.toNanos(4)) {
					Thread.sleep(1500);
					servers.kill(victim);
					kills.add(System.currentTimeMillis());
					// delayed restart: empty, one TTL later
					Thread.sleep(TTL.toMillis() + 200);
					servers.start(victim);
					// the next kill only once every engine reaches the restarted member
					// again
					// and each job was acquired since, writing its fence there: a member
					// that lost its data counts as failed until then
					for (int n = 0; n < NODES; n++) {
						RedisScriptExecutor client = clients.get(n * 3 + victim);
						while (true) {
							try {
								client.ping("probe");
								break;
							}
							catch (RuntimeException ex) {
								Thread.sleep(50);
							}
						}
					}
					Thread.sleep(1500);
					victim = (victim + 1) % 3;
				}
				return null;
			});
			List<Future<?>> schedulers = new ArrayList<>();
			for (ClusterSingletonExecutor node : nodes) {
				for (JobDefinition job : jobs) {
					schedulers.add(threads.submit(() -> {
						while (System.nanoTime() - end < 0) {
							Instant next = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
							Thread.sleep(Math.max(0, next.toEpochMilli() - System.currentTimeMillis()));
							try {
								node.execute(job, next, RunTrigger.SCHEDULED, () -> {
									runs.add(new Run(job.name(), next, ClusterSingletonContext.current().fencingToken(),
											System.currentTimeMillis()));
									Thread.sleep(100);
									return null;
								});
							}
							catch (Throwable ex) {
								// a job's own failure; there is none here
							}
						}
						return null;
					}));
				}
			}
			for (Future<?> scheduler : schedulers) {
				scheduler.get(seconds + 60, TimeUnit.SECONDS);
			}
			killer.get(60, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
			nodes.forEach(ClusterSingletonExecutor::close);
			for (int i = resources.size() - 1; i >= 0; i--) {
				try {
					resources.get(i).close();
				}
				catch (Exception ex) {
					// closing what is left
				}
			}
		}
		Map<String, TreeMap<Instant, List<Run>>> bySlot = new HashMap<>();
		for (Run r : runs) {
			bySlot.computeIfAbsent(r.job, (name) -> new TreeMap<>())
				.computeIfAbsent(r.slot, (slot) -> new ArrayList<>())
				.add(r);
		}
		int duplicates = 0;
		int fenceRepeats = 0;
		int lostSlots = 0;
		for (TreeMap<Instant, List<Run>> slots : bySlot.values()) {
			long lastFence = 0;
			Instant previous = null;
			for (Map.Entry<Instant, List<Run>> entry : slots.entrySet()) {
				duplicates += entry.getValue().size() - 1;
				for (Run r : entry.getValue()) {
					if (r.fence <= lastFence) {
						fenceRepeats++;
					}
					lastFence = Math.max(lastFence, r.fence);
				}
				if (previous != null) {
					lostSlots += (int) (Duration.between(previous, entry.getKey()).toSeconds() - 1);
				}
				previous = entry.getKey();
			}
		}
		List<Long> takeovers = new ArrayList<>();
		for (long kill : kills) {
			for (String job : bySlot.keySet()) {
				runs.stream()
					.filter((r) -> r.job.equals(job) && r.startedAt >= kill)
					.mapToLong((r) -> r.startedAt - kill)
					.min()
					.ifPresent(takeovers::add);
			}
		}
		Collections.sort(takeovers);
		long median = takeovers.isEmpty() ? 0 : takeovers.get(takeovers.size() / 2);
		long max = takeovers.isEmpty() ? 0 : takeovers.get(takeovers.size() - 1);
		String line = String
			.format("failover redis-quorum: runs=%d duplicates=%d fence-repeats=%d lost-slots=%d takeover-median-ms=%d "
					+ "takeover-max-ms=%d", runs.size(), duplicates, fenceRepeats, lostSlots, median, max);
		String details = String.format(
				"(%d s, %d engines, %d every-second cron jobs, lease TTL %d s, %d members "
						+ "killed with kill -9 one at a time and started again empty %d ms later; %s)",
				seconds, NODES, JOBS, TTL.toSeconds(), kills.size(), TTL.toMillis() + 200,
				LocalDate.now(ZoneOffset.UTC));
		System.out.println(line);
		System.out.println(details);
		System.out.println("acquire outcomes: " + new TreeMap<>(outcomes));
		String report = System.getProperty("cluster-singleton.failover.report");
		if (report != null) {
			Path path = Path.of(report);
			Files.createDirectories(path.toAbsolutePath().getParent());
			Files.writeString(path, line + "\n" + details + "\nacquire outcomes: " + new TreeMap<>(outcomes) + "\n");
		}
		assertThat(kills).isNotEmpty();
		assertThat(duplicates).isZero();
		assertThat(fenceRepeats).isZero();
		assertThat(runs).isNotEmpty();
	}

	private static RedisScriptExecutor executor(int port, List<AutoCloseable> resources) {
		Duration timeout = Duration.ofMillis(500);
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(timeout)
			.clientOptions(ClientOptions.builder()
				.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port), client);
		factory.afterPropertiesSet();
		factory.start();
		resources.add(factory::destroy);
		return new SpringDataRedisScriptExecutor(factory);
	}

	private record Run(String job, Instant slot, long fence, long startedAt) {

	}

}
