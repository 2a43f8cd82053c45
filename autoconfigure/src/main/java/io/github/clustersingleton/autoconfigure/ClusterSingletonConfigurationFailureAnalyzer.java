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
import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup failure caused by an invalid {@code @ClusterSingleton} method or
 * {@code cluster-singleton.*} property, or by a missing lease store.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonConfigurationFailureAnalyzer
		extends AbstractFailureAnalyzer<ClusterSingletonConfigurationException> {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, ClusterSingletonConfigurationException cause) {
		if (cause instanceof LeaseBackendUnavailableException) {
			return new FailureAnalysis(cause.getMessage(), "Provide a lease store for the @ClusterSingleton jobs, "
					+ "set cluster-singleton.backend to one that is available, or turn cluster-singleton off with "
					+ "cluster-singleton.enabled=false (every node then runs every job).", cause);
		}
		return new FailureAnalysis(cause.getMessage(),
				"Correct the @ClusterSingleton attribute or the cluster-singleton property named above.", cause);
	}

}
