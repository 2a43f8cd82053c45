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

import java.util.List;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code node-leave.lua}: remove this node's presence entry.
 *
 * @param owner this node's owner id
 * @author cluster-singleton contributors
 */
record NodeLeaveCall(String owner) implements RedisScriptCall<Boolean> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.NODE_LEAVE;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return List.of(keys.nodes());
	}

	@Override
	public List<String> args() {
		return List.of(this.owner);
	}

	/**
	 * Decode {@code {removed}}.
	 */
	@Override
	public Boolean decode(List<Object> reply) {
		return asLong(element(reply, 0)) > 0;
	}

}
