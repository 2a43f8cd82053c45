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

import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * {@link RedisScriptExecutor} over Spring Data Redis: scripts run through a
 * {@link StringRedisTemplate} as {@link DefaultRedisScript}s, whose executor sends
 * {@code EVALSHA} and falls back to {@code EVAL} (which also caches the script) on
 * {@code NOSCRIPT}. Works with any {@link RedisConnectionFactory}: Lettuce (Boot's
 * default), Jedis, or Redisson's {@code RedissonConnectionFactory}; standalone, Sentinel
 * or Cluster.
 * <p>
 * Timeouts are the connection factory's ({@code spring.data.redis.timeout}, 60 seconds by
 * default with Lettuce): keep them well below the lease TTL.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class SpringDataRedisScriptExecutor implements RedisScriptExecutor {

	private final StringRedisTemplate template;

	@SuppressWarnings("rawtypes")
	private final Map<RedisLeaseScript, RedisScript<List>> scripts = new EnumMap<>(RedisLeaseScript.class);

	/**
	 * Create a new instance.
	 * @param connectionFactory the connection factory
	 */
	public SpringDataRedisScriptExecutor(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		this.template = new StringRedisTemplate(connectionFactory);
		for (RedisLeaseScript script : RedisLeaseScript.values()) {
			this.scripts.put(script, new DefaultRedisScript<>(script.getSource(), List.class));
		}
	}

	@Override
	@SuppressWarnings("unchecked")
	public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		List<Object> result = this.template.execute(this.scripts.get(script), keys, args.toArray());
		return (result != null) ? result : List.of();
	}

	@Override
	public void load(RedisLeaseScript script) {
		byte[] source = script.getSource().getBytes(StandardCharsets.UTF_8);
		String sha1 = this.template
			.execute((RedisCallback<String>) (connection) -> connection.scriptingCommands().scriptLoad(source));
		Assert.state(script.getSha1().equalsIgnoreCase(sha1), () -> "Redis returned SHA-1 " + sha1 + " for "
				+ script.getFileName() + ", expected " + script.getSha1());
	}

	@Override
	public void ping(String key) {
		this.template.hasKey(key);
	}

	@Override
	public Map<String, String> getConfig(String parameter) {
		Properties properties = this.template
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().getConfig(parameter));
		Map<String, String> values = new LinkedHashMap<>();
		if (properties != null) {
			properties.stringPropertyNames().forEach((name) -> values.put(name, properties.getProperty(name)));
		}
		return values;
	}

	@Override
	public String toString() {
		return "Spring Data Redis (" + this.template.getRequiredConnectionFactory().getClass().getSimpleName() + ")";
	}

}
