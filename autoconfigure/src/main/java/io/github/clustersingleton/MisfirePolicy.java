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
 * What happens to the cron slots of a job that no node claimed: every node was down at
 * the fire time, the store could not be reached, or a trigger fired so late that the next
 * one came first.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public enum MisfirePolicy {

	/**
	 * Missed slots stay missed; the job runs again at its next trigger.
	 */
	SKIP,

	/**
	 * One catch-up run stands for all missed slots: its
	 * {@link ClusterSingletonContext#slot() slot} is the latest missed one and
	 * {@link ClusterSingletonContext#missedSlots()} lists the others.
	 */
	RUN_ONCE,

	/**
	 * Each missed slot runs once, oldest first, at most {@code misfire-limit} of them
	 * (the newest); older ones are skipped with a warning.
	 */
	RUN_ALL

}
