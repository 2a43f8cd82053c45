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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the Redis quorum (Redlock-style leases on several
 * independent Redis servers).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@ConfigurationProperties("cluster-singleton.redis.quorum")
public class RedisQuorumProperties {

	/**
	 * URLs of the independent Redis servers of the quorum (redis://[:password@]host:port
	 * or rediss:// for TLS): 3 or 5 of them, an odd number of at least 3. When set, the
	 * Redis backend keeps leases on this quorum instead of the application's Redis
	 * client.
	 */
	private List<String> urls = new ArrayList<>();

	/**
	 * Connect and command timeout of each member.
	 */
	private Duration timeout = Duration.ofMillis(500);

	public List<String> getUrls() {
		return this.urls;
	}

	public void setUrls(List<String> urls) {
		this.urls = urls;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

}
