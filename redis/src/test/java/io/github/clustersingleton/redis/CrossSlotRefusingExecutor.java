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
import java.util.Map;
import java.util.function.Function;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.cluster.SlotHash;

/**
 * The real executor, refusing calls whose keys span several hash slots as a Redis Cluster
 * does ({@code CROSSSLOT}), and counting the calls and the refusals; it can also fail the
 * calls of one hash slot, or all, as a Cluster whose nodes do not answer.
 *
 * @author cluster-singleton contributors
 */
final class CrossSlotRefusingExecutor implements RedisScriptExecutor {

	final AtomicLong calls = new AtomicLong();

	final AtomicLong refused = new AtomicLong();

	/** A hash slot whose node does not answer, or -1. */
	volatile int failingSlot = -1;

	/** Whether no node answers. */
	volatile boolean failAll;

	private final RedisScriptExecutor delegate;

	private final Function<String, RuntimeException> serverError;

	CrossSlotRefusingExecutor(RedisScriptExecutor delegate) {
		this(delegate, IllegalStateException::new);
	}

	/**
	 * Create an executor whose refusals are the given client's errors.
	 * @param delegate the real executor
	 * @param serverError the client's exception for an error reply
	 */
	CrossSlotRefusingExecutor(RedisScriptExecutor delegate, Function<String, RuntimeException> serverError) {
		this.delegate = delegate;
		this.serverError = serverError;
	}

	@Override
	public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
		this.calls.incrementAndGet();
		if (keys.stream().map(SlotHash::getSlot).distinct().count() > 1) {
			this.refused.incrementAndGet();
			throw this.serverError.apply("CROSSSLOT Keys in request don't hash to the same slot");
		}
		if (this.failAll || (!keys.isEmpty() && SlotHash.getSlot(keys.get(0)) == this.failingSlot)) {
			throw new IllegalStateException("shard down (simulated)");
		}
		return this.delegate.execute(script, keys, args);
	}

	@Override
	public void load(RedisLeaseScript script) {
		this.delegate.load(script);
	}

	@Override
	public void ping(String key) {
		this.delegate.ping(key);
	}

	@Override
	public Map<String, String> getConfig(String parameter) {
		return this.delegate.getConfig(parameter);
	}

	@Override
	public List<String> scan(String pattern) {
		return this.delegate.scan(pattern);
	}

}
