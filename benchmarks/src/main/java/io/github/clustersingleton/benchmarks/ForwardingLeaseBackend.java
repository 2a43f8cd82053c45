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

package io.github.clustersingleton.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.NodePresence;
import io.github.clustersingleton.RunCompletion;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.StoreClockObserver;

/**
 * A {@link LeaseBackend} that hands every call to another one, for the benchmarks'
 * counting views of a node's backend: a subclass overrides the calls it counts and calls
 * {@code super}, and every call it does not override, {@link #completeRun} included,
 * still reaches the store as the engine made it.
 *
 * @author cluster-singleton contributors
 */
abstract class ForwardingLeaseBackend implements LeaseBackend {

	private final LeaseBackend delegate;

	ForwardingLeaseBackend(LeaseBackend delegate) {
		this.delegate = delegate;
	}

	@Override
	public String id() {
		return this.delegate.id();
	}

	@Override
	public void initialize() {
		this.delegate.initialize();
	}

	@Override
	public void setStoreClockObserver(StoreClockObserver observer) {
		this.delegate.setStoreClockObserver(observer);
	}

	@Override
	public void validateJobName(String jobName) {
		this.delegate.validateJobName(jobName);
	}

	@Override
	public AcquireResult tryAcquire(LeaseRequest request) {
		return this.delegate.tryAcquire(request);
	}

	@Override
	public List<AcquireResult> tryAcquireAll(List<LeaseRequest> requests) {
		return this.delegate.tryAcquireAll(requests);
	}

	@Override
	public boolean acquiresTogether() {
		return this.delegate.acquiresTogether();
	}

	@Override
	public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
		return this.delegate.renew(leases, ttl);
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor) {
		this.delegate.release(lease, lockAtLeastFor);
	}

	@Override
	public void release(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		this.delegate.release(lease, lockAtLeastFor, completion);
	}

	@Override
	public boolean completeRun(HeldLease lease, Duration lockAtLeastFor, RunCompletion completion) {
		return this.delegate.completeRun(lease, lockAtLeastFor, completion);
	}

	@Override
	public OptionalLong startRun(HeldLease lease, Instant slot, int attempt) {
		return this.delegate.startRun(lease, slot, attempt);
	}

	@Override
	public Set<String> findPending(Map<String, ClaimPolicy> policies) {
		return this.delegate.findPending(policies);
	}

	@Override
	public RunLedger runLedger() {
		return this.delegate.runLedger();
	}

	@Override
	public Optional<NodePresence> presence() {
		return this.delegate.presence();
	}

	@Override
	public Optional<LeaseInfo> describe(String jobName) {
		return this.delegate.describe(jobName);
	}

	@Override
	public boolean forceRelease(String jobName) {
		return this.delegate.forceRelease(jobName);
	}

	@Override
	public void probe() {
		this.delegate.probe();
	}

}
