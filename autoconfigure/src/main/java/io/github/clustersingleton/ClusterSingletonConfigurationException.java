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
 * Thrown at startup when a {@link ClusterSingleton @ClusterSingleton} method or a
 * {@code cluster-singleton.*} property is invalid. The message names the job and the
 * property or annotation attribute at fault.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonConfigurationException extends IllegalStateException {

	/**
	 * Create a new instance.
	 * @param message what is wrong, naming the job and the property
	 */
	public ClusterSingletonConfigurationException(String message) {
		super(message);
	}

	/**
	 * Create a new instance.
	 * @param message what is wrong, naming the job and the property
	 * @param cause the underlying error
	 */
	public ClusterSingletonConfigurationException(String message, Throwable cause) {
		super(message, cause);
	}

}
