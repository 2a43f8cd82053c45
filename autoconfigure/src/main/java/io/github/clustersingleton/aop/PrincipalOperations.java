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

package io.github.clustersingleton.aop;

import java.util.Optional;

import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.ManualRun;
import org.jspecify.annotations.Nullable;

/**
 * {@link DefaultClusterSingletonOperations} acting for a principal: every write names it
 * as who asked.
 *
 * @author cluster-singleton contributors
 */
final class PrincipalOperations implements ClusterSingletonOperations {

	private final DefaultClusterSingletonOperations operations;

	private final String principal;

	PrincipalOperations(DefaultClusterSingletonOperations operations, String principal) {
		this.operations = operations;
		this.principal = principal;
	}

	@Override
	public void pause(String job, @Nullable String reason) {
		this.operations.pause(job, reason, this.principal);
	}

	@Override
	public void resume(String job, boolean catchUp) {
		this.operations.resume(job, catchUp, this.principal);
	}

	@Override
	public void pauseAll(@Nullable String reason) {
		this.operations.pauseAll(reason, this.principal);
	}

	@Override
	public void resumeAll(boolean catchUp) {
		this.operations.resumeAll(catchUp, this.principal);
	}

	@Override
	public String runNow(String job) {
		return this.operations.runNow(job, this.principal);
	}

	@Override
	public Optional<ManualRun> manualRun(String job, String requestId) {
		return this.operations.manualRun(job, requestId);
	}

	@Override
	public void reschedule(String job, String cron) {
		this.operations.reschedule(job, cron, this.principal);
	}

	@Override
	public void clearSchedule(String job) {
		this.operations.clearSchedule(job, this.principal);
	}

	@Override
	public JobControl controls(String job) {
		return this.operations.controls(job);
	}

	@Override
	public ClusterSingletonOperations withPrincipal(@Nullable String principal) {
		return this.operations.withPrincipal(principal);
	}

}
