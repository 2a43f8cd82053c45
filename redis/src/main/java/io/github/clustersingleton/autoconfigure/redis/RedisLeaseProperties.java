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

package io.github.clustersingleton.autoconfigure.redis;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the Redis lease backend.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@ConfigurationProperties("cluster-singleton.redis")
public class RedisLeaseProperties {

	/**
	 * Prefix of the Redis keys: each job has '{<prefix>:<name>}:lease',
	 * '{<prefix>:<name>}:meta' and '{<prefix>:<name>}:runs'. Must not contain braces.
	 */
	private String keyPrefix = "cluster-singleton";

	/**
	 * Number of replicas that must acknowledge (WAIT) every acquisition, fencing-token
	 * raise, renewal and recorded end of a run before it counts; an acquisition they do
	 * not acknowledge within min(lease-ttl / 4, 1s) is released and skipped, the end of a
	 * run is sent again. 0 waits for none.
	 */
	private int minReplicas;

	public int getMinReplicas() {
		return this.minReplicas;
	}

	public void setMinReplicas(int minReplicas) {
		this.minReplicas = minReplicas;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

}
