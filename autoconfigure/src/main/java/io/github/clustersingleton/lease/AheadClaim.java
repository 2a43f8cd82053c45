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

package io.github.clustersingleton.lease;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;

/**
 * A lease this node holds for a run that is not under way: claimed ahead of its trigger
 * ({@link InstantClaims}), or kept for a run that returned until its end reaches the
 * store ({@link SettleBehind}). The watchdog renews it ({@link LeaseWatchdog#holdAhead})
 * until it is taken, or until its cap: for a claim ahead
 * {@link InstantClaims#RENEWED_AT_LEAST} (the job's {@code lockAtMostFor} if longer).
 *
 * @author cluster-singleton contributors
 */
final class AheadClaim {

	private final JobDefinition job;

	private final LeaseRequest request;

	private final AcquireResult result;

	private final HeldLease lease;

	private final long ttlNanos;

	private final long capNanos;

	private final long tookNanos;

	private volatile long validFrom;

	AheadClaim(JobDefinition job, LeaseRequest request, AcquireResult result, long requested, long tookNanos,
			long ttlNanos) {
		this.job = job;
		this.tookNanos = tookNanos;
		this.request = request;
		this.result = result;
		this.lease = HeldLease.of(request, result.fencingToken());
		this.ttlNanos = ttlNanos;
		this.validFrom = requested;
		this.capNanos = requested
				+ ActiveRun.saturatedNanos((job.lockAtMostFor().compareTo(InstantClaims.RENEWED_AT_LEAST) > 0)
						? job.lockAtMostFor() : InstantClaims.RENEWED_AT_LEAST);
	}

	JobDefinition job() {
		return this.job;
	}

	LeaseRequest request() {
		return this.request;
	}

	AcquireResult result() {
		return this.result;
	}

	HeldLease lease() {
		return this.lease;
	}

	/**
	 * When (nano time) the lease was last known to be extended by a full TTL.
	 */
	long validFrom() {
		return this.validFrom;
	}

	long deadlineNanos() {
		return this.validFrom + this.ttlNanos;
	}

	/**
	 * Until when (nano time) the watchdog renews the lease.
	 */
	long capNanos() {
		return this.capNanos;
	}

	/**
	 * How long the call that claimed it took.
	 */
	long tookNanos() {
		return this.tookNanos;
	}

	void renewed(long sentNanos) {
		if (sentNanos - this.validFrom > 0) {
			this.validFrom = sentNanos;
		}
	}

}
