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

package io.github.clustersingleton.contract;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;

/**
 * {@link EngineTime#real() Real time}.
 *
 * @author cluster-singleton contributors
 */
final class RealEngineTime implements EngineTime {

	static final RealEngineTime INSTANCE = new RealEngineTime();

	private RealEngineTime() {
	}

	@Override
	public boolean isVirtual() {
		return false;
	}

	@Override
	public Clock clock() {
		return Clock.systemUTC();
	}

	@Override
	public long nanoTime() {
		return System.nanoTime();
	}

	@Override
	public void advance(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

	@Override
	public ClusterSingletonExecutor executor(LeaseBackend backend, ClusterSingletonExecutor.Settings settings,
			Clock clock, ClusterSingletonListener listener) {
		return new ClusterSingletonExecutor(backend, settings, clock, listener);
	}

	@Override
	public ScheduledExecutorService scheduledExecutor(String name) {
		return Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, name);
			thread.setDaemon(true);
			return thread;
		});
	}

}
