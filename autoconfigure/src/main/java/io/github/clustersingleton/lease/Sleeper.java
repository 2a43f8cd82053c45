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

import java.util.concurrent.TimeUnit;

/**
 * How the engine pauses a thread that waits for something measured on the {@link Ticker}:
 * the shutdown waits for running jobs and for undelivered completions. The seam a test
 * replaces to run those waits in virtual time, where a pause moves a manual ticker
 * instead of sleeping.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@FunctionalInterface
public interface Sleeper {

	/**
	 * The sleeper of the running JVM: {@link TimeUnit#sleep(long)} in milliseconds.
	 */
	Sleeper SYSTEM = TimeUnit.MILLISECONDS::sleep;

	/**
	 * Pause the calling thread.
	 * @param millis how long to pause, in milliseconds
	 * @throws InterruptedException when the thread is interrupted while it pauses
	 */
	void sleep(long millis) throws InterruptedException;

}
