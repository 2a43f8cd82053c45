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

package io.github.clustersingleton.sample;

import java.time.Clock;

import org.springframework.boot.task.SimpleAsyncTaskSchedulerCustomizer;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Skews this copy's clock by {@code demo.clock-offset}, to show that a cron slot still
 * runs once when the nodes' clocks disagree. Both the {@link Clock} bean (which
 * cluster-singleton reads to work out a trigger's slot) and Spring's task scheduler
 * (which decides when the trigger fires) use the skewed clock, as they would on a host
 * whose system clock is off. The lease store keeps judging expiry by its own clock.
 * <p>
 * The offset is read when the beans are created, not by a condition, so that it also
 * works in a build processed ahead of time (where conditions are settled at build time):
 * with no offset the clock is the system's UTC clock and the schedulers keep their own.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
class ClockOffsetConfiguration {

	@Bean
	Clock clock(DemoProperties properties) {
		return properties.getClockOffset().isZero() ? Clock.systemUTC()
				: Clock.offset(Clock.systemUTC(), properties.getClockOffset());
	}

	@Bean
	ThreadPoolTaskSchedulerCustomizer skewedThreadPoolTaskScheduler(DemoProperties properties, Clock clock) {
		return (scheduler) -> {
			if (!properties.getClockOffset().isZero()) {
				scheduler.setClock(clock);
			}
		};
	}

	@Bean
	SimpleAsyncTaskSchedulerCustomizer skewedSimpleAsyncTaskScheduler(DemoProperties properties, Clock clock) {
		// the scheduler Boot uses with spring.threads.virtual.enabled=true
		return (scheduler) -> {
			if (!properties.getClockOffset().isZero()) {
				scheduler.setClock(clock);
			}
		};
	}

}
