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
package io.github.clustersingleton.dashboard;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the cluster-singleton dashboard.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@ConfigurationProperties("cluster-singleton.dashboard")
public class ClusterSingletonDashboardProperties {

	/**
	 * Whether to serve the dashboard page.
	 */
	private boolean enabled = true;

	/**
	 * Path of the dashboard page, below the servlet context path. Its assets are served
	 * below it too.
	 */
	private String path = "/cluster-singleton";

	/**
	 * How often the page reads the clustersingleton endpoint again.
	 */
	private Duration refreshInterval = Duration.ofSeconds(5);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		this.refreshInterval = refreshInterval;
	}

}
