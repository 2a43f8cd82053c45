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

package io.github.clustersingleton.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The named parameters of the lease table's statements, with instants bound the
 * platform's way.
 *
 * @author cluster-singleton contributors
 */
final class LeaseParameters {

	/**
	 * The name of the row that holds the pause of every job: blank, so that no job can
	 * have it (a job's name has text).
	 */
	static final String ALL_JOBS = " ";

	private final TimeBinding time;

	LeaseParameters(TimeBinding time) {
		this.time = time;
	}

	/**
	 * Return whether a claim uses the run-aware statements: a claim with a slot always
	 * sets the run columns (a new run unless its active policy finds work pending), and a
	 * claim with an active policy reports the row's run.
	 * @param request the request
	 * @return whether the claim is run-aware
	 */
	static boolean recordsRun(LeaseRequest request) {
		return request.policy().isActive() || request.slot() != null;
	}

	/**
	 * Return the parameters of {@code acquire.sql}, {@code acquire-run.sql} and
	 * {@code recover.sql}.
	 * @param request the request
	 * @return the parameters
	 */
	MapSqlParameterSource acquire(LeaseRequest request) {
		MapSqlParameterSource parameters = job(request.jobName()).addValue("owner", request.owner())
			.addValue("leaseToken", request.leaseToken())
			.addValue("ttlMillis", request.ttl().toMillis())
			.addValue("slot", this.time.bind(request.slot()))
			.addValue("slotToleranceMillis", request.slotTolerance().toMillis())
			.addValue("overridesPause", request.overridesPause() ? 1 : 0);
		ClaimPolicy policy = request.policy();
		if (recordsRun(request)) {
			// ClaimPolicy.NONE finds nothing pending: a claim of a slot starts a new run
			parameters.addValue("recoverLost", policy.recoverLost() ? 1 : 0)
				.addValue("recoverFailed", policy.recoverFailed() ? 1 : 0)
				.addValue("maxAttempts", policy.maxAttempts())
				.addValue("catchUp", policy.catchUp() ? 1 : 0)
				.addValue("previousSlot", this.time.bind(request.previousSlot()))
				.addValue("graceMillis", request.recoveryGrace().toMillis());
		}
		return parameters;
	}

	/**
	 * Return the parameters that name a job, and the row that holds the pause of every
	 * job.
	 * @param jobName the job
	 * @return the parameters {@code name} and {@code allJobs}
	 */
	static MapSqlParameterSource job(String jobName) {
		return new MapSqlParameterSource().addValue("name", jobName).addValue("allJobs", ALL_JOBS);
	}

	/**
	 * Return the parameters that name several jobs, and the row that holds the pause of
	 * every job.
	 * @param jobNames the jobs
	 * @return the parameters {@code names} and {@code allJobs}
	 */
	static MapSqlParameterSource jobs(Collection<String> jobNames) {
		return new MapSqlParameterSource().addValue("names", jobNames).addValue("allJobs", ALL_JOBS);
	}

	/**
	 * Return the parameters of {@code start-run.sql}.
	 * @param lease the held lease
	 * @param slot the slot of the run that starts
	 * @param attempt its attempt
	 * @return the parameters
	 */
	MapSqlParameterSource startRun(HeldLease lease, Instant slot, int attempt) {
		return job(lease.jobName()).addValue("leaseToken", lease.leaseToken())
			.addValue("slot", this.time.bind(slot))
			.addValue("attempt", attempt);
	}

	/**
	 * Return the parameters of {@code renew.sql} and {@code select-live.sql}.
	 * @param leases the leases
	 * @param ttl the new time to live
	 * @return the parameters
	 */
	static MapSqlParameterSource renew(List<HeldLease> leases, Duration ttl) {
		return new MapSqlParameterSource().addValue("ttlMillis", ttl.toMillis())
			.addValue("names", leases.stream().map(HeldLease::jobName).toList())
			.addValue("leaseTokens", leases.stream().map(HeldLease::leaseToken).toList());
	}

	/**
	 * Return the token a released lease is left with: never one an acquisition hands out
	 * (those are 32 hex digits), and at most the column's 64 characters.
	 */
	static String releasedToken(String leaseToken) {
		String released = "released:" + leaseToken;
		return (released.length() <= 64) ? released : released.substring(0, 64);
	}

}
