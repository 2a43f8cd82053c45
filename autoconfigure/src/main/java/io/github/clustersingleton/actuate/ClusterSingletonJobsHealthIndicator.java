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

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.util.Assert;

/**
 * Health indicator of cluster-singleton's jobs, contributed as
 * {@code clusterSingletonJobs}: {@code DOWN} while a job is overdue (no node of the
 * cluster ran it successfully within its {@code alert-after}, judged from the run ledger,
 * so every node reports the same), {@code UP} otherwise. It is a dead man's switch for
 * alerting, not for restarting pods: keep it out of the liveness and readiness groups (it
 * is not in them by default), since no single node can fix a job that the whole cluster
 * fails to run. Jobs paused cluster-wide are never overdue; they are listed under
 * {@code paused} with who paused them, when and why.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonJobsHealthIndicator extends AbstractHealthIndicator {

	private final Supplier<@Nullable ClusterSingletonExecutor> executor;

	/**
	 * Create an indicator.
	 * @param executor supplies the engine, or {@code null} while no job has started it
	 */
	public ClusterSingletonJobsHealthIndicator(Supplier<@Nullable ClusterSingletonExecutor> executor) {
		super("cluster-singleton jobs health check failed");
		Assert.notNull(executor, "'executor' must not be null");
		this.executor = executor;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		ClusterSingletonExecutor executor = this.executor.get();
		if (executor == null) {
			builder.unknown().withDetail("reason", "no @ClusterSingleton job has started");
			return;
		}
		Map<String, Object> overdue = new LinkedHashMap<>();
		for (JobDefinition job : executor.registeredJobs()) {
			if (executor.isOverdue(job)) {
				Map<String, Object> details = new LinkedHashMap<>();
				details.put("alertAfter", job.policies().alertAfter());
				Instant lastSuccess = executor.clusterLastSuccess(job.name()).orElse(null);
				details.put("lastSuccess", (lastSuccess != null) ? lastSuccess : "none known");
				overdue.put(job.name(), details);
			}
		}
		Map<String, Object> paused = new LinkedHashMap<>();
		executor.cachedControls().values().stream().filter(JobControl::paused).forEach((control) -> {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("pausedBy", (control.pausedBy() != null) ? control.pausedBy() : "unknown");
			if (control.pausedAt() != null) {
				details.put("pausedAt", control.pausedAt());
			}
			if (control.pauseReason() != null) {
				details.put("reason", control.pauseReason());
			}
			paused.put(control.jobName(), details);
		});
		if (overdue.isEmpty()) {
			builder.up();
		}
		else {
			builder.down().withDetail("overdue", overdue);
		}
		if (!paused.isEmpty()) {
			// a paused job is not overdue: an operator stopped it on purpose
			builder.withDetail("paused", paused);
		}
	}

}
