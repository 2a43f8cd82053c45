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

@file:JvmName("ClusterSingletonTemplateExtensions")

package io.github.clustersingleton.kotlin

import io.github.clustersingleton.ClusterSingletonTemplate
import io.github.clustersingleton.ClusterSingletonTemplate.Job
import io.github.clustersingleton.aop.DefaultClusterSingletonTemplate
import io.github.clustersingleton.aop.UnguardedClusterSingletonTemplate
import java.util.concurrent.Callable
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext

/**
 * Run a suspending [block] if this node gets the lease of the job of the given name: the
 * suspending counterpart of [ClusterSingletonTemplate.runIfAcquired].
 *
 * @param name the job name
 * @param block the work, which reads its run with [clusterSingletonContext]
 * @return whether the block ran
 * @see runIfAcquiredAndAwait
 */
suspend fun ClusterSingletonTemplate.runIfAcquiredAndAwait(name: String, block: suspend () -> Unit): Boolean =
	runIfAcquiredAndAwait(ClusterSingletonTemplate.job(name), block)

/**
 * Run a suspending [block] if this node gets the job's lease: the suspending counterpart
 * of [ClusterSingletonTemplate.runIfAcquired]. The lease is taken before the block
 * starts, renewed while it is suspended and released when it ends. When the lease is lost
 * or the job's `lockAtMostFor` passes, the block is cancelled with a
 * [kotlinx.coroutines.CancellationException] whose cause is the
 * [io.github.clustersingleton.LeaseLostException], and this function throws it.
 *
 * @param job the job
 * @param block the work, which reads its run with [clusterSingletonContext]
 * @return whether the block ran
 */
suspend fun ClusterSingletonTemplate.runIfAcquiredAndAwait(job: Job, block: suspend () -> Unit): Boolean =
	callGuarded(job) { block() } != null

/**
 * Call a suspending [block] if this node gets the lease of the job of the given name: the
 * suspending counterpart of [ClusterSingletonTemplate.callIfAcquired].
 *
 * @param name the job name
 * @param block the work, which reads its run with [clusterSingletonContext]
 * @return the block's result, or `null` when it did not run (or returned `null`)
 * @see callIfAcquiredAndAwait
 */
suspend fun <T> ClusterSingletonTemplate.callIfAcquiredAndAwait(name: String, block: suspend () -> T): T? =
	callIfAcquiredAndAwait(ClusterSingletonTemplate.job(name), block)

/**
 * Call a suspending [block] if this node gets the job's lease: the suspending counterpart
 * of [ClusterSingletonTemplate.callIfAcquired], with the same lease handling as
 * [runIfAcquiredAndAwait].
 *
 * @param job the job
 * @param block the work, which reads its run with [clusterSingletonContext]
 * @return the block's result, or `null` when it did not run (or returned `null`)
 */
suspend fun <T> ClusterSingletonTemplate.callIfAcquiredAndAwait(job: Job, block: suspend () -> T): T? =
	callGuarded(job) { Ran(block()) }?.value

/**
 * The result of a block that ran, told apart from one that did not run.
 */
private class Ran<T>(val value: T)

private suspend fun <T : Any> ClusterSingletonTemplate.callGuarded(job: Job, block: suspend () -> T): T? =
	when (this) {
		is DefaultClusterSingletonTemplate -> {
			// the lease is taken on a thread that may block, like every store round trip
			val run = runInterruptible(Dispatchers.IO) { startRun(job) } ?: return null
			guarded(run) { element -> withContext(element) { block() } }
		}
		// cluster-singleton is off: every block runs, as annotated methods do
		is UnguardedClusterSingletonTemplate -> block()
		else -> {
			// another implementation (a test double, say) only offers the blocking API
			val caller = currentCoroutineContext()
			var result: T? = null
			runInterruptible(Dispatchers.IO) {
				callIfAcquired(job, Callable { runBlocking(caller.minusKey(kotlinx.coroutines.Job)) { block() }.also { result = it } })
			}
			result
		}
	}
