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

package io.github.clustersingleton.metrics;

import io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport;

/**
 * {@link AbstractClusterSingletonMetricsTests} on an in-memory H2 database.
 *
 * @author cluster-singleton contributors
 */
class H2ClusterSingletonMetricsTests extends AbstractClusterSingletonMetricsTests {

	private final String url = ClusterSingletonTestSupport.h2Url();

	@Override
	protected String url() {
		return this.url;
	}

}
