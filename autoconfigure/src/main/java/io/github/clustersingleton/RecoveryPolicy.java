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
 * Whether a slot whose run did not end well is run again, on any live node, with the same
 * slot and a higher fencing token, up to {@code max-attempts} attempts.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public enum RecoveryPolicy {

	/**
	 * A slot runs at most once; a run that dies or fails is not repeated.
	 */
	NONE,

	/**
	 * A run that died with its node, or lost its lease before it ended, is run again.
	 */
	LOST,

	/**
	 * As {@link #LOST}, and a run that threw is run again after {@code retry-delay}.
	 */
	FAILED

}
