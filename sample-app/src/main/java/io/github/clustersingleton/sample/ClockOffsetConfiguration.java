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
import java.time.Duration;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.task.SimpleAsyncTaskSchedulerCustomizer;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Skews this copy's clock by {@code demo.clock-offset}, to show that a cron slot still
 * runs once when the nodes' clocks disagree. Both the {@link Clock} bean (which
 * cluster-singleton reads to work out a trigger's slot) and Spring's task scheduler
 * (which decides when the trigger fires) use the skewed clock, as they would on a host
 * whose system clock is off. The lease store keeps judging expiry by its own clock.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
@Conditional(ClockOffsetConfiguration.OnClockOffsetCondition.class)
class ClockOffsetConfiguration {

	@Bean
	Clock clock(DemoProperties properties) {
		return Clock.offset(Clock.systemUTC(), properties.getClockOffset());
	}

	@Bean
	ThreadPoolTaskSchedulerCustomizer skewedThreadPoolTaskScheduler(Clock clock) {
		return (scheduler) -> scheduler.setClock(clock);
	}

	@Bean
	SimpleAsyncTaskSchedulerCustomizer skewedSimpleAsyncTaskScheduler(Clock clock) {
		// the scheduler Boot uses with spring.threads.virtual.enabled=true
		return (scheduler) -> scheduler.setClock(clock);
	}

	/**
	 * Matches when {@code demo.clock-offset} is set to a non-zero duration.
	 */
	static class OnClockOffsetCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			Duration offset = Binder.get(context.getEnvironment())
				.bind("demo.clock-offset", Duration.class)
				.orElse(Duration.ZERO);
			return offset.isZero() ? ConditionOutcome.noMatch("demo.clock-offset is zero")
					: ConditionOutcome.match("demo.clock-offset is " + offset);
		}

	}

}
