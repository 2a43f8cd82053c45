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

package io.github.clustersingleton.kubernetes;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;

/**
 * Judges a Lease's expiry the way client-go's leader election does, since Kubernetes has
 * no store clock: a Lease is live until this node has seen the same record (holder,
 * tokens, {@code renewTime}, duration; see {@link LeaseCodec#record(Lease)}) for the
 * Lease's duration, measured on this node's monotonic clock from the first time it saw
 * that record. Nodes' wall clocks never enter into it.
 *
 * @author cluster-singleton contributors
 */
final class LeaseExpiryObserver {

	private final Map<String, Observation> observations = new ConcurrentHashMap<>();

	private final Duration leaseTtl;

	private final LongSupplier nanoTime;

	/**
	 * Create an observer.
	 * @param leaseTtl the duration assumed for a Lease that has none
	 * @param nanoTime the monotonic clock
	 */
	LeaseExpiryObserver(Duration leaseTtl, LongSupplier nanoTime) {
		this.leaseTtl = leaseTtl;
		this.nanoTime = nanoTime;
	}

	void observe(String name, Lease lease) {
		String record = LeaseCodec.record(lease);
		long now = this.nanoTime.getAsLong();
		this.observations.compute(name,
				(key, seen) -> (seen != null && seen.record().equals(record)) ? seen : new Observation(record, now));
	}

	/**
	 * Whether this node has seen the Lease's current record for less than its duration. A
	 * Lease without a usable duration (written by something else) gets this application's
	 * lease TTL.
	 */
	boolean isLive(String name, Lease lease) {
		Observation seen = this.observations.get(name);
		if (seen == null || !seen.record().equals(LeaseCodec.record(lease))) {
			observe(name, lease);
			return true;
		}
		return !hasLasted(seen, lease);
	}

	/**
	 * Whether this node has seen exactly the Lease's current record, last, for at least
	 * its duration. Unlike {@link #isLive} this records nothing, so it may be asked about
	 * a copy of a Lease this node wrote earlier: a record that is not the one this node
	 * saw last does not count as expired.
	 */
	boolean hasExpired(String name, Lease lease) {
		Observation seen = this.observations.get(name);
		return seen != null && seen.record().equals(LeaseCodec.record(lease)) && hasLasted(seen, lease);
	}

	private boolean hasLasted(Observation seen, Lease lease) {
		Integer duration = (lease.getSpec() != null) ? lease.getSpec().getLeaseDurationSeconds() : null;
		long durationNanos = (duration != null && duration > 0) ? TimeUnit.SECONDS.toNanos(duration)
				: this.leaseTtl.toNanos();
		return this.nanoTime.getAsLong() - seen.observedAt() >= durationNanos;
	}

	private record Observation(String record, long observedAt) {
	}

}
