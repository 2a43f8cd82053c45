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

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * Documented {@link io.micrometer.observation.Observation observations} of
 * cluster-singleton.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public enum ClusterSingletonObservationDocumentation implements ObservationDocumentation {

	/**
	 * One trigger of a guarded job that reached the lease store: the acquisition and,
	 * when the lease was granted, the run. Its outcome tells a run from a skip.
	 */
	RUN {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultClusterSingletonObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/**
	 * Low cardinality key names: tags of metrics and spans.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * Name of the job.
		 */
		NAME {
			@Override
			public String asString() {
				return "name";
			}
		},

		/**
		 * Id of the lease store: {@code jdbc}, {@code redis} or {@code kubernetes}.
		 */
		BACKEND {
			@Override
			public String asString() {
				return "backend";
			}
		},

		/**
		 * How the trigger ended: {@code held}, {@code slot-done} or {@code error} when it
		 * did not get the lease; {@code success}, {@code failure} or {@code lease-lost}
		 * when it ran; {@code acquired} when the lease was given back unused because the
		 * application was shutting down; {@code unknown} while it is under way.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		}

	}

	/**
	 * High cardinality key names: spans only.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/**
		 * Cron slot the trigger claimed, ISO-8601; absent for fixed-rate, fixed-delay and
		 * direct calls.
		 */
		SLOT {
			@Override
			public String asString() {
				return "cluster.singleton.slot";
			}
		},

		/**
		 * Fencing token of the acquired lease; absent when the lease was not granted.
		 */
		FENCING_TOKEN {
			@Override
			public String asString() {
				return "cluster.singleton.fencing-token";
			}
		},

		/**
		 * Identity of this node in the store; absent when the lease was not granted.
		 */
		OWNER {
			@Override
			public String asString() {
				return "cluster.singleton.owner";
			}
		}

	}

}
