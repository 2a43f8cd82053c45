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
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One warning of a kind per interval, with the number left out since.
 *
 * @author cluster-singleton contributors
 */
class WarningThrottleTests {

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final WarningThrottle throttle = new WarningThrottle(this.now::get, Duration.ofSeconds(30));

	@Test
	void theFirstWarningGoesThrough() {
		assertThat(this.throttle.admit()).isZero();
	}

	@Test
	void warningsWithinTheIntervalAreLeftOutAndCountedInTheNextOneThatGoesThrough() {
		assertThat(this.throttle.admit()).isZero();
		this.now.addAndGet(Duration.ofSeconds(10).toNanos());
		assertThat(this.throttle.admit()).isEqualTo(-1);
		this.now.addAndGet(Duration.ofSeconds(19).toNanos());
		assertThat(this.throttle.admit()).isEqualTo(-1);
		this.now.addAndGet(Duration.ofSeconds(1).toNanos());
		assertThat(this.throttle.admit()).isEqualTo(2);
		this.now.addAndGet(Duration.ofSeconds(30).toNanos());
		assertThat(this.throttle.admit()).as("none left out since").isZero();
	}

}
