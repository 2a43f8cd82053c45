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
import java.util.List;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialAcquisitionException;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The claims of {@link RedisLeaseBackend}: one {@code acquire.lua} call per claim, or the
 * calls of several claims in one pipeline, and the answer each call gives, read as an
 * {@link AcquireResult}. Also falls back, once and for good, to claims without the key of
 * the pause of every job when Redis refuses that key (a Redis Cluster, or an ACL written
 * for an earlier version).
 *
 * @author cluster-singleton contributors
 */
final class RedisClaims {

	private final RedisScriptExecutor executor;

	private final RedisKeys keys;

	private final ClusterSlotGrouping grouping;

	private final ReplicaWait replicaWait;

	private final StoreTimeRelay storeTime;

	private final RedisJobControls controls;

	RedisClaims(RedisScriptExecutor executor, RedisKeys keys, ClusterSlotGrouping grouping, ReplicaWait replicaWait,
			StoreTimeRelay storeTime, RedisJobControls controls) {
		this.executor = executor;
		this.keys = keys;
		this.grouping = grouping;
		this.replicaWait = replicaWait;
		this.storeTime = storeTime;
		this.controls = controls;
	}

	/**
	 * Claim with one {@code acquire.lua} call.
	 * @param request the claim
	 * @return what the store answered
	 */
	AcquireResult claim(LeaseRequest request) {
		return resultOf(request, acquire(request));
	}

	/**
	 * Whether claims go in one pipeline: on one Redis server (not a Redis Cluster)
	 * through a client that pipelines, without waiting for replicas.
	 * @return whether {@link #claimTogether} may be called
	 */
	boolean together() {
		return !this.grouping.perSlot() && this.replicaWait.minReplicas() <= 0 && this.executor.executesTogether();
	}

	/**
	 * Send the claims' {@code acquire.lua} calls in one pipeline, each claim decided by
	 * its own script run, as {@link #claim} decides it.
	 * @param requests the claims, two or more
	 * @return the answers, in the order of the claims
	 * @throws PartialAcquisitionException when some of the claims failed and others were
	 * answered
	 */
	List<AcquireResult> claimTogether(List<LeaseRequest> requests) {
		List<AcquireCall> calls = new ArrayList<>(requests.size());
		List<List<String>> keys = new ArrayList<>(requests.size());
		List<List<String>> args = new ArrayList<>(requests.size());
		for (LeaseRequest request : requests) {
			AcquireCall call = new AcquireCall(request, RedisLeaseBackend.ttlMillis(request.ttl()), true, false,
					this.grouping.claimsIndex());
			calls.add(call);
			keys.add(call.keys(this.keys));
			args.add(call.args());
		}
		List<RedisScriptExecutor.Answer> answers = this.executor.executeAll(RedisLeaseScript.ACQUIRE, keys, args);
		Assert.state(answers.size() == calls.size(), "Redis did not answer every claim");
		List<@Nullable AcquireResult> results = new ArrayList<>(requests.size());
		RuntimeException failure = null;
		for (int i = 0; i < calls.size(); i++) {
			RedisScriptExecutor.Answer answer = answers.get(i);
			List<Object> reply = answer.reply();
			try {
				if (reply == null) {
					RuntimeException callFailure = answer.failure();
					throw (callFailure != null) ? callFailure
							: new IllegalStateException("Redis did not answer a claim");
				}
				AcquireCall.Reply decoded = calls.get(i).decode(reply);
				results.add(resultOf(requests.get(i),
						decoded.checkPauseAll() ? checkPauseAll(requests.get(i), decoded) : decoded));
			}
			catch (RuntimeException ex) {
				// this claim failed by itself: the others keep their answers
				results.add(null);
				if (failure == null) {
					failure = ex;
				}
				else if (failure != ex) {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			if (results.stream().allMatch((result) -> result == null)) {
				throw failure;
			}
			throw new PartialAcquisitionException(results, failure);
		}
		return List.copyOf(results);
	}

	private AcquireResult resultOf(LeaseRequest request, AcquireCall.Reply reply) {
		if (reply.paused()) {
			this.storeTime.observe(reply.storeTime());
			return AcquireResult.paused(reply.lastSlot());
		}
		if (reply.acquired()) {
			this.storeTime.observe(reply.storeTime());
			if (!request.policy().isActive()) {
				return AcquireResult.acquired(reply.fence());
			}
			return AcquireResult.acquired(reply.fence(), reply.lastSlot(), reply.run());
		}
		Instant storeTime = this.storeTime.observe(reply.storeTime());
		String holder = reply.holder();
		if (request.recovery()) {
			return (holder != null) ? AcquireResult.held(holder) : AcquireResult.nothingPending();
		}
		return AcquireResult.notAcquired(request, holder, reply.lastSlot(), storeTime);
	}

	private AcquireCall.Reply acquire(LeaseRequest request) {
		boolean withPauseAll = !this.grouping.perSlot();
		AcquireCall.Reply reply;
		try {
			reply = acquire(request, withPauseAll, false);
		}
		catch (RuntimeException ex) {
			if (withPauseAll && this.grouping.claimsIndex() && RedisErrors.isNoPermission(ex)) {
				// refused before the script ran, and the key of the pause of every job
				// was granted to earlier versions: the index's is not
				this.grouping.noClaimsIndex();
				reply = acquire(request, true, false);
			}
			else if (withPauseAll && RedisErrors.isCrossSlot(ex)) {
				// refused before the script ran: nothing was written
				this.grouping.crossSlot();
				reply = acquire(request, false, false);
			}
			else {
				throw ex;
			}
		}
		if (!reply.checkPauseAll()) {
			return reply;
		}
		return checkPauseAll(request, reply);
	}

	/**
	 * A Redis Cluster, and a job never claimed before: its meta hash may not carry the
	 * mark of a pause of every job, so that pause is read, after the script wrote a
	 * marker into the meta hash (see RedisJobControls).
	 */
	private AcquireCall.Reply checkPauseAll(LeaseRequest request, AcquireCall.Reply reply) {
		if (this.controls.pausedAll()) {
			return new AcquireCall.Reply(false, true, false, 0, reply.storeTime(), null, null, null);
		}
		return acquire(request, false, true);
	}

	private AcquireCall.Reply acquire(LeaseRequest request, boolean withPauseAll, boolean pauseAllChecked) {
		return this.replicaWait
			.execute(new AcquireCall(request, RedisLeaseBackend.ttlMillis(request.ttl()), withPauseAll, pauseAllChecked,
					withPauseAll && this.grouping.claimsIndex()), request.ttl())
			.reply();
	}

}
