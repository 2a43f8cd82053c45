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

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.autoconfigure.shedlock.ShedLockBridgeAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ShedLock bridge on H2: a run holds ShedLock's lock of its job, a lock held by a
 * node still on ShedLock skips the run with outcome {@code held}, and configuration
 * mistakes fail startup naming {@code cluster-singleton.shedlock.table-name}.
 *
 * @author cluster-singleton contributors
 */
class ShedLockBridgeTests {

	private static final String SHEDLOCK_TABLE = "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, "
			+ "lock_until TIMESTAMP(3) NOT NULL, locked_at TIMESTAMP(3) NOT NULL, locked_by VARCHAR(255) NOT NULL, "
			+ "PRIMARY KEY (name))";

	private final String url = ClusterSingletonTestSupport.h2Url();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				JdbcLeaseAutoConfiguration.class, ShedLockBridgeAutoConfiguration.class))
		.with(ClusterSingletonTestSupport.h2(this.url))
		.withUserConfiguration(JobConfiguration.class)
		.withPropertyValues("cluster-singleton.jdbc.initialize-schema=always", "cluster-singleton.owner-id=new-pod",
				"cluster-singleton.shedlock.table-name=shedlock");

	@BeforeEach
	void createShedLockTable() {
		createTable(new DriverManagerDataSource(this.url, "sa", ""));
	}

	@Test
	void runHoldsShedLockLockForItsLockAtMostForAndReleasesItAtLockAtLeastFor() {
		this.contextRunner.run((context) -> {
			JdbcTemplate jdbc = createTable(context.getBean(DataSource.class));
			ReportJob job = context.getBean(ReportJob.class);
			job.during(() -> job.rows().add(jdbc.queryForMap("SELECT * FROM shedlock WHERE name = 'report'")));
			job.report();
			assertThat(job.runs()).hasSize(1);
			Map<String, Object> during = job.rows().get(0);
			assertThat((String) during.get("LOCKED_BY")).startsWith("new-pod#");
			assertThat(millisBetween(during.get("LOCKED_AT"), during.get("LOCK_UNTIL"))).isEqualTo(60_000);
			Map<String, Object> after = jdbc.queryForMap("SELECT * FROM shedlock WHERE name = 'report'");
			// released at locked_at + lockAtLeastFor (2s), ShedLock's rule
			assertThat(millisBetween(after.get("LOCKED_AT"), after.get("LOCK_UNTIL"))).isEqualTo(2_000);
			assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
				.isInstanceOf(ShedLockLeaseBackend.class);
		});
	}

	@Test
	void lockHeldByNodeOnShedLockSkipsRunWithOutcomeHeldAndGivesLeaseBack() {
		this.contextRunner.run((context) -> {
			JdbcTemplate jdbc = createTable(context.getBean(DataSource.class));
			jdbc.update("INSERT INTO shedlock VALUES ('report', DATEADD(MINUTE, 10, CURRENT_TIMESTAMP(3)), "
					+ "CURRENT_TIMESTAMP(3), 'old-pod')");
			ReportJob job = context.getBean(ReportJob.class);
			job.report();
			assertThat(job.runs()).isEmpty();
			Recorder recorder = context.getBean(Recorder.class);
			assertThat(recorder.results).singleElement().satisfies((result) -> {
				assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.HELD);
				assertThat(result.holder()).contains("old-pod");
			});
			LeaseBackend backend = context.getBean(ClusterSingletonExecutor.class).getBackend();
			assertThat(backend.describe("report")).hasValueSatisfying((info) -> assertThat(info.live()).isFalse());
			assertThat(jdbc.queryForObject("SELECT locked_by FROM shedlock WHERE name = 'report'", String.class))
				.isEqualTo("old-pod");
			// the old pod's lock ends: the next call runs
			jdbc.update("UPDATE shedlock SET lock_until = CURRENT_TIMESTAMP(3) WHERE name = 'report'");
			job.report();
			assertThat(job.runs()).hasSize(1);
			assertThat(recorder.results).last()
				.satisfies((result) -> assertThat(result.outcome()).isEqualTo(AcquireResult.Outcome.ACQUIRED));
		});
	}

	@Test
	void shedLockNameMapsJobToAnotherLock() {
		this.contextRunner.withPropertyValues("cluster-singleton.jobs.report.shedlock-name=legacyReportTask")
			.run((context) -> {
				JdbcTemplate jdbc = createTable(context.getBean(DataSource.class));
				context.getBean(ReportJob.class).report();
				assertThat(jdbc.queryForList("SELECT name FROM shedlock", String.class))
					.containsExactly("legacyReportTask");
			});
	}

	@Test
	void missingTableFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("cluster-singleton.shedlock.table-name=no_such_shedlock")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				while (failure != null && !(failure instanceof ClusterSingletonConfigurationException)) {
					failure = failure.getCause();
				}
				assertThat(failure).hasMessageContaining("The ShedLock table 'no_such_shedlock' named by "
						+ "cluster-singleton.shedlock.table-name cannot be used");
			});
	}

	@Test
	void invalidTableNameFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("cluster-singleton.shedlock.table-name=shed lock;").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining(
						"Invalid table name 'shed lock;' in property " + "cluster-singleton.shedlock.table-name");
		});
	}

	@Test
	void noDataSourceFailsStartupNamingTheProperty() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
					ShedLockBridgeAutoConfiguration.class))
			.withPropertyValues("cluster-singleton.shedlock.table-name=shedlock")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("cluster-singleton.shedlock.table-name is set ('shedlock') but the "
							+ "application has no single DataSource bean");
			});
	}

	@Test
	void bridgeIsOffWithoutTheProperty() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
					JdbcLeaseAutoConfiguration.class, ShedLockBridgeAutoConfiguration.class))
			.with(ClusterSingletonTestSupport.h2())
			.withUserConfiguration(JobConfiguration.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(ShedLockTable.class);
				assertThat(context.getBean(ClusterSingletonExecutor.class).getBackend())
					.isNotInstanceOf(ShedLockLeaseBackend.class);
			});
	}

	private static JdbcTemplate createTable(DataSource dataSource) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE.substring("CREATE TABLE ".length()));
		return jdbc;
	}

	private static long millisBetween(Object from, Object to) {
		return Duration.between(((Timestamp) from).toInstant(), ((Timestamp) to).toInstant()).toMillis();
	}

	@Configuration(proxyBeanMethods = false)
	static class JobConfiguration {

		@Bean
		ReportJob reportJob() {
			return new ReportJob();
		}

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

	}

	static class ReportJob {

		final List<String> runs = new CopyOnWriteArrayList<>();

		final List<Map<String, Object>> rows = new CopyOnWriteArrayList<>();

		volatile Runnable during = () -> {
		};

		// the bean is a proxy: its state is reached through methods
		public List<String> runs() {
			return this.runs;
		}

		public List<Map<String, Object>> rows() {
			return this.rows;
		}

		public void during(Runnable during) {
			this.during = during;
		}

		@ClusterSingleton(name = "report", lockAtMostFor = "1m", lockAtLeastFor = "2s")
		public void report() {
			this.during.run();
			this.runs.add("ran");
		}

	}

	static class Recorder implements ClusterSingletonListener {

		final List<AcquireResult> results = new CopyOnWriteArrayList<>();

		@Override
		public void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result,
				Duration duration) {
			this.results.add(result);
		}

	}

}
