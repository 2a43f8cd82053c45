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
import io.github.clustersingleton.metrics.ClusterSingletonObservationDocumentation.HighCardinalityKeyNames;
import io.github.clustersingleton.metrics.ClusterSingletonObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * Default {@link ClusterSingletonObservationConvention}: observation name
 * {@value #OBSERVATION_NAME}, contextual name {@code cluster-singleton <job>}, low
 * cardinality keys {@code name}, {@code backend} and {@code outcome}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class DefaultClusterSingletonObservationConvention implements ClusterSingletonObservationConvention {

	/**
	 * Name of the observation, and so of the timer Micrometer derives from it.
	 */
	public static final String OBSERVATION_NAME = "cluster.singleton.run";

	@Override
	public String getName() {
		return OBSERVATION_NAME;
	}

	@Override
	public String getContextualName(ClusterSingletonObservationContext context) {
		return "cluster-singleton " + context.getJobName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(ClusterSingletonObservationContext context) {
		return KeyValues.of(LowCardinalityKeyNames.NAME.withValue(context.getJobName()),
				LowCardinalityKeyNames.BACKEND.withValue(context.getBackend()),
				LowCardinalityKeyNames.OUTCOME.withValue(context.getOutcome()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(ClusterSingletonObservationContext context) {
		KeyValues values = KeyValues.empty();
		Instant slot = context.getSlot();
		if (slot != null) {
			values = values.and(HighCardinalityKeyNames.SLOT.withValue(slot.toString()));
		}
		HeldLease lease = context.getLease();
		if (lease != null) {
			values = values.and(HighCardinalityKeyNames.FENCING_TOKEN.withValue(Long.toString(lease.fencingToken())),
					HighCardinalityKeyNames.OWNER.withValue(lease.owner()));
		}
		return values;
	}

}
