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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ScheduledFireTime}.
 *
 * @author cluster-singleton contributors
 */
class ScheduledFireTimeTests {

	private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

	@AfterEach
	void shutdown() {
		this.scheduler.shutdown();
	}

	@Test
	void aRunThatStartsLateStillSeesTheFireTimeItsTriggerMeant() throws Exception {
		this.scheduler.setPoolSize(1);
		this.scheduler.initialize();
		ScheduledFireTime decorated = new ScheduledFireTime(this.scheduler);
		CountDownLatch busy = new CountDownLatch(1);
		List<Instant[]> runs = new CopyOnWriteArrayList<>();
		CountDownLatch ran = new CountDownLatch(1);
		// the only scheduler thread is busy when the trigger fires: busy before the
		// trigger is scheduled, else a fire time a few ms away could come first
		CountDownLatch occupied = new CountDownLatch(1);
		this.scheduler.execute(() -> {
			occupied.countDown();
			try {
				busy.await(2500, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		assertThat(occupied.await(10, TimeUnit.SECONDS)).isTrue();
		decorated.schedule(() -> {
			runs.add(new Instant[] { ScheduledFireTime.current(), Instant.now() });
			ran.countDown();
		}, new CronTrigger("* * * * * *"));
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		Instant fireTime = runs.get(0)[0];
		Instant startedAt = runs.get(0)[1];
		assertThat(fireTime).isNotNull();
		assertThat(fireTime.getNano()).as("a cron fire time").isZero();
		assertThat(Duration.between(fireTime, startedAt)).as("the run started late")
			.isGreaterThan(Duration.ofMillis(500));
		assertThat(ScheduledFireTime.current()).as("only inside the run").isNull();
	}

	@Test
	void tasksWithoutATriggerAreDelegatedAsTheyAre() throws Exception {
		this.scheduler.initialize();
		ScheduledFireTime decorated = new ScheduledFireTime(this.scheduler);
		CountDownLatch ran = new CountDownLatch(1);
		List<Object> seen = new CopyOnWriteArrayList<>();
		decorated.scheduleAtFixedRate(() -> {
			seen.add(String.valueOf(ScheduledFireTime.current()));
			ran.countDown();
		}, Duration.ofMillis(50));
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(seen.get(0)).isEqualTo("null");
		assertThat(decorated.getClock()).isSameAs(this.scheduler.getClock());
	}

}
