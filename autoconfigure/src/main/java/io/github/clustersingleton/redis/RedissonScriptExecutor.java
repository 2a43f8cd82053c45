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

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import org.springframework.util.Assert;

/**
 * {@link RedisScriptExecutor} over a {@link RedissonClient}: scripts run through
 * {@link RScript#evalSha} with the {@link StringCodec}, in {@link Mode#READ_WRITE
 * read-write mode} (so always on a master, whatever the client's {@code readMode}),
 * routed by their first key. On {@code NOSCRIPT} the script is loaded with
 * {@link RScript#scriptLoad} (on every master) and run again.
 * <p>
 * Timeouts and retries are the client's ({@code timeout}, {@code retryAttempts},
 * {@code retryDelay}): keep their product well below the lease TTL.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class RedissonScriptExecutor implements RedisScriptExecutor {

	private final RedissonClient redisson;

	private final RScript script;

	/**
	 * Create a new instance.
	 * @param redisson the client
	 */
	public RedissonScriptExecutor(RedissonClient redisson) {
		Assert.notNull(redisson, "'redisson' must not be null");
		this.redisson = redisson;
		this.script = redisson.getScript(StringCodec.INSTANCE);
	}

	@Override
	public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		List<Object> keyList = new ArrayList<>(keys);
		Object[] values = args.toArray();
		try {
			return evalSha(script, keyList, values);
		}
		catch (RuntimeException ex) {
			if (!RedisErrors.isNoScript(ex)) {
				throw ex;
			}
			load(script);
			return evalSha(script, keyList, values);
		}
	}

	private List<Object> evalSha(RedisLeaseScript script, List<Object> keys, Object[] values) {
		List<Object> result = this.script.evalSha((String) keys.get(0), Mode.READ_WRITE, script.getSha1(),
				ReturnType.LIST, keys, values);
		return (result != null) ? result : List.of();
	}

	@Override
	public void load(RedisLeaseScript script) {
		String sha1 = this.script.scriptLoad(script.getSource());
		Assert.state(script.getSha1().equalsIgnoreCase(sha1), () -> "Redis returned SHA-1 " + sha1 + " for "
				+ script.getFileName() + ", expected " + script.getSha1());
	}

	@Override
	public void ping(String key) {
		this.redisson.getKeys().countExists(key);
	}

	@Override
	public Map<String, String> getConfig(String parameter) {
		Map<String, String> values = new LinkedHashMap<>();
		Collection<? extends RedisNode> masters = masters();
		for (RedisNode master : masters) {
			String prefix = (masters.size() > 1) ? master.getAddr() + "." : "";
			master.getConfig(parameter).forEach((name, value) -> values.put(prefix + name, value));
		}
		return values;
	}

	private Collection<? extends RedisNode> masters() {
		Config config = this.redisson.getConfig();
		if (config.isClusterConfig()) {
			return this.redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters();
		}
		if (config.isSentinelConfig()) {
			return List.of(this.redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster());
		}
		if (config.isSingleConfig()) {
			return List.of(this.redisson.getRedisNodes(RedisNodes.SINGLE).getInstance());
		}
		return List.of(this.redisson.getRedisNodes(RedisNodes.MASTER_SLAVE).getMaster());
	}

	@Override
	public String toString() {
		return "Redisson";
	}

}
