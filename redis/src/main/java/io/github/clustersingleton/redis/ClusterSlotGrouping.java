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

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.PartialRenewalException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Calls over the keys of several jobs: all jobs in calls of at most
 * {@value #MAX_LEASES_PER_CALL}, until the first call answered with {@code CROSSSLOT} (a
 * Redis Cluster) switches to one call per hash slot, per {@link RedisClusterSlots}.
 *
 * @author cluster-singleton contributors
 */
final class ClusterSlotGrouping {

	/**
	 * The most leases one call carries; more are sent in several calls.
	 */
	static final int MAX_LEASES_PER_CALL = 1000;

	/**
	 * The backend's logger: these are its messages.
	 */
	private static final Log logger = LogFactory.getLog(RedisLeaseBackend.class);

	private final RedisKeys keys;

	/**
	 * Whether the server refused a call over the keys of several slots once: from then
	 * on, calls over several jobs are grouped by slot.
	 */
	private volatile boolean perSlot;

	private volatile boolean claimsIndex = true;

	ClusterSlotGrouping(RedisKeys keys) {
		this.keys = keys;
	}

	/**
	 * Make one call per group of jobs: all jobs in calls of at most
	 * {@value #MAX_LEASES_PER_CALL}, or, in a Redis Cluster, one call per hash slot.
	 * @param jobNames the jobs
	 * @param call the call of one group, which collects its answer
	 * @param partial whether the answers of the slots that answered are enough when
	 * another slot's node fails (else the first failure is thrown)
	 */
	void forEachGroup(List<String> jobNames, Consumer<List<String>> call, boolean partial) {
		if (jobNames.isEmpty()) {
			return;
		}
		if (!this.perSlot) {
			try {
				for (List<String> chunk : chunks(jobNames)) {
					call.accept(chunk);
				}
				return;
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isCrossSlot(ex)) {
					throw ex;
				}
				switchToPerSlot();
			}
		}
		RuntimeException failure = null;
		boolean answered = false;
		for (List<String> group : bySlot(jobNames, Function.identity())) {
			for (List<String> chunk : chunks(group)) {
				try {
					call.accept(chunk);
					answered = true;
				}
				catch (RuntimeException ex) {
					failure = collect(failure, ex);
				}
			}
		}
		if (failure != null) {
			if (!partial || !answered) {
				throw failure;
			}
			logger.debug("cluster-singleton: a Redis Cluster node did not answer; using the answers of the others",
					failure);
		}
	}

	/**
	 * Renew leases with one call per chunk, or, in a Redis Cluster, per hash slot. Every
	 * slot gets its call even when another slot's node fails, so that Redis keeps those
	 * leases. What the healthy nodes answered counts: their leases are renewed or lost
	 * now; only the leases of failing nodes are left to the retry.
	 * @param leases the leases, one per token
	 * @param renewInChunks the renewal of some leases in calls of at most
	 * {@value #MAX_LEASES_PER_CALL}, which returns the tokens of the renewed ones
	 * @return the tokens of the renewed leases
	 * @throws PartialRenewalException when some slots answered and others failed
	 */
	Set<String> renew(List<HeldLease> leases, Function<List<HeldLease>, Set<String>> renewInChunks) {
		if (!this.perSlot) {
			try {
				return renewInChunks.apply(leases);
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isCrossSlot(ex)) {
					throw ex;
				}
				switchToPerSlot();
			}
		}
		Set<String> renewed = new HashSet<>();
		Set<String> lost = new HashSet<>();
		RuntimeException failure = null;
		boolean answered = false;
		for (List<HeldLease> group : bySlot(leases, HeldLease::jobName)) {
			try {
				Set<String> groupRenewed = renewInChunks.apply(group);
				answered = true;
				renewed.addAll(groupRenewed);
				for (HeldLease lease : group) {
					if (!groupRenewed.contains(lease.leaseToken())) {
						lost.add(lease.leaseToken());
					}
				}
			}
			catch (RuntimeException ex) {
				failure = collect(failure, ex);
			}
		}
		if (failure != null) {
			if (!answered) {
				throw failure;
			}
			throw new PartialRenewalException(renewed, lost, failure);
		}
		return renewed;
	}

	/**
	 * Split items into calls of at most {@value #MAX_LEASES_PER_CALL}.
	 * @param <T> the type of the items
	 * @param items the items
	 * @return the chunks, in order
	 */
	static <T> List<List<T>> chunks(List<T> items) {
		List<List<T>> chunks = new ArrayList<>();
		for (int from = 0; from < items.size(); from += MAX_LEASES_PER_CALL) {
			chunks.add(items.subList(from, Math.min(from + MAX_LEASES_PER_CALL, items.size())));
		}
		return chunks;
	}

	private <T> Collection<List<T>> bySlot(List<T> items, Function<T, String> jobName) {
		Map<Integer, List<T>> bySlot = new TreeMap<>();
		for (T item : items) {
			bySlot
				.computeIfAbsent(RedisClusterSlots.slot(this.keys.lease(jobName.apply(item))),
						(slot) -> new ArrayList<>())
				.add(item);
		}
		return bySlot.values();
	}

	private static RuntimeException collect(@Nullable RuntimeException failure, RuntimeException ex) {
		if (failure == null) {
			return ex;
		}
		failure.addSuppressed(ex);
		return failure;
	}

	/**
	 * Return whether calls over several slots were refused once (a Redis Cluster).
	 * @return whether calls are made per hash slot
	 */
	boolean perSlot() {
		return this.perSlot;
	}

	/**
	 * Return whether claims write, and sweeps read, the claims index
	 * ({@code <prefix>:claims}): until the server refused its key to this client once (an
	 * ACL that lists only the keys of an earlier version).
	 * @return whether the claims index is used
	 */
	boolean claimsIndex() {
		return this.claimsIndex;
	}

	/**
	 * Stop using the claims index after the server refused its key ({@code NOPERM}):
	 * claims no longer record their slots there, and sweeps read each job's meta hash.
	 */
	void noClaimsIndex() {
		if (this.claimsIndex) {
			this.claimsIndex = false;
			logger.warn("cluster-singleton: Redis refused the key of the claims index to this client (NOPERM: "
					+ "an ACL without it); claims no longer record their slots there, and the preferred-node "
					+ "sweeps read each job instead. Grant the key " + this.keys.claims()
					+ " to this client to use the index");
		}
	}

	/**
	 * Switch to calls per hash slot after a {@code CROSSSLOT} refusal.
	 */
	void crossSlot() {
		switchToPerSlot();
	}

	private void switchToPerSlot() {
		if (!this.perSlot) {
			this.perSlot = true;
			logger.info("cluster-singleton: Redis refused a call over the keys of several jobs (CROSSSLOT: a Redis "
					+ "Cluster); calling it once per hash slot from now on");
		}
	}

}
