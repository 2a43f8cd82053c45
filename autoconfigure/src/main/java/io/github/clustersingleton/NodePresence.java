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
package io.github.clustersingleton;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Set;

/**
 * SPI of what a lease store offers for preferred-node routing: which nodes are alive, and
 * which jobs were claimed for a slot. Returned by {@link LeaseBackend#presence()} when
 * the store supports it.
 * <p>
 * With it, the engine lets one node per job claim the job's cron slot at its fire time
 * (the job's preferred node, picked from the live nodes by a hash every node computes
 * alike); the others skip the trigger without a round trip and, a short delay later, ask
 * in one {@link #claimedSince} read which of their skipped jobs were claimed, and claim
 * those that were not with the ordinary {@link LeaseBackend#tryAcquire}. Nothing here
 * decides who runs a slot: the claim does, as without routing, so a wrong or stale view
 * of the live nodes costs at most the sweep's delay, never a second run.
 * <p>
 * Every method may throw any {@link RuntimeException} when the store cannot be reached.
 * Every method is called from several threads and nodes at once.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface NodePresence {

	/**
	 * Write or renew this node's presence entry until {@code ttl} from now (store time),
	 * and return the owners whose entries are live, this one included, in one round trip
	 * where the store allows.
	 * @param owner this node's owner id
	 * @param ttl how long the entry lives without another heartbeat
	 * @return the live owners
	 */
	Set<String> heartbeat(String owner, Duration ttl);

	/**
	 * Remove this node's presence entry, as it shuts down; the other nodes stop routing
	 * jobs to it at their next heartbeat instead of after the entry's TTL.
	 * @param owner this node's owner id
	 */
	void leave(String owner);

	/**
	 * Return which of the given jobs were claimed for {@code slot} or a later slot (their
	 * last claimed slot is at or after it), by one read that takes no lock where the
	 * store allows.
	 * @param jobNames the jobs to look at
	 * @param slot the slot
	 * @return the jobs among {@code jobNames} claimed for {@code slot} or later
	 */
	Set<String> claimedSince(Collection<String> jobNames, Instant slot);

}
