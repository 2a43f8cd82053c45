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

package io.github.clustersingleton.kotlin

import io.github.clustersingleton.ClusterSingletonContext
import io.github.clustersingleton.ClusterSingletonTemplate
import io.github.clustersingleton.LeaseInfo
import java.time.Duration
import java.time.Instant
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * How the Java API's JSpecify annotations read from Kotlin. This module compiles with
 * `-Xjspecify-annotations=strict` and warnings as errors: the explicit types below only
 * compile when Kotlin sees the declared nullness (a `null` check of a non-null type, or
 * a nullable value where a non-null one is declared, would fail the build).
 */
class JavaApiNullSafetyTests {

	@Test
	fun templateJobReadsWithDeclaredNullness() {
		val job: ClusterSingletonTemplate.Job = ClusterSingletonTemplate.job("billing")
		val name: String = job.name
		val lockAtMostFor: Duration? = job.lockAtMostFor
		val slot: Instant? = job.slot
		assertThat(name).isEqualTo("billing")
		assertThat(lockAtMostFor).isNull()
		assertThat(slot).isNull()
		val longer: Duration = job.lockAtMostFor(Duration.ofMinutes(5)).lockAtMostFor ?: Duration.ZERO
		assertThat(longer).isEqualTo(Duration.ofMinutes(5))
	}

	@Test
	fun leaseInfoReadsWithDeclaredNullness() {
		val info = LeaseInfo("billing", null, false, null, null, 0, null)
		val holder: String? = info.holder()
		val jobName: String = info.jobName()
		assertThat(holder).isNull()
		assertThat(jobName).isEqualTo("billing")
	}

	@Test
	fun contextOutsideARunIsAbsent() {
		val found: ClusterSingletonContext? = ClusterSingletonContext.find().orElse(null)
		assertThat(found).isNull()
	}

}
