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

package io.github.clustersingleton.metrics;

import java.time.Instant;

import io.github.clustersingleton.HeldLease;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Context of a {@link ClusterSingletonObservationDocumentation#RUN cluster-singleton run}
 * observation.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonObservationContext extends Observation.Context {

	/**
	 * The {@link #getOutcome() outcome} while the trigger is under way.
	 */
	public static final String UNKNOWN_OUTCOME = "unknown";

	private final String jobName;

	private final @Nullable Instant slot;

	private final String backend;

	private volatile @Nullable HeldLease lease;

	private volatile String outcome = UNKNOWN_OUTCOME;

	/**
	 * Create a context.
	 * @param jobName the job name
	 * @param slot the cron slot the trigger claims, if any
	 * @param backend the id of the lease store
	 */
	public ClusterSingletonObservationContext(String jobName, @Nullable Instant slot, String backend) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(backend, "'backend' must not be empty");
		this.jobName = jobName;
		this.slot = slot;
		this.backend = backend;
	}

	/**
	 * Return the job name.
	 * @return the job name
	 */
	public String getJobName() {
		return this.jobName;
	}

	/**
	 * Return the cron slot the trigger claims.
	 * @return the slot, or {@code null} when it claims none
	 */
	public @Nullable Instant getSlot() {
		return this.slot;
	}

	/**
	 * Return the id of the lease store.
	 * @return the backend id
	 */
	public String getBackend() {
		return this.backend;
	}

	/**
	 * Return the lease the trigger acquired.
	 * @return the lease, or {@code null} when it did not (yet) get one
	 */
	public @Nullable HeldLease getLease() {
		return this.lease;
	}

	/**
	 * Set the lease the trigger acquired.
	 * @param lease the lease
	 */
	public void setLease(@Nullable HeldLease lease) {
		this.lease = lease;
	}

	/**
	 * Return how the trigger ended, see
	 * {@link ClusterSingletonObservationDocumentation.LowCardinalityKeyNames#OUTCOME}.
	 * @return the outcome, {@value #UNKNOWN_OUTCOME} while under way
	 */
	public String getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the trigger ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(String outcome) {
		Assert.hasText(outcome, "'outcome' must not be empty");
		this.outcome = outcome;
	}

}
