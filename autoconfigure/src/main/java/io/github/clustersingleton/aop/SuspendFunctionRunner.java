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

package io.github.clustersingleton.aop;

/**
 * Runs the calls of {@link io.github.clustersingleton.ClusterSingleton @ClusterSingleton}
 * Kotlin {@code suspend} functions. The {@code cluster-singleton-kotlin} module provides
 * the implementation, found through {@link java.util.ServiceLoader}; without one on the
 * class path, a guarded {@code suspend} function is refused at startup. Not meant to be
 * implemented by applications.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface SuspendFunctionRunner {

	/**
	 * Guard one call of a {@code suspend} function: take the job's lease when the
	 * returned publisher is subscribed to, run the function under it, and release it when
	 * the function ends.
	 * @param call the call
	 * @return what the proxy of the function awaits in the caller's coroutine: a
	 * {@code Mono} that completes empty when this node did not get the lease
	 */
	Object run(SuspendFunctionCall call);

}
