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
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link RedisScriptExecutor} that counts the calls it passes on: the round trips to
 * Redis, for tests that assert how many an operation takes.
 *
 * @author cluster-singleton contributors
 */
class CountingRedisScriptExecutor implements RedisScriptExecutor {

	private final RedisScriptExecutor delegate;

	private final AtomicLong calls = new AtomicLong();

	CountingRedisScriptExecutor(RedisScriptExecutor delegate) {
		this.delegate = delegate;
	}

	long getCount() {
		return this.calls.get();
	}

	void reset() {
		this.calls.set(0);
	}

	@Override
	public List<Object> execute(RedisLeaseScript script, List<String> keys, List<String> args) {
		this.calls.incrementAndGet();
		return this.delegate.execute(script, keys, args);
	}

	/**
	 * Count one round trip for calls the delegate sends together, one per call otherwise.
	 */
	@Override
	public List<Answer> executeAll(RedisLeaseScript script, List<List<String>> keys, List<List<String>> args) {
		this.calls.addAndGet(this.delegate.executesTogether() ? 1 : keys.size());
		return this.delegate.executeAll(script, keys, args);
	}

	@Override
	public boolean executesTogether() {
		return this.delegate.executesTogether();
	}

	@Override
	public void load(RedisLeaseScript script) {
		this.calls.incrementAndGet();
		this.delegate.load(script);
	}

	@Override
	public void ping(String key) {
		this.calls.incrementAndGet();
		this.delegate.ping(key);
	}

	@Override
	public List<String> scan(String pattern) {
		this.calls.incrementAndGet();
		return this.delegate.scan(pattern);
	}

	@Override
	public Map<String, String> getConfig(String parameter) {
		this.calls.incrementAndGet();
		return this.delegate.getConfig(parameter);
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
