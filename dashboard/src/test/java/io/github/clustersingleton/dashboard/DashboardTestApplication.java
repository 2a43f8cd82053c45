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
package io.github.clustersingleton.dashboard;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.ClusterSingleton;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A web application with two scheduled jobs on the in-memory lease store of
 * {@code cluster-singleton-spring-boot-test}, for the dashboard's tests; without Spring
 * Security, which only the security tests use.
 *
 * @author cluster-singleton contributors
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration" })
@EnableScheduling
@Import(DashboardTestApplication.DashboardJobs.class)
class DashboardTestApplication {

	static class DashboardJobs {

		private final AtomicInteger reportRuns = new AtomicInteger();

		private final AtomicInteger cleanupRuns = new AtomicInteger();

		@Scheduled(cron = "*/2 * * * * *", zone = "UTC")
		@ClusterSingleton(name = "report", lockAtMostFor = "1m")
		public void report() throws InterruptedException {
			this.reportRuns.incrementAndGet();
			Thread.sleep(300);
		}

		@Scheduled(cron = "0 0 3 * * *", zone = "UTC")
		@ClusterSingleton(name = "cleanup", lockAtMostFor = "1m")
		public void cleanup() {
			this.cleanupRuns.incrementAndGet();
		}

		int reportRuns() {
			return this.reportRuns.get();
		}

		int cleanupRuns() {
			return this.cleanupRuns.get();
		}

	}

}
