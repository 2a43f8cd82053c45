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

package io.github.clustersingleton;

/**
 * Why a guarded run started: {@link ClusterSingletonContext#trigger()}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public enum RunTrigger {

	/**
	 * The scheduler fired the job for its slot.
	 */
	SCHEDULED,

	/**
	 * A catch-up of cron slots that no node claimed ({@code misfire=run-once} or
	 * {@code run-all}).
	 */
	CATCH_UP,

	/**
	 * Another attempt at a slot whose run died, lost its lease or failed
	 * ({@code recovery=lost} or {@code failed}).
	 */
	RECOVERY,

	/**
	 * Application code called the guarded method or the {@link ClusterSingletonTemplate}.
	 */
	DIRECT,

	/**
	 * An operator asked for a run now (a run-now request through the endpoint, the
	 * dashboard or {@link ClusterSingletonOperations}): one run, without a slot.
	 */
	MANUAL

}
