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

package io.github.clustersingleton.cluster.node;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * One node of the cluster proof. The harness starts several of these JVMs, each with its
 * own {@code node.id} and {@code node.clock-offset-ms}, all sharing one lease store.
 * {@code node.jobs} (at most {@link NodeJobs#MAX_JOBS}) of the guarded every-second cron
 * jobs are enabled; the others get the disabled cron expression {@code -}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@SpringBootApplication
@EnableScheduling
@EnableTransactionManagement
public class NodeApplication {

	/**
	 * The name of the transaction manager of {@link NodeJobs#TRANSACTIONAL}.
	 */
	public static final String TRANSACTION_MANAGER = "nodeTransactionManager";

	/**
	 * The transaction manager of the {@code @Transactional} job, on the ledger's database
	 * (present on both backends), with a small pool of its own. The pool is no bean: a
	 * {@code DataSource} bean would replace the lease store's auto-configured one.
	 */
	@Bean(TRANSACTION_MANAGER)
	DataSourceTransactionManager nodeTransactionManager(@Value("${node.ledger-url}") String url,
			@Value("${node.run-id}") String runId) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("postgres");
		config.setPoolName("transactional");
		config.setMaximumPoolSize(2);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(2000);
		config.addDataSourceProperty("ApplicationName", "tx-" + runId);
		config.addDataSourceProperty("socketTimeout", "10");
		return new DataSourceTransactionManager(new HikariDataSource(config));
	}

	@Bean
	Clock clock(@Value("${node.clock-offset-ms:0}") long offsetMillis) {
		return Clock.offset(Clock.systemUTC(), Duration.ofMillis(offsetMillis));
	}

	@Bean
	ThreadPoolTaskScheduler taskScheduler(Clock clock, @Value("${node.jobs:10}") int jobs) {
		ThreadPoolTaskScheduler scheduler = new FireTimeRecordingTaskScheduler();
		scheduler.setPoolSize(jobs + 6);
		scheduler.setThreadNamePrefix("node-job-");
		// the scheduler decides when a trigger fires: it uses the skewed clock, as on a
		// host whose system clock is off
		scheduler.setClock(clock);
		return scheduler;
	}

	public static void main(String[] args) {
		int jobs = 10;
		for (String arg : args) {
			if (arg.startsWith("--node.jobs=")) {
				jobs = Integer.parseInt(arg.substring("--node.jobs=".length()));
			}
		}
		if (jobs < 1 || jobs > NodeJobs.MAX_JOBS) {
			throw new IllegalArgumentException("node.jobs must be between 1 and " + NodeJobs.MAX_JOBS);
		}
		Map<String, Object> defaults = new LinkedHashMap<>();
		for (int i = 0; i < NodeJobs.MAX_JOBS; i++) {
			defaults.put(String.format("node.cron.job%02d", i), (i < jobs) ? "* * * * * *" : "-");
		}
		SpringApplication application = new SpringApplication(NodeApplication.class);
		application.setDefaultProperties(defaults);
		application.run(args);
	}

}
