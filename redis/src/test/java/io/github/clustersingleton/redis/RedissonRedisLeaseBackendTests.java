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

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.config.Config;

/**
 * Lease backend contract and Redis tests through a {@link RedissonClient}.
 *
 * @author cluster-singleton contributors
 */
class RedissonRedisLeaseBackendTests extends AbstractRedisLeaseBackendTests {

	@Override
	protected RedisScriptExecutor createExecutor(String host, int port, Duration timeout) {
		Config config = new Config();
		config.setLazyInitialization(true);
		config.setNettyThreads(4);
		config.useSingleServer()
			.setAddress("redis://" + host + ":" + port)
			.setConnectTimeout((int) timeout.toMillis())
			.setTimeout((int) timeout.toMillis())
			.setRetryAttempts(0)
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(16)
			.setSubscriptionConnectionMinimumIdleSize(0);
		RedissonClient redisson = Redisson.create(config);
		closeAfterAll(redisson::shutdown);
		return new RedissonScriptExecutor(redisson);
	}

	@Override
	protected RuntimeException serverError(String message) {
		return new RedisException(message);
	}

}
