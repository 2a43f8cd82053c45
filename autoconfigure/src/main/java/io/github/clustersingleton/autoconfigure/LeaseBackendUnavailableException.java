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

package io.github.clustersingleton.autoconfigure;

import io.github.clustersingleton.ClusterSingletonConfigurationException;

/**
 * Thrown at startup when {@code @ClusterSingleton} methods exist but no lease store can
 * be chosen: none is available, several are and {@code cluster-singleton.backend} does
 * not choose, or the chosen one is missing.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class LeaseBackendUnavailableException extends ClusterSingletonConfigurationException {

	/**
	 * Create a new instance.
	 * @param message what is missing or ambiguous
	 */
	public LeaseBackendUnavailableException(String message) {
		super(message);
	}

}
