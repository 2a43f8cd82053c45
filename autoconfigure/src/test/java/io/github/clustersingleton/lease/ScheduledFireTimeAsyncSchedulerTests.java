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

package io.github.clustersingleton.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ScheduledFireTime} on Spring's {@link SimpleAsyncTaskScheduler} (what Boot
 * auto-configures with virtual threads): the trigger thread hands the task to a new
 * thread and computes the next execution at once, so the task can read the fire time of
 * the next trigger instead of its own.
 *
 * @author cluster-singleton contributors
 */
class ScheduledFireTimeAsyncSchedulerTests {

	private final SimpleAsyncTaskScheduler scheduler = new SimpleAsyncTaskScheduler();

	@AfterEach
	void shutdown() {
		this.scheduler.close();
	}

	@Test
	void aTaskOnSimpleAsyncTaskSchedulerSeesItsOwnFireTimeNotTheNextOne() {
		// a task decorator that takes a little while (MDC or security context copying,
		// tracing) widens the window; plain thread start-up is enough to lose it
		// sometimes
		this.scheduler.setTaskDecorator((task) -> () -> {
			sleep(50);
			task.run();
		});
		ScheduledFireTime fireTimes = new ScheduledFireTime(this.scheduler);
		List<Instant[]> seen = new CopyOnWriteArrayList<>();
		ScheduledFuture<?> future = fireTimes.schedule(
				() -> seen.add(new Instant[] { ScheduledFireTime.current(), Instant.now() }),
				new CronTrigger("*/2 * * * * *"));
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() >= 2);
		future.cancel(false);
		for (Instant[] run : seen) {
			assertThat(run[0]).as("fire time seen by a run that started at %s", run[1]).isNotNull();
			assertThat(run[0]).as("fire time seen by a run that started at %s", run[1]).isBeforeOrEqualTo(run[1]);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
