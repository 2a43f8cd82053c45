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
import io.github.clustersingleton.LeaseLostException
import io.github.clustersingleton.lease.ReactiveRun
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.asExecutor
import kotlinx.coroutines.withContext

/**
 * Run [body] under a run whose lease is held: the loss of the lease, or its
 * `lockAtMostFor`, cancels the coroutine that first runs with the run's
 * [ClusterSingletonContextElement] with a [CancellationException] whose cause is the
 * [LeaseLostException]; the run is finished (its lease released) when [body] ends,
 * however it ends.
 */
internal suspend fun <T> guarded(run: ReactiveRun, body: suspend (ClusterSingletonContextElement) -> T): T {
	val element = ClusterSingletonContextElement(run.context())
	run.cancelWith {
		// the watchdog's thread calls this: the cancelled coroutine may resume at once on
		// the cancelling thread and end its run (a store round trip), which must not hold
		// up the watchdog
		Dispatchers.IO.asExecutor().execute { element.cancelRun(leaseLost(run.context())) }
	}
	val result = try {
		body(element)
	}
	catch (ex: Throwable) {
		// a cancellation from outside (the caller's scope, a shutdown) ends the run like
		// a cancelled subscription; the engine judges a run that lost its lease lost
		val failure = if (ex is CancellationException && !run.isLost) null else ex
		withContext(NonCancellable) { run.finish(failure) }
		throw ex
	}
	run.finish(null)
	return result
}

private fun leaseLost(context: ClusterSingletonContext): CancellationException {
	val lost = try {
		context.checkLease()
		LeaseLostException(context.jobName(), context.fencingToken(), "the lease was lost before the coroutine completed")
	}
	catch (ex: LeaseLostException) {
		ex
	}
	return CancellationException("cluster-singleton job '${context.jobName()}' lost its lease: ${lost.message}", lost)
}
