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

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.SocketOptions;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lease backend contract and Redis tests through Spring Data Redis on Lettuce.
 *
 * @author cluster-singleton contributors
 */
class LettuceRedisLeaseBackendTests extends AbstractRedisLeaseBackendTests {

	@Override
	protected RedisScriptExecutor createExecutor(String host, int port, Duration timeout) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(timeout)
			.clientOptions(ClientOptions.builder()
				.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
				.build())
			.build();
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host, port), client);
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		closeAfterAll(connectionFactory::destroy);
		return new SpringDataRedisScriptExecutor(connectionFactory);
	}

	@Override
	protected RuntimeException serverError(String message) {
		return new RedisSystemException("Error in execution", new RedisCommandExecutionException(message));
	}

}
