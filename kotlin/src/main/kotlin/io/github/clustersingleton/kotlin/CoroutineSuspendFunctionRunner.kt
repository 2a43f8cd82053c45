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

import io.github.clustersingleton.aop.SuspendFunctionCall
import io.github.clustersingleton.aop.SuspendFunctionRunner
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.Job
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.reactive.awaitFirstOrNull
import kotlinx.coroutines.reactor.mono
import org.reactivestreams.Publisher

/**
 * Runs `@ClusterSingleton` `suspend` functions for the core's interceptor, which finds
 * it through [java.util.ServiceLoader]. What it returns is the `Mono` the function's
 * Spring proxy awaits in the caller's coroutine: subscribing to it takes the job's lease,
 * and when this node gets it, the function runs in a coroutine of its own with the run's
 * [ClusterSingletonContextElement]; when it does not, the `Mono` completes empty without
 * calling the function.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
internal class CoroutineSuspendFunctionRunner : SuspendFunctionRunner {

	override fun run(call: SuspendFunctionCall): Any {
		val caller = (call.continuation() as Continuation<*>).context
		return mono(caller.minusKey(Job)) {
			val run = call.start() ?: return@mono null
			guarded(run) { element ->
				// Spring's AOP infrastructure calls the function in a coroutine of the
				// given continuation's context and hands it back as a publisher
				val function = call.proceed(ContextOnly(currentCoroutineContext().minusKey(Job) + element))
				check(function is Publisher<*>) {
					"Spring did not turn suspend function of cluster-singleton job '${call.jobName()}' into a " +
						"publisher (is kotlin-reflect on the class path?)"
				}
				function.awaitFirstOrNull()
			}
		}
	}

	/**
	 * Carries a coroutine context to Spring, which takes the context of the
	 * continuation a suspend function is called with and never resumes it.
	 */
	private class ContextOnly(override val context: CoroutineContext) : Continuation<Any?> {

		override fun resumeWith(result: Result<Any?>) {
			throw IllegalStateException("Not resumable: only carries a coroutine context")
		}

	}

}
