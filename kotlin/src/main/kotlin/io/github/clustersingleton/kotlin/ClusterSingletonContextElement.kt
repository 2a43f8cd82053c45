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
import java.time.Instant
import java.util.Optional
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Job
import kotlinx.coroutines.ThreadContextElement

/**
 * The [ClusterSingletonContext] of a guarded run in a coroutine's context. Every
 * coroutine of the run carries it, across suspension points and thread switches, and
 * children started inside the run inherit it: read it with [clusterSingletonContext].
 *
 * While a coroutine of the run executes, the context is also current on its thread, so
 * blocking code called from the coroutine can use [ClusterSingletonContext.current].
 *
 * @property context the context of the run
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
class ClusterSingletonContextElement(
	val context: ClusterSingletonContext,
) : AbstractCoroutineContextElement(Key), ThreadContextElement<ClusterSingletonContext?> {

	/**
	 * The key of [ClusterSingletonContextElement] in a [CoroutineContext].
	 */
	companion object Key : CoroutineContext.Key<ClusterSingletonContextElement>

	// the job of the first coroutine that runs with this element: the guarded function's
	// own coroutine, which the loss of the lease cancels
	private val runJob = AtomicReference<Job?>()

	@Volatile
	private var cancellation: CancellationException? = null

	override fun updateThreadContext(context: CoroutineContext): ClusterSingletonContext? {
		val job = context[Job]
		if (job != null && this.runJob.compareAndSet(null, job)) {
			// the lease may have been lost before the coroutine started
			this.cancellation?.let(job::cancel)
		}
		return ThreadBinding.bindToThread(this.context)
	}

	override fun restoreThreadContext(context: CoroutineContext, oldState: ClusterSingletonContext?) {
		ThreadBinding.restoreOnThread(oldState)
	}

	/**
	 * Cancel the run's coroutine (now, or when it starts).
	 */
	internal fun cancelRun(cause: CancellationException) {
		this.cancellation = cause
		this.runJob.get()?.cancel(cause)
	}

	override fun toString(): String = "ClusterSingletonContextElement(${this.context.jobName()})"

}

/**
 * Reaches the thread binding of [ClusterSingletonContext], which only its subclasses can
 * call. Never bound itself: it is no run's context.
 */
private object ThreadBinding : ClusterSingletonContext() {

	fun bindToThread(context: ClusterSingletonContext): ClusterSingletonContext? = bind(context)

	fun restoreOnThread(previous: ClusterSingletonContext?) = restore(previous)

	override fun jobName(): String = throw UnsupportedOperationException()

	override fun fencingToken(): Long = throw UnsupportedOperationException()

	override fun slot(): Optional<Instant> = throw UnsupportedOperationException()

	override fun isLeaseValid(): Boolean = throw UnsupportedOperationException()

	override fun lossReason(): String? = throw UnsupportedOperationException()

}
