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

package io.github.clustersingleton.shedlock;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.autoconfigure.shedlock.ShedLockBridgeAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling upgrade from ShedLock, proven on one database: one JVM runs ShedLock's own
 * {@code JdbcTemplateLockProvider} ({@link ShedLockNode}, a child process), this JVM runs
 * two cluster-singleton nodes with the bridge on, all three with the same job every
 * second, the ShedLock node half a second after the others. lockAtLeastFor (1.25 s) is
 * longer than the period, so every run is followed by a second in which all three nodes
 * try and must fail: over {@link #WINDOW} that is about a hundred contended triggers.
 * Then the other side's trigger, 1.5 s after the run's, is the first to find the lock
 * free, a quarter of a second after it expired: the sides take turns however long each
 * takes to reach the database, as long as the difference is under 250 ms. (With
 * lockAtLeastFor at 1.5 s that trigger came exactly when the lock expired, and the side
 * that reached the database later kept the lock at every turn: with 150 ms added to the
 * ShedLock node's lock calls it ran all 23 runs.) Every run records its start and end on
 * the database's clock; no two runs may overlap and no run may start inside the
 * lockAtLeastFor of the one before, whichever side ran them.
 *
 * @author cluster-singleton contributors
 */
abstract class AbstractShedLockInteropTests {

	static final long LOCK_AT_LEAST_FOR_MILLIS = 1250;

	static final String LOCK_AT_LEAST_FOR = LOCK_AT_LEAST_FOR_MILLIS + "ms";

	static final long RUN_MILLIS = 300;

	private static final Duration WINDOW = Duration.ofSeconds(40);

	/**
	 * How much later than its lock a run may record its start (the time between taking
	 * the lock and the run's first statement).
	 */
	private static final Duration START_LATENCY = Duration.ofMillis(100);

	private final String suffix = UUID.randomUUID().toString().substring(0, 8);

	private final String shedLockTable = "shedlock_" + this.suffix;

	private final String runsTable = "shedlock_runs_" + this.suffix;

	private final String leaseTable = "cs_shedlock_lease_" + this.suffix;

	private final String runTable = "cs_shedlock_run_" + this.suffix;

	/**
	 * Return the JDBC URL of the database.
	 */
	abstract String url();

	abstract HikariDataSource dataSource();

	/**
	 * The DDL of ShedLock's table as ShedLock documents it for this database.
	 */
	abstract String shedLockTableDdl(String table);

	abstract String runsTableDdl(String table);

	/**
	 * Whether the ShedLock node uses {@code usingDbTime()}, else its own clock as UTC.
	 */
	abstract boolean shedLockUsesDbTime();

	@Test
	void nodesOnShedLockAndNodesOnClusterSingletonNeverOverlap() throws Exception {
		try (HikariDataSource dataSource = dataSource()) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute(shedLockTableDdl(this.shedLockTable));
			jdbc.execute(runsTableDdl(this.runsTable));
			Process shedLockNode = null;
			List<ConfigurableApplicationContext> nodes = new ArrayList<>();
			Path log = Files.createTempFile("shedlock-node-", ".log");
			try {
				shedLockNode = startShedLockNode(log);
				nodes.add(startClusterSingletonNode("cs-1"));
				nodes.add(startClusterSingletonNode("cs-2"));
				Thread.sleep(WINDOW.toMillis());
			}
			finally {
				nodes.forEach(ConfigurableApplicationContext::close);
				if (shedLockNode != null) {
					shedLockNode.destroyForcibly();
					shedLockNode.waitFor();
				}
			}
			List<Run> runs = jdbc.query("SELECT node, started, ended FROM " + this.runsTable + " ORDER BY started",
					(row, i) -> new Run(row.getString(1), row.getTimestamp(2).toInstant(),
							instant(row.getTimestamp(3))));
			try {
				check(runs, log);
			}
			finally {
				// the schema script creates the manual-run table beside the lease table
				for (String table : List.of(this.shedLockTable, this.runsTable, this.leaseTable + "_manual_run",
						this.leaseTable, this.runTable)) {
					jdbc.execute("DROP TABLE IF EXISTS " + table);
				}
			}
		}
	}

	private void check(List<Run> runs, Path log) throws Exception {
		Map<String, Long> bySide = runs.stream()
			.collect(Collectors.groupingBy((run) -> run.node().startsWith("cs-") ? "cluster-singleton" : "shedlock",
					Collectors.counting()));
		System.out.println(getClass().getSimpleName() + ": " + runs.size() + " runs in " + WINDOW + " " + bySide);
		assertThat(bySide).as("runs by side; ShedLock node log:%n%s", Files.readString(log))
			.allSatisfy((side, count) -> assertThat(count).as(side).isGreaterThanOrEqualTo(3))
			.containsKeys("cluster-singleton", "shedlock");
		long handovers = 0;
		for (int i = 1; i < runs.size(); i++) {
			if (runs.get(i).node().startsWith("cs-") != runs.get(i - 1).node().startsWith("cs-")) {
				handovers++;
			}
		}
		System.out.println(getClass().getSimpleName() + ": " + handovers + " handovers between the two sides");
		assertThat(runs).hasSizeGreaterThan((int) (WINDOW.toSeconds() / 4));
		Duration lockAtLeastFor = Duration.ofMillis(LOCK_AT_LEAST_FOR_MILLIS);
		for (int i = 1; i < runs.size(); i++) {
			Run before = runs.get(i - 1);
			Run after = runs.get(i);
			assertThat(before.ended()).as("end of %s, followed by %s", before, after).isNotNull();
			assertThat(after.started()).as("%s overlaps %s", after, before).isAfterOrEqualTo(before.ended());
			assertThat(Duration.between(before.started(), after.started()))
				.as("%s starts inside the lockAtLeastFor of %s", after, before)
				.isGreaterThanOrEqualTo(lockAtLeastFor.minus(START_LATENCY));
		}
	}

	private static Instant instant(Timestamp timestamp) {
		return (timestamp != null) ? timestamp.toInstant() : null;
	}

	private Process startShedLockNode(Path log) throws Exception {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		List<String> command = List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
				"-Dnode.url=" + url(), "-Dnode.shedlock-table=" + this.shedLockTable,
				"-Dnode.runs-table=" + this.runsTable, "-Dnode.lock-name=legacy-report-" + this.suffix,
				"-Dnode.id=shedlock-1", "-Dnode.db-time=" + shedLockUsesDbTime(), "-cp",
				System.getProperty("java.class.path"), ShedLockNode.class.getName());
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!Files.readString(log).contains("READY")) {
			assertThat(process.isAlive()).as("ShedLock node exited:%n%s", Files.readString(log)).isTrue();
			assertThat(System.nanoTime() - deadline).as("ShedLock node did not start").isNegative();
			Thread.sleep(100);
		}
		return process;
	}

	private ConfigurableApplicationContext startClusterSingletonNode(String node) {
		return new SpringApplicationBuilder(NodeConfiguration.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + url(), "spring.main.banner-mode=off",
					"cluster-singleton.owner-id=" + node, "cluster-singleton.lease-ttl=5s",
					"cluster-singleton.jdbc.initialize-schema=always",
					"cluster-singleton.jdbc.table-name=" + this.leaseTable,
					"cluster-singleton.jdbc.run-table-name=" + this.runTable,
					"cluster-singleton.shedlock.table-name=" + this.shedLockTable,
					"cluster-singleton.jobs[report].shedlock-name=legacy-report-" + this.suffix,
					"test.runs-table=" + this.runsTable, "test.node=" + node)
			.run();
	}

	record Run(String node, Instant started, Instant ended) {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, ClusterSingletonAutoConfiguration.class,
			JdbcLeaseAutoConfiguration.class, ShedLockBridgeAutoConfiguration.class })
	static class NodeConfiguration {

		@Bean
		ReportJob reportJob(javax.sql.DataSource dataSource, @Value("${test.runs-table}") String runs,
				@Value("${test.node}") String node) {
			return new ReportJob(new RunRecorder(dataSource, runs), node);
		}

	}

	static class ReportJob {

		private final RunRecorder recorder;

		private final String node;

		ReportJob(RunRecorder recorder, String node) {
			this.recorder = recorder;
			this.node = node;
		}

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@ClusterSingleton(name = "report", lockAtMostFor = "10s", lockAtLeastFor = LOCK_AT_LEAST_FOR)
		public void report() throws InterruptedException {
			String id = UUID.randomUUID().toString();
			this.recorder.started(id, this.node);
			Thread.sleep(RUN_MILLIS);
			this.recorder.ended(id);
		}

	}

}
