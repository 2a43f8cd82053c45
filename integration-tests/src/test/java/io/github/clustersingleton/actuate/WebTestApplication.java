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

package io.github.clustersingleton.actuate;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.ClusterSingleton;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A web application with two jobs, for the endpoint tests over HTTP. There is no
 * {@code @EnableScheduling}: the tests call the jobs directly, which are guarded all the
 * same; the cron expression only gives {@code report} a schedule and slots.
 *
 * @author cluster-singleton contributors
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration(excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
class WebTestApplication {

	@Bean
	WebJobs webJobs() {
		return new WebJobs();
	}

	static class WebJobs {

		private final AtomicInteger reportRuns = new AtomicInteger();

		private final AtomicInteger stuckRuns = new AtomicInteger();

		@Scheduled(cron = "0 0 3 * * *", zone = "UTC")
		@ClusterSingleton(name = "report", lockAtMostFor = "10m")
		public void report() {
			this.reportRuns.incrementAndGet();
		}

		/**
		 * A job whose lease outlives its run by an hour: a stuck lease to free.
		 */
		@ClusterSingleton(name = "stuck", lockAtMostFor = "2h", lockAtLeastFor = "1h")
		public void stuck() {
			this.stuckRuns.incrementAndGet();
		}

		int reportRuns() {
			return this.reportRuns.get();
		}

		int stuckRuns() {
			return this.stuckRuns.get();
		}

	}

}
