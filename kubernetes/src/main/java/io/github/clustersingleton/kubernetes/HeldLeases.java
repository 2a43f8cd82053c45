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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import org.jspecify.annotations.Nullable;

/**
 * Per lease token: the Lease as this node last wrote it, for renewal and release, and
 * when (monotonic) the claim was sent.
 *
 * @author cluster-singleton contributors
 */
final class HeldLeases {

	private final Map<String, Held> held = new ConcurrentHashMap<>();

	void remember(String leaseToken, Lease written, long sent) {
		this.held.put(leaseToken, new Held(written, sent));
	}

	/**
	 * Keep a later write of a held Lease, only while the run still holds it: a release
	 * may have come in meanwhile.
	 */
	void written(String leaseToken, Lease written) {
		this.held.computeIfPresent(leaseToken, (token, held) -> new Held(written, held.acquiredAt()));
	}

	@Nullable Held get(String leaseToken) {
		return this.held.get(leaseToken);
	}

	boolean contains(String leaseToken) {
		return this.held.containsKey(leaseToken);
	}

	@Nullable Held remove(String leaseToken) {
		return this.held.remove(leaseToken);
	}

	/**
	 * A held Lease as this node last wrote it, and when (monotonic) it was claimed.
	 */
	record Held(Lease lease, long acquiredAt) {
	}

}
