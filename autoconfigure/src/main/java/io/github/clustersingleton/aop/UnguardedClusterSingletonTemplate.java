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
import java.util.concurrent.Callable;

import io.github.clustersingleton.ClusterSingletonTemplate;

import org.springframework.util.Assert;

/**
 * The {@link ClusterSingletonTemplate} of an application that turned cluster-singleton
 * off ({@code cluster-singleton.enabled=false}): every task runs at once, on every node,
 * without a lease, as annotated methods do in that mode. Code that injects the template
 * keeps starting and working.
 *
 * @author cluster-singleton contributors
 */
public class UnguardedClusterSingletonTemplate implements ClusterSingletonTemplate {

	@Override
	public boolean runIfAcquired(Job job, Runnable task) {
		Assert.notNull(job, "'job' must not be null");
		Assert.notNull(task, "'task' must not be null");
		task.run();
		return true;
	}

	@Override
	public <T> Optional<T> callIfAcquired(Job job, Callable<T> task) throws Exception {
		Assert.notNull(job, "'job' must not be null");
		Assert.notNull(task, "'task' must not be null");
		return Optional.ofNullable(task.call());
	}

}
