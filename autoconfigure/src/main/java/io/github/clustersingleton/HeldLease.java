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

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A lease this node acquired.
 *
 * @param jobName the job name
 * @param owner the identity of this node
 * @param leaseToken the token of this acquisition
 * @param fencingToken the fencing token the store gave this acquisition, or, for a later
 * run under the same lease ({@link LeaseBackend#startRun}), the one it gave that run: a
 * {@link LeaseBackend#completeRun completion} records the end of the run with this token
 * only
 * @param slot the cron slot this acquisition claimed, if any
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record HeldLease(String jobName, String owner, String leaseToken, long fencingToken, @Nullable Instant slot) {

	/**
	 * Create the held lease that a successful acquisition of {@code request} yields.
	 * @param request the request
	 * @param fencingToken the fencing token the store returned
	 * @return the held lease
	 */
	public static HeldLease of(LeaseRequest request, long fencingToken) {
		return new HeldLease(request.jobName(), request.owner(), request.leaseToken(), fencingToken, request.slot());
	}

	/**
	 * Return the leases of a renewal request with one entry per lease token, in their
	 * order, for backends that map a store's reply back to leases by count or position.
	 * @param leases the leases to renew
	 * @return the leases, without repeated tokens
	 */
	public static List<HeldLease> distinctByToken(Collection<HeldLease> leases) {
		Assert.notNull(leases, "'leases' must not be null");
		Map<String, HeldLease> byToken = new LinkedHashMap<>();
		for (HeldLease lease : leases) {
			byToken.putIfAbsent(lease.leaseToken(), lease);
		}
		return new ArrayList<>(byToken.values());
	}

}
