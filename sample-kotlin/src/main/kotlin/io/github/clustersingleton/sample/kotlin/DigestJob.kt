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

import io.github.clustersingleton.ClusterSingleton
import io.github.clustersingleton.kotlin.clusterSingletonContext
import java.time.Duration
import java.time.Instant
import kotlinx.coroutines.delay
import org.apache.commons.logging.LogFactory
import org.springframework.beans.factory.annotation.Value
import org.springframework.scheduling.annotation.Scheduled
import org.springframework.stereotype.Component

/**
 * The demo job: a `@Scheduled` `suspend` function that runs on one node per cron slot.
 * Every copy's scheduler starts it at each trigger; only the copy that gets the lease
 * runs the body, the others skip that trigger. The body suspends for a while without
 * blocking a thread, and the lease stays held, and the run's context stays with the
 * coroutine, until it returns.
 *
 * @author cluster-singleton contributors
 */
@Component
open class DigestJob(
	private val runLog: RunLog,
	@Value("\${demo.digest-duration:2s}") private val duration: Duration,
) {

	private val node = "node-" + ProcessHandle.current().pid()

	/**
	 * Prepare and "send" a digest: log the run's slot and fencing token, suspend, and
	 * record the run.
	 */
	@Scheduled(cron = "\${demo.digest-cron:*/5 * * * * *}", zone = "UTC")
	@ClusterSingleton(name = "digest")
	open suspend fun sendDigest() {
		val run = clusterSingletonContext()
		val slot = run.slot().orElse(null)
		logger.info("[${this.node}] ${run.jobName()} slot=${slot ?: "-"} token=${run.fencingToken()} started")
		// the watchdog renews the lease while the coroutine is suspended
		delay(this.duration.toMillis())
		// after the suspension the coroutine may go on on another thread, with the same run
		val resumed = clusterSingletonContext()
		logger.info(
			"[${this.node}] ${resumed.jobName()} slot=${slot ?: "-"} token=${resumed.fencingToken()} " +
				"done on ${Thread.currentThread().name}, leaseValid=${resumed.isLeaseValid}",
		)
		this.runLog.add(
			RunLog.Run(
				job = run.jobName(),
				node = this.node,
				slot = slot,
				fencingToken = run.fencingToken(),
				sameRunAfterDelay = resumed === run,
				leaseValid = resumed.isLeaseValid,
				finishedAt = Instant.now(),
			),
		)
	}

	private companion object {

		private val logger = LogFactory.getLog(DigestJob::class.java)

	}

}
