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

package io.github.clustersingleton.redis;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.github.clustersingleton.redis.RedisReplies.asText;

/**
 * A call of {@code node-heartbeat.lua}: renew this node's presence entry and read the
 * live owners.
 *
 * @param owner this node's owner id
 * @param ttl how long the entry lives
 * @author cluster-singleton contributors
 */
record NodeHeartbeatCall(String owner, Duration ttl) implements RedisScriptCall<Set<String>> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.NODE_HEARTBEAT;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.nodes());
	}

	@Override
	public List<String> args() {
		return List.of(this.owner, Long.toString(this.ttl.toMillis()));
	}

	/**
	 * Decode the live owners.
	 */
	@Override
	public Set<String> decode(List<Object> reply) {
		Set<String> owners = new HashSet<>();
		for (Object owner : reply) {
			String text = asText(owner);
			if (text != null) {
				owners.add(text);
			}
		}
		return owners;
	}

}
