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
import java.util.concurrent.ScheduledExecutorService;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;

/**
 * The time the engine contract runs in: {@link #real() real time}, where the cases sleep
 * and poll while the store's TTLs run out, or virtual time, where a manual clock and a
 * deterministic scheduler move only when a case {@link #advance(Duration) advances} them,
 * and every background task of the engine runs, on the calling thread, when it falls due.
 * A store's test class picks one with
 * {@link AbstractLeaseEngineContractTests#engineTime()}; virtual time needs a store whose
 * expiry reads the same clock, such as the in-memory one.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface EngineTime {

	/**
	 * Return whether time moves only when {@link #advance(Duration)} moves it.
	 * @return {@code true} in virtual time
	 */
	boolean isVirtual();

	/**
	 * Return the wall clock of the nodes, the store's clock in virtual time.
	 * @return the clock
	 */
	Clock clock();

	/**
	 * Return the monotonic time, in nanoseconds, that the engine's deadlines are measured
	 * on.
	 * @return the current monotonic time
	 */
	long nanoTime();

	/**
	 * Let {@code duration} pass: sleep in real time; in virtual time, move the clock and
	 * run every background task that falls due on the way.
	 * @param duration how long
	 * @throws InterruptedException when the calling thread is interrupted while it sleeps
	 * in real time
	 */
	void advance(Duration duration) throws InterruptedException;

	/**
	 * Create an engine node that reads this time.
	 * @param backend the store
	 * @param settings the node's settings
	 * @param clock the node's wall clock, {@link #clock()} or an offset of it
	 * @param listener the listener
	 * @return the engine
	 */
	ClusterSingletonExecutor executor(LeaseBackend backend, ClusterSingletonExecutor.Settings settings, Clock clock,
			ClusterSingletonListener listener);

	/**
	 * Create a scheduled pool whose tasks run in this time, for a case that stands in for
	 * an application's scheduler.
	 * @param name the name of the pool's thread in real time
	 * @return the pool, for the caller to shut down
	 */
	ScheduledExecutorService scheduledExecutor(String name);

	/**
	 * Return real time: the system clock and {@link System#nanoTime()}, the engine's own
	 * threads, and sleeps.
	 * @return real time
	 */
	static EngineTime real() {
		return RealEngineTime.INSTANCE;
	}

}
