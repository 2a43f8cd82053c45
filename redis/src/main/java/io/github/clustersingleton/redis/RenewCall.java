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

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.HeldLease;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.asTime;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A call of {@code renew.lua}: extend the given leases (of one call's worth, distinct
 * tokens) that still carry their tokens.
 *
 * @param leases the leases, whose positions the reply names
 * @param ttlMillis the TTL in milliseconds
 * @author cluster-singleton contributors
 */
record RenewCall(List<HeldLease> leases, long ttlMillis) implements RedisScriptCall<RenewCall.Reply> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.RENEW;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return this.leases.stream().map((lease) -> keys.lease(lease.jobName())).toList();
	}

	@Override
	public List<String> args() {
		List<String> args = new ArrayList<>(this.leases.size() + 1);
		args.add(Long.toString(this.ttlMillis));
		for (HeldLease lease : this.leases) {
			args.add(lease.leaseToken());
		}
		return args;
	}

	/**
	 * Decode the server's clock followed by the (1-based) positions of the renewed
	 * leases.
	 */
	@Override
	public Reply decode(List<Object> reply) {
		Set<String> renewed = new HashSet<>();
		int count = 0;
		for (Object position : reply.subList(Math.min(1, reply.size()), reply.size())) {
			renewed.add(this.leases.get((int) asLong(position) - 1).leaseToken());
			count++;
		}
		return new Reply(asTime(element(reply, 0)), renewed, count);
	}

	/**
	 * The reply of {@code renew.lua}.
	 *
	 * @param storeTime the server's clock
	 * @param renewed the tokens of the renewed leases
	 * @param count how many positions the reply named
	 */
	record Reply(@Nullable Instant storeTime, Set<String> renewed, int count) {

	}

}
