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
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.DecoratedRedisConnection;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

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

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisFuture",
			SpringDataRedisScriptExecutor.class.getClassLoader());

	private final StringRedisTemplate template;

	/** Whether script calls can be sent together, once asked. */
	private volatile @Nullable Boolean together;

	private static final long TOGETHER_ASKED_AGAIN_AFTER_NANOS = TimeUnit.MINUTES.toNanos(1);

	/** When (nano time) the server was last asked, for a failed question. */
	private volatile long togetherAskedAt = System.nanoTime() - TOGETHER_ASKED_AGAIN_AFTER_NANOS;

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

	/**
	 * Send the calls' {@code EVALSHA}s together through Lettuce's asynchronous API, all
	 * in flight at once on the client's connection, each with its own answer: the calls
	 * that met {@code NOSCRIPT} (a restarted or flushed server) are sent again one by
	 * one, which loads the script; the others ran, and are not sent again.
	 */
	@Override
	public List<Answer> executeAll(RedisLeaseScript script, List<List<String>> keys, List<List<String>> args) {
		Assert.isTrue(keys.size() == args.size(), "'keys' and 'args' must have the same size");
		if (!executesTogether()) {
			return RedisScriptExecutor.super.executeAll(script, keys, args);
		}
		List<Answer> answers = this.template.execute((RedisCallback<List<Answer>>) (connection) -> LettuceCalls
			.evalShaAll(connection, script.getSha1(), keys, args));
		Assert.state(answers != null && answers.size() == keys.size(), "Redis did not answer every script call");
		List<Answer> complete = new ArrayList<>(answers.size());
		for (int i = 0; i < answers.size(); i++) {
			Answer answer = answers.get(i);
			List<String> callKeys = keys.get(i);
			List<String> callArgs = args.get(i);
			// a call that met NOSCRIPT (a restarted or flushed server) did not run: sent
			// again by itself, which loads the script
			RuntimeException failure = answer.failure();
			complete.add((failure != null && RedisErrors.isNoScript(failure))
					? Answer.of(() -> execute(script, callKeys, callArgs)) : answer);
		}
		return complete;
	}

	/**
	 * Return {@code true} with Lettuce on a connection that is not a Redis Cluster's.
	 */
	@Override
	public boolean executesTogether() {
		Boolean together = this.together;
		if (together == null) {
			long now = System.nanoTime();
			if (now - this.togetherAskedAt < TOGETHER_ASKED_AGAIN_AFTER_NANOS) {
				return false;
			}
			this.togetherAskedAt = now;
			try {
				together = LETTUCE_PRESENT && Boolean.TRUE
					.equals(this.template.execute((RedisCallback<Boolean>) (connection) -> !isCluster(connection)
							&& LettuceCalls.isLettuce(connection)));
			}
			catch (RuntimeException ex) {
				// the server cannot be reached: asked again a minute later at the
				// earliest, not on every trigger
				return false;
			}
			this.together = together;
		}
		return together;
	}

	/**
	 * Whether a connection the template hands out is a Redis Cluster connection, under
	 * the template's own decorations.
	 */
	private static boolean isCluster(RedisConnection connection) {
		RedisConnection unwrapped = connection;
		for (int depth = 0; depth < 8 && unwrapped instanceof DecoratedRedisConnection decorated; depth++) {
			unwrapped = decorated.getDelegate();
		}
		return unwrapped instanceof RedisClusterConnection;
	}

	/**
	 * Send {@code EVALSHA} and {@code WAIT} in one pipeline: a pipeline runs on a
	 * connection of its own (with Lettuce, a dedicated connection instead of the shared
	 * one), so the {@code WAIT} covers the script's writes and blocks nobody else. On
	 * {@code NOSCRIPT} the script is loaded and the pipeline sent again. Not available on
	 * a Redis Cluster connection, which has no pipelines.
	 */
	@Override
	@SuppressWarnings("unchecked")
	public Replicated executeAndWait(RedisLeaseScript script, List<String> keys, List<String> args, int replicas,
			Duration timeout) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.isTrue(replicas > 0, "'replicas' must be positive");
		byte[] sha1 = script.getSha1().getBytes(StandardCharsets.UTF_8);
		List<byte[]> keysAndArgs = new ArrayList<>(keys.size() + args.size());
		keys.forEach((key) -> keysAndArgs.add(key.getBytes(StandardCharsets.UTF_8)));
		args.forEach((arg) -> keysAndArgs.add(arg.getBytes(StandardCharsets.UTF_8)));
		byte[][] params = keysAndArgs.toArray(new byte[0][]);
		byte[] replicaCount = Integer.toString(replicas).getBytes(StandardCharsets.UTF_8);
		byte[] timeoutMillis = Long.toString(Math.max(1, timeout.toMillis())).getBytes(StandardCharsets.UTF_8);
		Object[] waitReply = new Object[1];
		if (Boolean.TRUE
			.equals(this.template.execute((RedisCallback<Boolean>) SpringDataRedisScriptExecutor::isCluster))) {
			throw new UnsupportedOperationException("Spring Data Redis has no pipelines on a Redis Cluster "
					+ "connection, so cluster-singleton cannot send WAIT after its scripts there "
					+ "(cluster-singleton.redis.min-replicas): use a RedissonClient for a Redis Cluster");
		}
		RedisCallback<Object> callback = (connection) -> {
			waitReply[0] = null;
			connection.scriptingCommands().evalSha(sha1, ReturnType.MULTI, keys.size(), params);
			if (LETTUCE_PRESENT && LettuceWait.isLettuce(connection)) {
				// Spring Data reads WAIT's integer reply as bytes with Lettuce: send it
				// natively,
				// on the pipeline's connection, after the script
				// and read its reply before the pipeline ends and gives its connection
				// back
				waitReply[0] = LettuceWait.waitForReplication(connection, replicas, timeout);
			}
			else {
				connection.execute("WAIT", replicaCount, timeoutMillis);
			}
			return null;
		};
		List<Object> results;
		try {
			results = this.template.executePipelined(callback);
		}
		catch (RuntimeException ex) {
			if (!RedisErrors.isNoScript(ex)) {
				throw ex;
			}
			load(script);
			results = this.template.executePipelined(callback);
		}
		Object reply = (results.size() > 0) ? results.get(0) : null;
		Object acknowledged = (waitReply[0] != null) ? waitReply[0] : (results.size() > 1) ? results.get(1) : null;
		return new Replicated((reply instanceof List<?> list) ? (List<Object>) list : List.of(),
				RedisReplies.asLong(acknowledged));
	}

	/**
	 * Script calls sent together through Lettuce's own asynchronous API, kept apart so
	 * that this class loads without Lettuce (with Jedis).
	 */
	private static final class LettuceCalls {

		/** How long at most the calls sent together are waited for. */
		private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(60);

		static boolean isLettuce(RedisConnection connection) {
			return connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?>;
		}

		/**
		 * Send every call before waiting for any answer.
		 */
		@SuppressWarnings("unchecked")
		static List<Answer> evalShaAll(RedisConnection connection, String sha1, List<List<String>> keys,
				List<List<String>> args) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			List<RedisFuture<List<Object>>> calls = new ArrayList<>(keys.size());
			for (int i = 0; i < keys.size(); i++) {
				byte[][] keyBytes = keys.get(i)
					.stream()
					.map((key) -> key.getBytes(StandardCharsets.UTF_8))
					.toArray(byte[][]::new);
				byte[][] argBytes = args.get(i)
					.stream()
					.map((arg) -> arg.getBytes(StandardCharsets.UTF_8))
					.toArray(byte[][]::new);
				calls.add(commands.evalsha(sha1, ScriptOutputType.MULTI, keyBytes, argBytes));
			}
			long deadline = System.nanoTime() + ANSWERED_WITHIN.toNanos();
			List<Answer> answers = new ArrayList<>(calls.size());
			for (RedisFuture<List<Object>> call : calls) {
				try {
					List<Object> reply = call.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
					answers.add(new Answer((reply != null) ? reply : List.of(), null));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					answers.add(new Answer(null,
							new IllegalStateException("Interrupted while waiting for a Redis script call", ex)));
				}
				catch (ExecutionException ex) {
					answers.add(new Answer(null, (ex.getCause() instanceof RuntimeException cause) ? cause
							: new IllegalStateException("Redis script call failed: " + ex.getMessage(), ex)));
				}
				catch (TimeoutException ex) {
					answers.add(new Answer(null, new IllegalStateException(
							"Redis did not answer a script call within " + ANSWERED_WITHIN, ex)));
				}
			}
			return answers;
		}

	}

	/**
	 * {@code WAIT} through Lettuce's own API, kept apart so that this class loads without
	 * Lettuce (with Jedis).
	 */
	private static final class LettuceWait {

		static boolean isLettuce(RedisConnection connection) {
			return connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?>;
		}

		static Object waitForReplication(RedisConnection connection, int replicas, Duration timeout) {
			RedisFuture<Long> future = ((RedisClusterAsyncCommands<?, ?>) connection.getNativeConnection())
				.waitForReplication(replicas, Math.max(1, timeout.toMillis()));
			try {
				return future.get(timeout.toMillis() + 60_000, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while reading the reply of WAIT", ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new IllegalStateException("WAIT failed: " + ex.getMessage(), ex);
			}
		}

	}

	@Override
	public void load(RedisLeaseScript script) {
		byte[] source = script.getSource().getBytes(StandardCharsets.UTF_8);
		String sha1 = this.template
			.execute((RedisCallback<String>) (connection) -> connection.scriptingCommands().scriptLoad(source));
		Assert.state(script.getSha1().equalsIgnoreCase(sha1), () -> "Redis returned SHA-1 " + sha1 + " for "
				+ script.getFileName() + ", expected " + script.getSha1());
	}

	/**
	 * Scan with {@code SCAN}; on a Redis Cluster connection, on every master.
	 */
	@Override
	public List<String> scan(String pattern) {
		Assert.hasText(pattern, "'pattern' must not be empty");
		ScanOptions options = ScanOptions.scanOptions().match(pattern).count(500).build();
		List<String> keys = this.template.execute((RedisCallback<List<String>>) (connection) -> {
			List<String> found = new ArrayList<>();
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						try (Cursor<byte[]> cursor = cluster.scan(node, options)) {
							cursor.forEachRemaining((key) -> found.add(new String(key, StandardCharsets.UTF_8)));
						}
					}
				}
			}
			else {
				try (Cursor<byte[]> cursor = connection.keyCommands().scan(options)) {
					cursor.forEachRemaining((key) -> found.add(new String(key, StandardCharsets.UTF_8)));
				}
			}
			return found;
		});
		return (keys != null) ? keys : List.of();
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
