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

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A node that has not moved yet: ShedLock's own {@code JdbcTemplateLockProvider} with
 * {@code @EnableSchedulerLock} and {@code @SchedulerLock}, no cluster-singleton. Started
 * as a separate JVM by {@link AbstractShedLockInteropTests}; configured by system
 * properties ({@code node.url}, {@code node.shedlock-table}, {@code node.runs-table},
 * {@code node.lock-name}, {@code node.id}, {@code node.db-time}).
 *
 * @author cluster-singleton contributors
 */
public final class ShedLockNode {

	private ShedLockNode() {
	}

	public static void main(String[] args) throws InterruptedException {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(NodeConfiguration.class);
		context.registerShutdownHook();
		System.out.println("READY");
		Thread.currentThread().join();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class NodeConfiguration {

		@Bean(destroyMethod = "close")
		HikariDataSource dataSource(@Value("${node.url}") String url) {
			HikariDataSource dataSource = new HikariDataSource();
			dataSource.setJdbcUrl(url);
			dataSource.setMaximumPoolSize(4);
			return dataSource;
		}

		/**
		 * The scheduler fires half a second after the other side's: with a lockAtLeastFor
		 * of 1.25 s each side's trigger 1.5 s after the other side's run finds the lock
		 * free, so the two sides take turns rather than one side winning every race at
		 * the top of the second. ShedLock's own clock stays the system's.
		 */
		@Bean
		ThreadPoolTaskScheduler taskScheduler() {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setClock(Clock.offset(Clock.systemUTC(), Duration.ofMillis(-500)));
			return scheduler;
		}

		@Bean
		LockProvider lockProvider(DataSource dataSource, @Value("${node.shedlock-table}") String table,
				@Value("${node.db-time}") boolean dbTime) {
			JdbcTemplateLockProvider.Configuration.Builder builder = JdbcTemplateLockProvider.Configuration.builder()
				.withJdbcTemplate(new JdbcTemplate(dataSource))
				.withTableName(table);
			// both ways an old node may be configured: the database's clock, or its own
			// clock written as UTC
			builder = dbTime ? builder.usingDbTime() : builder.forceUtcTimeZone();
			return new JdbcTemplateLockProvider(builder.build());
		}

		@Bean
		Job job(DataSource dataSource, @Value("${node.runs-table}") String runs, @Value("${node.id}") String node) {
			return new Job(new RunRecorder(dataSource, runs), node);
		}

	}

	public static class Job {

		private final RunRecorder recorder;

		private final String node;

		Job(RunRecorder recorder, String node) {
			this.recorder = recorder;
			this.node = node;
		}

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@SchedulerLock(name = "${node.lock-name}", lockAtMostFor = "10s",
				lockAtLeastFor = AbstractShedLockInteropTests.LOCK_AT_LEAST_FOR)
		public void run() throws InterruptedException {
			String id = UUID.randomUUID().toString();
			this.recorder.started(id, this.node);
			Thread.sleep(AbstractShedLockInteropTests.RUN_MILLIS);
			this.recorder.ended(id);
		}

	}

}
