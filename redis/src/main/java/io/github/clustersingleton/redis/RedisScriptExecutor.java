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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Runs the {@link RedisLeaseScript lease scripts} on a Redis client: the only part of the
 * Redis lease backend that depends on the client library. {@link RedisLeaseBackend} holds
 * all of the semantics; an executor is a thin adapter with one round trip per call.
 * <p>
 * Implementations run a script with {@code EVALSHA}, and when the server answers
 * {@code NOSCRIPT} (after a restart, a failover or {@code SCRIPT FLUSH}) they load it and
 * try again, within the same call. They are thread-safe, and throw a
 * {@link RuntimeException} when the server cannot be reached or answers with an error.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 * @see RedissonScriptExecutor
 * @see SpringDataRedisScriptExecutor
 */
public interface RedisScriptExecutor {

	/**
	 * Run a script that returns a Lua table (a Redis array reply).
	 * @param script the script
	 * @param keys the keys the script touches ({@code KEYS}); in a Redis Cluster they
	 * must all hash to one slot, and the call is routed by the first
	 * @param args the arguments ({@code ARGV})
	 * @return the elements of the reply: {@link String}s for bulk replies, {@link Long}s
	 * for integer replies
	 */
	List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args);

	/**
	 * Run a script once per set of keys and arguments, each call as {@link #execute} runs
	 * it, each with its own answer: one after another here; together, all in flight at
	 * once, where {@link #executesTogether()} says so.
	 * @param script the script
	 * @param keys the keys of each call
	 * @param args the arguments of each call
	 * @return the answer of each call, in order: its reply, or why it failed
	 * @since 0.1.0
	 */
	default List<Answer> executeAll(RedisLeaseScript script, List<List<String>> keys, List<List<String>> args) {
		Assert.isTrue(keys.size() == args.size(), "'keys' and 'args' must have the same size");
		List<Answer> answers = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			List<String> callKeys = keys.get(i);
			List<String> callArgs = args.get(i);
			answers.add(Answer.of(() -> execute(script, callKeys, callArgs)));
		}
		return answers;
	}

	/**
	 * The answer of one call of {@link #executeAll}.
	 *
	 * @param reply the call's reply, when it ran
	 * @param failure why the call failed, when it did: it may still have run
	 * @since 0.1.0
	 */
	record Answer(@Nullable List<Object> reply, @Nullable RuntimeException failure) {

		/**
		 * Make a call and keep its answer.
		 * @param call the call
		 * @return the answer
		 */
		public static Answer of(java.util.function.Supplier<List<Object>> call) {
			try {
				return new Answer(call.get(), null);
			}
			catch (RuntimeException ex) {
				return new Answer(null, ex);
			}
		}

	}

	/**
	 * Whether {@link #executeAll} sends its calls in one pipeline, one round trip to a
	 * single Redis server.
	 * @return {@code false} unless overridden
	 * @since 0.1.0
	 */
	default boolean executesTogether() {
		return false;
	}

	/**
	 * Run a script that returns a Lua table, then wait ({@code WAIT}) until
	 * {@code replicas} replicas of the master that ran it acknowledged its writes, or
	 * {@code timeout} passed. The {@code WAIT} goes over the connection that sent the
	 * script, right after it, so that it covers the script's writes and blocks no other
	 * caller.
	 * @param script the script
	 * @param keys the keys the script touches, as for {@link #execute}
	 * @param args the arguments ({@code ARGV})
	 * @param replicas the number of replicas to wait for (at least 1)
	 * @param timeout the longest wait
	 * @return the script's reply and the number of replicas that acknowledged
	 * @throws UnsupportedOperationException when this client cannot send {@code WAIT} on
	 * the script's connection
	 * @since 0.1.0
	 */
	default Replicated executeAndWait(RedisLeaseScript script, List<String> keys, List<String> args, int replicas,
			Duration timeout) {
		throw new UnsupportedOperationException(
				this + " cannot wait for Redis replicas " + "(cluster-singleton.redis.min-replicas)");
	}

	/**
	 * The reply of a script followed by {@code WAIT}.
	 *
	 * @param reply the elements of the script's reply, as {@link #execute} returns them
	 * @param acknowledged the number of replicas that acknowledged the script's writes
	 * @since 0.1.0
	 */
	record Replicated(List<Object> reply, long acknowledged) {

	}

	/**
	 * Load a script into the server's script cache ({@code SCRIPT LOAD}), on every master
	 * where the client knows several.
	 * @param script the script
	 */
	void load(RedisLeaseScript script);

	/**
	 * Run the cheapest command that shows the server answers ({@code EXISTS key}).
	 * @param key a key, which decides the node in a Redis Cluster
	 */
	void ping(String key);

	/**
	 * Read a server configuration parameter ({@code CONFIG GET}) of every master the
	 * client knows. Managed services often disable {@code CONFIG}: callers must tolerate
	 * an exception.
	 * @param parameter the parameter name
	 * @return the values, keyed by the parameter name, prefixed by the node where the
	 * client reports several
	 */
	Map<String, String> getConfig(String parameter);

	/**
	 * Return the keys that match a pattern ({@code SCAN} with {@code MATCH}), on every
	 * master where the client knows several. Used by the controls of every job, which are
	 * rare operator actions.
	 * @param pattern the glob-style pattern
	 * @return the keys, possibly with duplicates
	 * @throws UnsupportedOperationException when this executor cannot scan
	 * @since 0.1.0
	 */
	default List<String> scan(String pattern) {
		throw new UnsupportedOperationException(
				this + " cannot scan Redis keys, which the pause and resume of " + "every job need");
	}

}
