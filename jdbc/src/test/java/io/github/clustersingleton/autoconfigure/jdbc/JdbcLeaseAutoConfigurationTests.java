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

package io.github.clustersingleton.autoconfigure.jdbc;

import java.time.Duration;
import java.time.Instant;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.jdbc.JdbcLeaseSchemaInitializer;
import org.h2.Driver;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.causeOf;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2Url;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JdbcLeaseAutoConfiguration}.
 *
 * @author cluster-singleton contributors
 */
class JdbcLeaseAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class));

	@Test
	void runWithDataSourceShouldCreateBackend() {
		this.contextRunner.with(h2()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(JdbcLeaseBackend.class)
				.hasSingleBean(JdbcLeaseSchemaInitializer.class)
				.hasSingleBean(JdbcLeaseProperties.class);
			assertThat(context.getBean(JdbcLeaseBackend.class).getTableName())
				.isEqualTo(JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		});
	}

	@Test
	void renewalTimeoutShouldBeAQuarterOfTheLeaseTtl() {
		this.contextRunner.with(h2())
			.run((context) -> assertThat(context.getBean(JdbcLeaseBackend.class).getRenewalTimeout())
				.isEqualTo(Duration.ofMillis(7500)));
		this.contextRunner.with(h2())
			.withPropertyValues("cluster-singleton.lease-ttl=4s")
			.run((context) -> assertThat(context.getBean(JdbcLeaseBackend.class).getRenewalTimeout())
				.isEqualTo(Duration.ofSeconds(1)));
	}

	@Test
	void runWithJobOnEmbeddedDatabaseShouldCreateLeaseTable() {
		this.contextRunner.with(h2()).withBean(Job.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(countRows(context.getBean(DataSource.class), JdbcLeaseBackend.DEFAULT_TABLE_NAME)).isZero();
			context.getBean(Job.class).run();
			assertThat(countRows(context.getBean(DataSource.class), JdbcLeaseBackend.DEFAULT_TABLE_NAME)).isOne();
		});
	}

	@Test
	void runWithUserDataSourceShouldCreateBackend() {
		this.contextRunner.withUserConfiguration(UserDataSourceConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(JdbcLeaseBackend.class);
		});
	}

	@Test
	void runWithCustomTableNameShouldUseIt() {
		this.contextRunner.with(h2())
			.withBean(Job.class)
			.withPropertyValues("cluster-singleton.jdbc.table-name=app_leases")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(JdbcLeaseBackend.class).getTableName()).isEqualTo("app_leases");
				context.getBean(Job.class).run();
				assertThat(countRows(context.getBean(DataSource.class), "app_leases")).isOne();
			});
	}

	@Test
	void runWithCustomRunTableNameShouldCreateAndUseIt() {
		this.contextRunner.with(h2())
			.withBean(Job.class)
			.withPropertyValues("cluster-singleton.jdbc.run-table-name=app_runs")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcLeaseBackend backend = context.getBean(JdbcLeaseBackend.class);
				assertThat(backend.getRunTableName()).isEqualTo("app_runs");
				assertThat(countRows(context.getBean(DataSource.class), "app_runs")).isZero();
				backend.runLedger()
					.record(new RunRecord("job", null, 1, 1, "node-a", RunTrigger.DIRECT, RunState.SUCCEEDED,
							Instant.parse("2026-01-01T10:00:00Z"), Instant.parse("2026-01-01T10:00:01Z"), null), 10);
				assertThat(countRows(context.getBean(DataSource.class), "app_runs")).isOne();
			});
	}

	@Test
	void runWithInvalidRunTableNameShouldFailNamingTheProperty() {
		this.contextRunner.with(h2())
			.withBean(Job.class)
			.withPropertyValues("cluster-singleton.jdbc.run-table-name=run-table")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("'run-table'")
					.hasMessageContaining("cluster-singleton.jdbc.run-table-name");
			});
	}

	@Test
	void runWithJobAndSchemaInitializationDisabledShouldFailNamingTheTable() {
		this.contextRunner.with(h2())
			.withBean(Job.class)
			.withPropertyValues("cluster-singleton.jdbc.initialize-schema=never")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class))
					.hasMessageContaining("'" + JdbcLeaseBackend.DEFAULT_TABLE_NAME + "'")
					.hasMessageContaining("cluster-singleton.jdbc.initialize-schema");
			});
	}

	@Test
	void runWithUserBackendShouldBackOff() {
		this.contextRunner.with(h2()).withUserConfiguration(UserBackendConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(JdbcLeaseBackend.class);
			assertThat(context).getBean(JdbcLeaseBackend.class).isSameAs(context.getBean("userBackend"));
		});
	}

	@Test
	void runWithJdbcBackendSelectedShouldCreateBackend() {
		this.contextRunner.with(h2())
			.withPropertyValues("cluster-singleton.backend=jdbc")
			.run((context) -> assertThat(context).hasSingleBean(JdbcLeaseBackend.class));
	}

	@Test
	void runWithOtherBackendSelectedShouldNotCreateBackend() {
		this.contextRunner.with(h2()).withPropertyValues("cluster-singleton.backend=kubernetes").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class)
				.doesNotHaveBean(JdbcLeaseSchemaInitializer.class);
		});
	}

	@Test
	void runWhenDisabledShouldNotCreateBackend() {
		this.contextRunner.with(h2())
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class)
				.doesNotHaveBean(JdbcLeaseSchemaInitializer.class));
	}

	@Test
	void runWithoutSpringJdbcShouldNotCreateBackend() {
		this.contextRunner.withUserConfiguration(UserDataSourceConfiguration.class)
			.withClassLoader(new FilteredClassLoader(JdbcTemplate.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class);
			});
	}

	@Test
	void runWithoutBootSqlShouldNotCreateBackend() {
		this.contextRunner.withUserConfiguration(UserDataSourceConfiguration.class)
			.withClassLoader(new FilteredClassLoader(DatabaseInitializationMode.class))
			.run((context) -> assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class));
	}

	@Test
	void runWithoutDataSourceShouldNotCreateBackend() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class);
		});
	}

	@Test
	void runWithTwoDataSourcesAndNoPrimaryShouldNotCreateBackend() {
		this.contextRunner.withUserConfiguration(TwoDataSourcesConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(JdbcLeaseBackend.class);
		});
	}

	/**
	 * Count the rows of jobs, leaving out the rows the backend keeps for itself (this
	 * node's presence row, named with a leading blank).
	 */
	private static int countRows(DataSource dataSource, String table) {
		Integer count = new JdbcTemplate(dataSource)
			.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE name NOT LIKE ' %'", Integer.class);
		return (count != null) ? count : -1;
	}

	private static DataSource newH2DataSource() {
		return new SimpleDriverDataSource(new Driver(), h2Url(), "sa", "");
	}

	@Configuration(proxyBeanMethods = false)
	static class UserDataSourceConfiguration {

		@Bean
		DataSource dataSource() {
			return newH2DataSource();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSourcesConfiguration {

		@Bean
		DataSource firstDataSource() {
			return newH2DataSource();
		}

		@Bean
		DataSource secondDataSource() {
			return newH2DataSource();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBackendConfiguration {

		@Bean
		JdbcLeaseBackend userBackend(DataSource dataSource) {
			return new JdbcLeaseBackend(dataSource, "user_leases");
		}

	}

	static class Job {

		@ClusterSingleton(name = "job")
		public void run() {
		}

	}

}
