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
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.clustersingleton.LeaseInfo;
import org.jspecify.annotations.Nullable;

/**
 * The answers of a quorum's members, merged: those of phase 1 of an acquisition (grants,
 * refusals and their holders, the largest fence and last slot, the members' median
 * clock), and those of a description.
 *
 * @author cluster-singleton contributors
 */
final class QuorumTally {

	private int granted;

	private int answered;

	private long maxFence;

	private @Nullable Instant maxLastSlot;

	private final List<Long> times = new ArrayList<>();

	private final Map<String, Integer> holders = new HashMap<>();

	private final Set<Integer> refused = new HashSet<>();

	/**
	 * Count the answers to a grant.
	 * @param grant the grant
	 * @param answers the members' raw replies
	 * @return the tally
	 */
	static QuorumTally of(QuorumGrantCall grant, List<MemberCalls.Answer<List<Object>>> answers) {
		QuorumTally tally = new QuorumTally();
		for (MemberCalls.Answer<List<Object>> answer : answers) {
			if (answer.failure() == null) {
				tally.add(answer.member(), grant.decode(answer.value()));
			}
		}
		return tally;
	}

	private void add(int member, QuorumGrantCall.Reply reply) {
		this.answered++;
		if (reply.granted()) {
			this.granted++;
		}
		else {
			this.refused.add(member);
			String holder = reply.holder();
			if (holder != null) {
				this.holders.merge(holder, 1, Integer::sum);
			}
		}
		Instant lastSlot = reply.lastSlot();
		if (lastSlot != null && (this.maxLastSlot == null || lastSlot.isAfter(this.maxLastSlot))) {
			this.maxLastSlot = lastSlot;
		}
		this.times.add(reply.now());
		this.maxFence = Math.max(this.maxFence, reply.fence());
	}

	int granted() {
		return this.granted;
	}

	int answered() {
		return this.answered;
	}

	long maxFence() {
		return this.maxFence;
	}

	@Nullable Instant maxLastSlot() {
		return this.maxLastSlot;
	}

	/**
	 * Return the members that refused the grant, and so hold nothing to give back.
	 * @return the indexes of the members
	 */
	Set<Integer> refused() {
		return this.refused;
	}

	/**
	 * Return the holder most refusing members named.
	 * @return the holder, {@code null} for none
	 */
	@Nullable String holder() {
		return this.holders.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
	}

	/**
	 * Return the median of the members' clocks.
	 * @return the time, {@code null} when no member answered
	 */
	@Nullable Instant storeTime() {
		if (this.times.isEmpty()) {
			return null;
		}
		List<Long> sorted = new ArrayList<>(this.times);
		sorted.sort(Long::compare);
		return Instant.ofEpochMilli(sorted.get(sorted.size() / 2));
	}

	/**
	 * Describe a job from the members' answers: the largest fence and last slot any
	 * member knows, and the holder whose lease a majority holds (none otherwise).
	 * @param jobName the job
	 * @param answers the members' answers
	 * @param majority how many members make a majority
	 * @return the lease, empty when no member knows the job
	 */
	static Optional<LeaseInfo> describe(String jobName, List<MemberCalls.Answer<Optional<LeaseInfo>>> answers,
			int majority) {
		boolean seen = false;
		long fence = 0;
		Instant lastSlot = null;
		Map<String, List<LeaseInfo>> live = new HashMap<>();
		for (MemberCalls.Answer<Optional<LeaseInfo>> answer : answers) {
			if (answer.failure() != null || answer.value().isEmpty()) {
				continue;
			}
			seen = true;
			LeaseInfo info = answer.value().get();
			fence = Math.max(fence, info.fencingToken());
			if (info.lastSlot() != null && (lastSlot == null || info.lastSlot().isAfter(lastSlot))) {
				lastSlot = info.lastSlot();
			}
			if (info.live() && info.holder() != null) {
				live.computeIfAbsent(info.holder(), (holder) -> new ArrayList<>()).add(info);
			}
		}
		if (!seen) {
			return Optional.empty();
		}
		for (Map.Entry<String, List<LeaseInfo>> entry : live.entrySet()) {
			if (entry.getValue().size() >= majority) {
				// the lease as the member whose expiry ends the majority tells it: after
				// that expiry, fewer than a majority of the members hold it
				List<LeaseInfo> byExpiry = new ArrayList<>(entry.getValue());
				byExpiry
					.sort(Comparator.comparing(LeaseInfo::expiresAt, Comparator.nullsLast(Comparator.naturalOrder())));
				LeaseInfo deciding = byExpiry.get(byExpiry.size() - majority);
				return Optional.of(new LeaseInfo(jobName, entry.getKey(), true, deciding.acquiredAt(),
						deciding.expiresAt(), fence, lastSlot));
			}
		}
		return Optional.of(new LeaseInfo(jobName, null, false, null, null, fence, lastSlot));
	}

}
