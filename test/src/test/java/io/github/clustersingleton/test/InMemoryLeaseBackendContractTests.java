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

package io.github.clustersingleton.test;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.contract.AbstractLeaseBackendContractTests;
import io.github.clustersingleton.contract.StoreTimeTravel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The backend contract suite, store and engine halves, run against the
 * {@link InMemoryLeaseBackend} on the system clock. An operation that reaches the store
 * counts as a round trip.
 *
 * @author cluster-singleton contributors
 */
class InMemoryLeaseBackendContractTests extends AbstractLeaseBackendContractTests {

	private final InMemoryLeaseBackend backend = new InMemoryLeaseBackend();

	private final InMemoryLeaseBackend unreachableBackend = new InMemoryLeaseBackend();

	private final InMemoryLeaseBackend isolatedBackend = new InMemoryLeaseBackend();

	private long roundTripsBefore;

	InMemoryLeaseBackendContractTests() {
		this.unreachableBackend.setReachable(false);
	}

	@Override
	protected LeaseBackend backend() {
		return this.backend;
	}

	@Override
	protected LeaseBackend unreachableBackend() {
		return this.unreachableBackend;
	}

	@Override
	protected long roundTrips() {
		return this.backend.getOperationCount() - this.roundTripsBefore;
	}

	@Override
	protected void resetRoundTrips() {
		this.roundTripsBefore = this.backend.getOperationCount();
	}

	@Override
	protected boolean supportsControls() {
		return true;
	}

	@Override
	protected boolean supportsPresence() {
		return true;
	}

	@Override
	protected LeaseBackend isolatedBackend() {
		return this.isolatedBackend;
	}

	@Override
	protected StoreTimeTravel timeTravel() {
		return this.backend::backdate;
	}

	@Test
	void idIsInMemory() {
		assertThat(this.backend.id()).isEqualTo("in-memory");
	}

}
