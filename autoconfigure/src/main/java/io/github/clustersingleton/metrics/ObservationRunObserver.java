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
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.RunObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link RunObserver} that makes each trigger of a guarded job an
 * {@link ClusterSingletonObservationDocumentation#RUN Observation}, started before the
 * lease is requested and opened in scope on the job's thread, so that the job's own
 * observations (JDBC, HTTP clients, ...) become its children in a trace.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ObservationRunObserver implements RunObserver {

	private static final ClusterSingletonObservationConvention DEFAULT_CONVENTION = new DefaultClusterSingletonObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable ClusterSingletonObservationConvention convention;

	/**
	 * Create an observer.
	 * @param registry the observation registry
	 * @param convention a custom convention, or {@code null} for the default
	 */
	public ObservationRunObserver(ObservationRegistry registry,
			@Nullable ClusterSingletonObservationConvention convention) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public Run start(JobDefinition job, @Nullable Instant slot, String backend) {
		return start(job, slot, backend, true);
	}

	@Override
	public Run startDetached(JobDefinition job, @Nullable Instant slot, String backend) {
		return start(job, slot, backend, false);
	}

	private Run start(JobDefinition job, @Nullable Instant slot, String backend, boolean inScope) {
		ClusterSingletonObservationContext context = new ClusterSingletonObservationContext(job.name(), slot, backend);
		Observation observation = ClusterSingletonObservationDocumentation.RUN
			.observation(this.convention, DEFAULT_CONVENTION, () -> context, this.registry)
			.start();
		if (observation.isNoop()) {
			return Run.NONE;
		}
		return new ObservedRun(observation, inScope ? observation.openScope() : null, context);
	}

	private static final class ObservedRun implements Run {

		private final Observation observation;

		private final Observation.@Nullable Scope scope;

		private final ClusterSingletonObservationContext context;

		ObservedRun(Observation observation, Observation.@Nullable Scope scope,
				ClusterSingletonObservationContext context) {
			this.observation = observation;
			this.scope = scope;
			this.context = context;
		}

		@Override
		public void acquired(HeldLease lease) {
			this.context.setLease(lease);
		}

		@Override
		public void stop(String outcome, @Nullable Throwable error) {
			try {
				if (this.scope != null) {
					this.scope.close();
				}
			}
			finally {
				this.context.setOutcome(outcome);
				if (error != null) {
					this.observation.error(error);
				}
				this.observation.stop();
			}
		}

	}

}
