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

package io.github.clustersingleton;

import java.util.Set;

import org.springframework.util.Assert;

/**
 * Thrown by {@link LeaseBackend#renew} when a store renews leases with several requests
 * and only some of them failed: tells the engine which leases were renewed and which are
 * known to be gone, so that one failed request does not cost the others their renewal.
 * The leases in neither set are in doubt: the engine tries them again at the next tick,
 * until their local deadline.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class PartialRenewalException extends RuntimeException {

	private final Set<String> renewed;

	private final Set<String> lost;

	/**
	 * Create a new instance.
	 * @param renewed the lease tokens of the leases that were renewed
	 * @param lost the lease tokens of the leases the store no longer holds for this node
	 * @param cause the first failure; later ones are suppressed in it
	 */
	public PartialRenewalException(Set<String> renewed, Set<String> lost, RuntimeException cause) {
		super("Renewed " + renewed.size() + " lease(s), " + lost.size() + " no longer held, the others failed: "
				+ cause, cause);
		Assert.notNull(renewed, "'renewed' must not be null");
		Assert.notNull(lost, "'lost' must not be null");
		this.renewed = Set.copyOf(renewed);
		this.lost = Set.copyOf(lost);
	}

	/**
	 * Return the lease tokens of the leases that were renewed.
	 * @return the renewed lease tokens
	 */
	public Set<String> getRenewed() {
		return this.renewed;
	}

	/**
	 * Return the lease tokens of the leases the store no longer holds for this node.
	 * @return the lost lease tokens
	 */
	public Set<String> getLost() {
		return this.lost;
	}

}
