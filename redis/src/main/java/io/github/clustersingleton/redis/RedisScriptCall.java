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

/**
 * One call of a {@link RedisLeaseScript}: builds its {@code KEYS} and {@code ARGV} from
 * named fields, and decodes its reply into named fields. The order of the keys and
 * arguments is the one the script's header documents.
 *
 * @param <R> the decoded reply
 * @author cluster-singleton contributors
 */
interface RedisScriptCall<R> {

	/**
	 * Return the script this call runs.
	 * @return the script
	 */
	RedisLeaseScript script();

	/**
	 * Return the keys of the call ({@code KEYS}).
	 * @param keys the key layout
	 * @return the keys
	 */
	List<String> keys(RedisKeys keys);

	/**
	 * Return the arguments of the call ({@code ARGV}).
	 * @return the arguments
	 */
	List<String> args();

	/**
	 * Decode the script's reply.
	 * @param reply the elements of the reply
	 * @return the decoded reply
	 */
	R decode(List<Object> reply);

	/**
	 * Run the call and decode its reply.
	 * @param executor how the script reaches Redis
	 * @param keys the key layout
	 * @return the decoded reply
	 */
	default R execute(RedisScriptExecutor executor, RedisKeys keys) {
		return decode(executor.execute(script(), keys(keys), args()));
	}

	/**
	 * Run the call and leave its reply unread.
	 * @param executor how the script reaches Redis
	 * @param keys the key layout
	 */
	default void send(RedisScriptExecutor executor, RedisKeys keys) {
		executor.execute(script(), keys(keys), args());
	}

}
