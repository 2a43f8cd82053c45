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

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What {@code INFO commandstats} says a Redis server ran, command by command, including
 * the commands run inside scripts.
 *
 * @author cluster-singleton contributors
 */
final class RedisCommandStats {

	private RedisCommandStats() {
	}

	/**
	 * Return the commands run by the server since {@code INFO commandstats} answered
	 * {@code before}, by name.
	 * @param before the earlier answer
	 * @param after the later answer
	 * @return the calls of each command run in between
	 */
	static Map<String, Long> difference(Map<String, Long> before, Map<String, Long> after) {
		Map<String, Long> used = new TreeMap<>();
		after.forEach((command, calls) -> {
			long delta = calls - before.getOrDefault(command, 0L);
			if (delta > 0) {
				used.put(command, delta);
			}
		});
		return used;
	}

	/**
	 * Return the commands run inside scripts: without the calls of the scripts
	 * themselves, and the clients' and the test's own commands.
	 * @param used the commands run
	 * @return those run inside scripts
	 */
	static Map<String, Long> insideScripts(Map<String, Long> used) {
		Map<String, Long> inside = new TreeMap<>(used);
		inside.keySet()
			.removeIf((command) -> command.startsWith("eval") || command.startsWith("script") || command.equals("info")
					|| command.equals("ping") || command.startsWith("client") || command.equals("hello")
					|| command.startsWith("config"));
		return inside;
	}

	/**
	 * Return the calls of every command the server has run, from
	 * {@code INFO commandstats}.
	 * @param admin a connection to the server
	 * @return the calls by command name (lower case, subcommands as {@code config|get})
	 */
	static Map<String, Long> read(StringRedisTemplate admin) {
		Properties info = admin
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		Map<String, Long> calls = new TreeMap<>();
		info.forEach((key, value) -> {
			String name = key.toString();
			if (name.startsWith("cmdstat_")) {
				String stats = value.toString();
				int from = stats.indexOf("calls=") + "calls=".length();
				int to = stats.indexOf(',', from);
				calls.put(name.substring("cmdstat_".length()), Long.parseLong(stats.substring(from, to)));
			}
		});
		return calls;
	}

}
