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

package io.github.clustersingleton.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ClusterSingletonListener} that calls several others, isolating each from the
 * others' exceptions.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class CompositeClusterSingletonListener implements ClusterSingletonListener {

	private static final Log logger = LogFactory.getLog(CompositeClusterSingletonListener.class);

	private final List<ClusterSingletonListener> listeners;

	/**
	 * Create a composite.
	 * @param listeners the listeners, called in this order
	 */
	public CompositeClusterSingletonListener(List<ClusterSingletonListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void acquireAttempted(JobDefinition job, @Nullable Instant slot, AcquireResult result, Duration duration) {
		each((listener) -> listener.acquireAttempted(job, slot, result, duration));
	}

	@Override
	public void acquireFailed(JobDefinition job, @Nullable Instant slot, Throwable error, Duration duration) {
		each((listener) -> listener.acquireFailed(job, slot, error, duration));
	}

	@Override
	public void runFinished(JobDefinition job, HeldLease lease, RunOutcome outcome, Instant startedAt,
			Duration duration, @Nullable Throwable error) {
		each((listener) -> listener.runFinished(job, lease, outcome, startedAt, duration, error));
	}

	@Override
	public void renewalAttempted(Collection<HeldLease> leases, int renewed, Duration duration,
			@Nullable Throwable error) {
		each((listener) -> listener.renewalAttempted(leases, renewed, duration, error));
	}

	@Override
	public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
		each((listener) -> listener.leaseLost(job, lease, reason));
	}

	private void each(Consumer<ClusterSingletonListener> call) {
		for (ClusterSingletonListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("cluster-singleton listener " + listener + " failed", ex);
			}
		}
	}

}
