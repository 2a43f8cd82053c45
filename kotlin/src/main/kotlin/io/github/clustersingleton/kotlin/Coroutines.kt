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

@file:JvmName("ClusterSingletonCoroutines")

package io.github.clustersingleton.kotlin

import io.github.clustersingleton.ClusterSingletonContext
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.reactor.ReactorContext

/**
 * Return the [ClusterSingletonContext] of the guarded run this coroutine belongs to: a
 * `@ClusterSingleton` `suspend` function, a block passed to [runIfAcquiredAndAwait] or
 * [callIfAcquiredAndAwait], or a coroutine of a reactive `@ClusterSingleton` method.
 * Use it across suspension points and thread switches instead of
 * [ClusterSingletonContext.current], which only sees the current thread.
 *
 * @return the context of the current run
 * @throws IllegalStateException when the coroutine is not part of a guarded run
 */
suspend fun clusterSingletonContext(): ClusterSingletonContext =
	clusterSingletonContextOrNull() ?: throw IllegalStateException(
		"No cluster-singleton run in this coroutine: clusterSingletonContext() is only available inside a " +
			"@ClusterSingleton suspend function, a block of runIfAcquiredAndAwait or callIfAcquiredAndAwait, " +
			"and the coroutines they start, while this node holds the job's lease",
	)

/**
 * Return the [ClusterSingletonContext] of the guarded run this coroutine belongs to, or
 * `null` outside a guarded run.
 *
 * @return the context of the current run, or `null`
 */
suspend fun clusterSingletonContextOrNull(): ClusterSingletonContext? {
	val coroutineContext = currentCoroutineContext()
	coroutineContext[ClusterSingletonContextElement]?.let { return it.context }
	// a reactive job keeps its run in the Reactor Context, which coroutines awaiting
	// inside its publisher see as their ReactorContext
	val reactorContext = coroutineContext[ReactorContext]?.context ?: return null
	return reactorContext.getOrEmpty<ClusterSingletonContext>(ClusterSingletonContext::class.java).orElse(null)
}
