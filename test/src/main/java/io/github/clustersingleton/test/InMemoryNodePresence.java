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
package io.github.clustersingleton.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import io.github.clustersingleton.NodePresence;

import org.springframework.util.Assert;

/**
 * {@link NodePresence} of the {@link InMemoryLeaseBackend}: each node's presence entry,
 * and the last claimed slots, read under the store's lock.
 *
 * @author cluster-singleton contributors
 */
final class InMemoryNodePresence implements NodePresence {

	private final ReentrantLock lock;

	private final Runnable enter;

	private final Clock clock;

	private final Map<String, StoredLease> leases;

	private final Map<String, Instant> nodes = new HashMap<>();

	InMemoryNodePresence(ReentrantLock lock, Runnable enter, Clock clock, Map<String, StoredLease> leases) {
		this.lock = lock;
		this.enter = enter;
		this.clock = clock;
		this.leases = leases;
	}

	@Override
	public Set<String> heartbeat(String owner, Duration ttl) {
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		this.enter.run();
		this.lock.lock();
		try {
			Instant now = this.clock.instant();
			this.nodes.put(owner, now.plus(ttl));
			this.nodes.values().removeIf((expiresAt) -> !expiresAt.isAfter(now));
			return Set.copyOf(this.nodes.keySet());
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void leave(String owner) {
		Assert.hasText(owner, "'owner' must not be empty");
		this.enter.run();
		this.lock.lock();
		try {
			this.nodes.remove(owner);
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public Set<String> claimedSince(Collection<String> jobNames, Instant slot) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		this.enter.run();
		this.lock.lock();
		try {
			Set<String> claimed = new HashSet<>();
			for (String jobName : jobNames) {
				StoredLease lease = this.leases.get(jobName);
				if (lease != null && lease.lastSlot != null && !lease.lastSlot.isBefore(slot)) {
					claimed.add(jobName);
				}
			}
			return claimed;
		}
		finally {
			this.lock.unlock();
		}
	}

}
