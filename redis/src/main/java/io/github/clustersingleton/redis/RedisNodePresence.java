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
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.NodePresence;

import org.springframework.util.Assert;

/**
 * {@link NodePresence} of the {@link RedisLeaseBackend}: the live nodes in one sorted
 * set, {@code <prefix>:nodes}, scored by each entry's expiry on the server's clock; and
 * the sweep's read of the jobs' last claimed slots, from the claims index
 * {@code <prefix>:claims} that every first claim of a slot updates (one script call), or
 * in a Redis Cluster from the jobs' meta hashes (one call per hash slot).
 *
 * @author cluster-singleton contributors
 */
final class RedisNodePresence implements NodePresence {

	private final RedisScriptExecutor executor;

	private final RedisKeys keys;

	private final ClusterSlotGrouping grouping;

	RedisNodePresence(RedisScriptExecutor executor, RedisKeys keys, ClusterSlotGrouping grouping) {
		this.executor = executor;
		this.keys = keys;
		this.grouping = grouping;
	}

	@Override
	public Set<String> heartbeat(String owner, Duration ttl) {
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		return new NodeHeartbeatCall(owner, ttl).execute(this.executor, this.keys);
	}

	@Override
	public void leave(String owner) {
		Assert.hasText(owner, "'owner' must not be empty");
		new NodeLeaveCall(owner).send(this.executor, this.keys);
	}

	/**
	 * Read which jobs were claimed for the slot or later: outside a Redis Cluster from
	 * the claims index, one {@code ZMSCORE} in one call for all jobs (per 1000 jobs); in
	 * a Redis Cluster, where the first such call is refused ({@code CROSSSLOT}), from the
	 * jobs' meta hashes, one call per hash slot.
	 */
	@Override
	public Set<String> claimedSince(Collection<String> jobNames, Instant slot) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		List<String> names = jobNames.stream().distinct().toList();
		Set<String> claimed = new HashSet<>();
		if (names.isEmpty()) {
			return claimed;
		}
		if (!this.grouping.perSlot() && this.grouping.claimsIndex()) {
			try {
				for (List<String> chunk : ClusterSlotGrouping.chunks(names)) {
					claimed.addAll(new ClaimedSinceCall(chunk, slot, true).execute(this.executor, this.keys));
				}
				return claimed;
			}
			catch (RuntimeException ex) {
				if (RedisErrors.isNoPermission(ex)) {
					// an ACL without the index's key: each job is read instead
					this.grouping.noClaimsIndex();
				}
				else if (RedisErrors.isCrossSlot(ex)) {
					// refused before the script ran: a Redis Cluster, which has no index
					this.grouping.crossSlot();
				}
				else {
					throw ex;
				}
				claimed.clear();
			}
		}
		this.grouping.forEachGroup(names,
				(group) -> claimed.addAll(new ClaimedSinceCall(group, slot, false).execute(this.executor, this.keys)),
				false);
		return claimed;
	}

}
