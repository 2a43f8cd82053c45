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
import java.util.List;

import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.redis.RedisReplies.asInstant;
import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.asText;
import static io.github.clustersingleton.redis.RedisReplies.element;
import static io.github.clustersingleton.redis.RedisReplies.millis;

/**
 * A call of {@code quorum-grant.lua}, phase 1 of a quorum acquisition on one member:
 * grant the lease, and tell the job's fence and last slot as the member knows them.
 *
 * @param request the acquisition
 * @param memberTtlMillis how long the member keeps the lease, in milliseconds
 * @author cluster-singleton contributors
 */
record QuorumGrantCall(LeaseRequest request, long memberTtlMillis) implements RedisScriptCall<QuorumGrantCall.Reply> {

	@Override
	public RedisLeaseScript script() {
		return RedisLeaseScript.QUORUM_GRANT;
	}

	@Override
	public List<String> keys(RedisKeys keys) {
		return keys.leaseAndMeta(this.request.jobName());
	}

	@Override
	public List<String> args() {
		return List.of(this.request.owner(), this.request.leaseToken(), Long.toString(this.memberTtlMillis),
				millis(this.request.slot()), Long.toString(this.request.slotTolerance().toMillis()));
	}

	/**
	 * Decode {@code {granted, holder or '', last_slot or '', now, fence}}.
	 */
	@Override
	public Reply decode(List<Object> reply) {
		boolean granted = asLong(element(reply, 0)) == 1;
		String holder = granted ? null : asText(element(reply, 1));
		return new Reply(granted, holder, asInstant(element(reply, 2)), asLong(element(reply, 3)),
				asLong(element(reply, 4)));
	}

	/**
	 * The reply of {@code quorum-grant.lua}.
	 *
	 * @param granted whether the member now holds the lease for this acquisition
	 * @param holder who holds the lease on the member, when not granted
	 * @param lastSlot the job's last slot as the member knows it
	 * @param now the member's clock in epoch milliseconds
	 * @param fence the job's fence as the member knows it
	 */
	record Reply(boolean granted, @Nullable String holder, @Nullable Instant lastSlot, long now, long fence) {

	}

}
