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

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A request to acquire the lease of a job.
 *
 * @param jobName the job name
 * @param owner the identity of this node
 * @param leaseToken a random token unique to this acquisition; renewals and releases only
 * touch a lease carrying it
 * @param ttl how long the lease lives unless renewed, judged by the store's clock
 * @param slot the cron fire time this run claims, or {@code null} when the run has no
 * slot
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record LeaseRequest(String jobName, String owner, String leaseToken, Duration ttl, @Nullable Instant slot) {

	public LeaseRequest {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.hasText(leaseToken, "'leaseToken' must not be empty");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
	}

}
