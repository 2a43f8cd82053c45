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
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import org.springframework.util.Assert;

/**
 * {@link RedisScriptExecutor} over a {@link RedissonClient}: scripts run through
 * {@link RScript#evalSha} with the {@link StringCodec}, in {@link Mode#READ_WRITE
 * read-write mode} (so always on a master, whatever the client's {@code readMode}),
 * routed by their first key. On {@code NOSCRIPT} the script is loaded on the master that
 * answered so (not on every node: a replica that does not answer must not fail the call)
 * and run again.
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
			load(script, keys.get(0));
			return evalSha(script, keyList, values);
		}
	}

	private List<Object> evalSha(RedisLeaseScript script, List<Object> keys, Object[] values) {
		List<Object> result = this.script.evalSha((String) keys.get(0), Mode.READ_WRITE, script.getSha1(),
				ReturnType.LIST, keys, values);
		return (result != null) ? result : List.of();
	}

	/**
	 * Send the calls in one {@link RBatch}, which pipelines them to the one server. On
	 * {@code NOSCRIPT} the script is loaded for the next call and the error thrown: some
	 * calls may have run if another client loaded the script meanwhile, so the batch is
	 * not sent again.
	 */
	@Override
	public List<Answer> executeAll(RedisLeaseScript script, List<List<String>> keys, List<List<String>> args) {
		Assert.isTrue(keys.size() == args.size(), "'keys' and 'args' must have the same size");
		if (!executesTogether()) {
			return RedisScriptExecutor.super.executeAll(script, keys, args);
		}
		RBatch batch = this.redisson.createBatch(BatchOptions.defaults());
		RScriptAsync batchScript = batch.getScript(StringCodec.INSTANCE);
		List<RFuture<List<Object>>> calls = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			Assert.notEmpty(keys.get(i), "'keys' must not be empty");
			calls.add(batchScript.evalShaAsync(keys.get(i).get(0), Mode.READ_WRITE, script.getSha1(), ReturnType.LIST,
					new ArrayList<>(keys.get(i)), args.get(i).toArray()));
		}
		RuntimeException failure = null;
		try {
			batch.execute();
		}
		catch (RuntimeException ex) {
			failure = ex;
		}
		List<Answer> answers = new ArrayList<>(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			CompletableFuture<List<Object>> call = calls.get(i).toCompletableFuture();
			List<String> callKeys = keys.get(i);
			List<String> callArgs = args.get(i);
			if (!call.isDone()) {
				answers.add(new Answer(null,
						(failure != null) ? failure : new IllegalStateException("Redis did not answer a script call")));
				continue;
			}
			try {
				List<Object> reply = call.join();
				answers.add(new Answer((reply != null) ? reply : List.of(), null));
			}
			catch (CompletionException | CancellationException ex) {
				Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
				// a call that met NOSCRIPT itself (a restarted or flushed server) did not
				// run: sent again by itself, which loads the script; a call failed with
				// the
				// batch's own failure may have run, and is left in doubt
				boolean own = failure == null || (cause != failure && cause != failure.getCause())
						|| String.valueOf(cause.getMessage()).contains(callKeys.get(0));
				answers
					.add((own && RedisErrors.isNoScript(cause)) ? Answer.of(() -> execute(script, callKeys, callArgs))
							: new Answer(null, (cause instanceof RuntimeException runtime) ? runtime : ex));
			}
		}
		return answers;
	}

	/**
	 * Return {@code true} unless the client is configured for a Redis Cluster, where a
	 * batch spans several servers.
	 */
	@Override
	public boolean executesTogether() {
		return !this.redisson.getConfig().isClusterConfig();
	}

	/**
	 * Run the script in an {@link RBatch} whose options
	 * {@link BatchOptions#sync(int, Duration) sync} replicas: Redisson sends {@code WAIT}
	 * right after the script, on the same connection to the master that ran it (per
	 * master in a Redis Cluster).
	 */
	@Override
	public Replicated executeAndWait(RedisLeaseScript script, List<String> keys, List<String> args, int replicas,
			Duration timeout) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.isTrue(replicas > 0, "'replicas' must be positive");
		List<Object> keyList = new ArrayList<>(keys);
		Object[] values = args.toArray();
		try {
			return evalShaAndWait(script, keyList, values, replicas, timeout);
		}
		catch (RuntimeException ex) {
			if (!RedisErrors.isNoScript(ex)) {
				throw ex;
			}
			load(script, keys.get(0));
			return evalShaAndWait(script, keyList, values, replicas, timeout);
		}
	}

	@SuppressWarnings("unchecked")
	private Replicated evalShaAndWait(RedisLeaseScript script, List<Object> keys, Object[] values, int replicas,
			Duration timeout) {
		RBatch batch = this.redisson.createBatch(BatchOptions.defaults().sync(replicas, timeout));
		batch.getScript(StringCodec.INSTANCE)
			.evalShaAsync((String) keys.get(0), Mode.READ_WRITE, script.getSha1(), ReturnType.LIST, keys, values);
		BatchResult<?> result = batch.execute();
		Object reply = result.getResponses().isEmpty() ? null : result.getResponses().get(0);
		return new Replicated((reply != null) ? (List<Object>) reply : List.of(), result.getSyncedSlaves());
	}

	/**
	 * Load a script on every node the client knows, replicas included (Redisson's
	 * {@link RScript#scriptLoad(String)}).
	 */
	@Override
	public void load(RedisLeaseScript script) {
		String sha1 = this.script.scriptLoad(script.getSource());
		checkSha1(script, sha1);
	}

	/**
	 * Load a script on the master that serves {@code key}, the one that answered
	 * {@code NOSCRIPT}: loading it on every node would fail, and with it the call, while
	 * any replica anywhere does not answer.
	 */
	private void load(RedisLeaseScript script, String key) {
		String sha1;
		try {
			sha1 = this.script.scriptLoadAsync(key, script.getSource()).toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
		checkSha1(script, sha1);
	}

	private static void checkSha1(RedisLeaseScript script, String sha1) {
		Assert.state(script.getSha1().equalsIgnoreCase(sha1), () -> "Redis returned SHA-1 " + sha1 + " for "
				+ script.getFileName() + ", expected " + script.getSha1());
	}

	@Override
	public List<String> scan(String pattern) {
		Assert.hasText(pattern, "'pattern' must not be empty");
		List<String> keys = new ArrayList<>();
		this.redisson.getKeys().getKeys(KeysScanOptions.defaults().pattern(pattern).chunkSize(500)).forEach(keys::add);
		return keys;
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
