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

package io.github.clustersingleton.sample.kotlin

import io.github.clustersingleton.lease.ClusterSingletonExecutor
import java.time.Duration
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest

/**
 * Boots the Kotlin demo against a private in-memory H2 database, with the job firing
 * every second.
 */
@SpringBootTest(
	properties = [
		"spring.datasource.url=jdbc:h2:mem:sample-kotlin-\${random.uuid};DB_CLOSE_DELAY=-1",
		"cluster-singleton.lease-ttl=2s",
		"demo.digest-cron=* * * * * *",
		"demo.digest-duration=300ms",
	],
)
class SampleKotlinApplicationTests {

	@Autowired
	private lateinit var runLog: RunLog

	@Autowired
	private lateinit var executor: ClusterSingletonExecutor

	@Test
	fun suspendJobRunsOncePerSlotUnderItsLease() {
		assertThat(this.executor.backend.id()).isEqualTo("jdbc")
		await().atMost(Duration.ofSeconds(15)).until { this.runLog.runs().size >= 2 }
		val runs = this.runLog.runs()
		assertThat(runs).allSatisfy { run ->
			assertThat(run.job).isEqualTo("digest")
			assertThat(run.slot).isNotNull()
			assertThat(run.fencingToken).isPositive()
			// the run's context survived the delay, and the lease was held to the end
			assertThat(run.sameRunAfterDelay).isTrue()
			assertThat(run.leaseValid).isTrue()
		}
		assertThat(runs.map { it.slot }).doesNotHaveDuplicates()
		for (i in 1 until runs.size) {
			assertThat(runs[i].fencingToken).isGreaterThan(runs[i - 1].fencingToken)
		}
	}

}
