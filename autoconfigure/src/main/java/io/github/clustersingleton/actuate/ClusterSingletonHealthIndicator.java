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

package io.github.clustersingleton.actuate;

import java.util.function.Supplier;

import io.github.clustersingleton.LeaseBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.util.Assert;

/**
 * Health indicator of cluster-singleton's lease store: {@code UP} when the store answers
 * its cheapest round trip ({@link LeaseBackend#probe()}), {@code DOWN} with the error
 * otherwise. It reports the store's reachability, not which node holds which lease; and
 * {@code UNKNOWN} in an application without jobs, which uses no store.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonHealthIndicator extends AbstractHealthIndicator {

	private final Supplier<@Nullable LeaseBackend> backend;

	/**
	 * Create an indicator.
	 * @param backend supplies the lease store the engine uses, or {@code null} while no
	 * job has started the engine
	 */
	public ClusterSingletonHealthIndicator(Supplier<@Nullable LeaseBackend> backend) {
		super("cluster-singleton lease store health check failed");
		Assert.notNull(backend, "'backend' must not be null");
		this.backend = backend;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		LeaseBackend backend = this.backend.get();
		if (backend == null) {
			builder.unknown().withDetail("reason", "no @ClusterSingleton job uses a lease store");
			return;
		}
		builder.withDetail("backend", backend.id());
		backend.probe();
		builder.up();
	}

}
