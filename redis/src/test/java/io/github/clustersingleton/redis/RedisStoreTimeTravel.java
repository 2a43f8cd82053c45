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

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import io.github.clustersingleton.contract.StoreTimeTravel;

/**
 * {@link StoreTimeTravel} for the Redis backends: one script per server moves the job's
 * stored times back. The lease hash's {@code acquired_at} and the key's time to live move
 * together (a time to live that runs out deletes the key, as its expiry would); the meta
 * hash's {@code recover_at} and {@code retry_at} move too. Owner, tokens, slots, run
 * fields and fence stay as they are, and the backend's scripts then judge the keys by the
 * server's clock, as in production.
 *
 * @author cluster-singleton contributors
 */
final class RedisStoreTimeTravel implements StoreTimeTravel {

	/**
	 * KEYS[1] the lease hash, KEYS[2] the meta hash, ARGV[1] the milliseconds to move
	 * back. A non-positive time to live for PEXPIRE deletes the key.
	 */
	static final String SCRIPT = """
			local back = tonumber(ARGV[1])
			local pttl = redis.call('PTTL', KEYS[1])
			if pttl >= 0 then
			  local acquired = redis.call('HGET', KEYS[1], 'acquired_at')
			  if acquired then
			    redis.call('HSET', KEYS[1], 'acquired_at', string.format('%.0f', tonumber(acquired) - back))
			  end
			  redis.call('PEXPIRE', KEYS[1], pttl - back)
			end
			for _, field in ipairs({'recover_at', 'retry_at'}) do
			  local at = redis.call('HGET', KEYS[2], field)
			  if at then
			    redis.call('HSET', KEYS[2], field, string.format('%.0f', tonumber(at) - back))
			  end
			end
			return pttl
			""";

	private final RedisLeaseBackend keys;

	private final Function<String, List<Integer>> servers;

	/**
	 * Create a new instance.
	 * @param keys a backend with the key prefix of the backend under test, for the keys'
	 * names
	 * @param servers the ports of the servers (on the loopback address) that keep a lease
	 * key, each one's keys moved back in one script
	 */
	RedisStoreTimeTravel(RedisLeaseBackend keys, Function<String, List<Integer>> servers) {
		this.keys = keys;
		this.servers = servers;
	}

	@Override
	public void elapse(String jobName, Duration duration) {
		String leaseKey = this.keys.leaseKey(jobName);
		for (int port : this.servers.apply(leaseKey)) {
			try {
				String reply = RedisProcesses.command(port, "EVAL", SCRIPT, "2", leaseKey, this.keys.metaKey(jobName),
						Long.toString(duration.toMillis()));
				Long.parseLong(reply);
			}
			catch (IOException | NumberFormatException ex) {
				throw new IllegalStateException(
						"Failed to move the stored times of job '" + jobName + "' back on port " + port, ex);
			}
		}
	}

}
