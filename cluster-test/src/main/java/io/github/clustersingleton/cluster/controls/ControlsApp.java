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
package io.github.clustersingleton.cluster.controls;

import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * An application written as a user would write it ({@code controls-app.properties}): one
 * cron job every second, the Actuator endpoint open for writes, every run recorded in the
 * {@code controls_app_ledger} table of its PostgreSQL database (job, slot, node, trigger,
 * fencing token, start on the database's clock). The lease store is JDBC or Redis, as the
 * command line says.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@SpringBootApplication
@EnableScheduling
public class ControlsApp {

	public static void main(String[] args) {
		new SpringApplicationBuilder(ControlsApp.class).properties("spring.config.name=controls-app").run(args);
	}

	/**
	 * The job, and its record of every run.
	 */
	@Component
	public static class Tick {

		private final JdbcTemplate jdbc;

		private final String runId;

		private final String node;

		Tick(JdbcTemplate jdbc, @Value("${app.run-id}") String runId, @Value("${app.node}") String node) {
			this.jdbc = jdbc;
			this.runId = runId;
			this.node = node;
		}

		@Scheduled(cron = "${app.cron:* * * * * *}", zone = "UTC")
		@ClusterSingleton(name = "${app.run-id}-tick")
		public void tick() throws InterruptedException {
			ClusterSingletonContext run = ClusterSingletonContext.current();
			OffsetDateTime slot = run.slot().map((instant) -> instant.atOffset(ZoneOffset.UTC)).orElse(null);
			this.jdbc.update(
					"INSERT INTO controls_app_ledger (run_id, slot, node, run_trigger, fencing_token, started_at) "
							+ "VALUES (?, ?, ?, ?, ?, clock_timestamp())",
					this.runId, new SqlParameterValue(Types.TIMESTAMP_WITH_TIMEZONE, slot), this.node,
					run.trigger().name(), run.fencingToken());
			Thread.sleep(100);
		}

	}

}
