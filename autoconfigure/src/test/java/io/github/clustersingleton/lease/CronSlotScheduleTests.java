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

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The next fire time of a schedule, which the schedules of one expression in one zone
 * share and remember for the last instant asked.
 *
 * @author cluster-singleton contributors
 */
class CronSlotScheduleTests {

	private static final Instant NOON_UTC = Instant.parse("2026-11-26T12:00:00Z");

	@Test
	void theNextFireTimeIsAnsweredAgainForTheSameInstantAndAfreshForAnother() {
		CronSlotSchedule first = CronSlotSchedule.of("*/10 * * * * *", ZoneOffset.UTC);
		CronSlotSchedule second = CronSlotSchedule.of("*/10 * * * * *", ZoneOffset.UTC);
		assertThat(first.next(NOON_UTC)).isEqualTo(NOON_UTC.plusSeconds(10));
		assertThat(second.next(NOON_UTC)).isEqualTo(NOON_UTC.plusSeconds(10));
		assertThat(second.next(NOON_UTC.plusSeconds(10))).isEqualTo(NOON_UTC.plusSeconds(20));
		assertThat(first.next(NOON_UTC)).isEqualTo(NOON_UTC.plusSeconds(10));
		assertThat(first.next(NOON_UTC.plusSeconds(3))).isEqualTo(NOON_UTC.plusSeconds(10));
	}

	@Test
	void theSameExpressionInAnotherZoneHasFireTimesOfItsOwn() {
		CronSlotSchedule utc = CronSlotSchedule.of("0 0 12 * * *", ZoneOffset.UTC);
		CronSlotSchedule paris = CronSlotSchedule.of("0 0 12 * * *", ZoneId.of("Europe/Paris"));
		Instant before = NOON_UTC.minusSeconds(6 * 3600);
		assertThat(utc.next(before)).isEqualTo(NOON_UTC);
		assertThat(paris.next(before)).isEqualTo(NOON_UTC.minusSeconds(3600));
		assertThat(utc.next(before)).isEqualTo(NOON_UTC);
	}

	@Test
	void threadsAskingTheSharedScheduleAtOtherInstantsEachGetTheirOwnAnswer() throws Exception {
		List<String> expressions = List.of("*/10 * * * * *", "0 30 2 * * *", "0 0 */3 * * MON-FRI");
		List<ZoneId> zones = List.of(ZoneOffset.UTC, ZoneId.of("Europe/Paris"), ZoneId.of("America/New_York"));
		// a day with a change to summer time in both zones
		Instant start = Instant.parse("2026-03-29T00:00:00Z");
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try {
			List<Future<Integer>> checks = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				long seed = t;
				checks.add(threads.submit(() -> {
					Random random = new Random(seed);
					int checked = 0;
					for (int i = 0; i < 5_000; i++) {
						String expression = expressions.get(random.nextInt(expressions.size()));
						ZoneId zone = zones.get(random.nextInt(zones.size()));
						Instant now = start.plusSeconds(random.nextInt(3 * 86_400));
						Instant expected = CronExpression.parse(expression).next(now.atZone(zone)).toInstant();
						assertThat(CronSlotSchedule.of(expression, zone).next(now)).as(expression + " in " + zone)
							.isEqualTo(expected);
						checked++;
					}
					return checked;
				}));
			}
			for (Future<Integer> check : checks) {
				assertThat(check.get(1, TimeUnit.MINUTES)).isEqualTo(5_000);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void anInvalidExpressionIsRefusedEveryTime() {
		assertThatIllegalArgumentException().isThrownBy(() -> CronSlotSchedule.of("61 * * * * *", ZoneOffset.UTC));
		assertThatIllegalArgumentException().isThrownBy(() -> CronSlotSchedule.of("61 * * * * *", ZoneOffset.UTC));
	}

	@Test
	void aUnionAnswersTheEarliestOfItsExpressions() {
		CronSlotSchedule union = CronSlotSchedule.union(List.of(CronSlotSchedule.of("0 0 * * * *", ZoneOffset.UTC),
				CronSlotSchedule.of("0 30 * * * *", ZoneOffset.UTC)));
		assertThat(union.next(NOON_UTC)).isEqualTo(NOON_UTC.plusSeconds(1800));
		assertThat(union.next(NOON_UTC.plusSeconds(1800))).isEqualTo(NOON_UTC.plusSeconds(3600));
	}

}
