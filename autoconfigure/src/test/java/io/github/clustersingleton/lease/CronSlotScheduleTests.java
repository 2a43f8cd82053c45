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
import java.util.List;

import org.junit.jupiter.api.Test;

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
