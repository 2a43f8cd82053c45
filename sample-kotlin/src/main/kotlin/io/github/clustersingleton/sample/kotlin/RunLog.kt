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

import java.time.Instant
import org.springframework.stereotype.Component

/**
 * The most recent runs of the demo job on this node, kept in memory so that tests can
 * check what ran.
 *
 * @author cluster-singleton contributors
 */
@Component
class RunLog {

	private val runs = ArrayDeque<Run>()

	/**
	 * Record a finished run, dropping the oldest one beyond a thousand.
	 */
	@Synchronized
	fun add(run: Run) {
		if (this.runs.size == CAPACITY) {
			this.runs.removeFirst()
		}
		this.runs.addLast(run)
	}

	/**
	 * Return the recorded runs, oldest first.
	 */
	@Synchronized
	fun runs(): List<Run> = this.runs.toList()

	/**
	 * One finished run of the demo job on this node.
	 *
	 * @property job the job name
	 * @property node the name of this node
	 * @property slot the cron fire time the run owned, or `null` for a slotless run
	 * @property fencingToken the fencing token of the run's lease
	 * @property sameRunAfterDelay whether the coroutine still saw the same run after it
	 * suspended
	 * @property leaseValid whether the lease was still held when the run ended
	 * @property finishedAt when the run ended
	 */
	data class Run(
		val job: String,
		val node: String,
		val slot: Instant?,
		val fencingToken: Long,
		val sameRunAfterDelay: Boolean,
		val leaseValid: Boolean,
		val finishedAt: Instant,
	)

	private companion object {

		private const val CAPACITY = 1000

	}

}
