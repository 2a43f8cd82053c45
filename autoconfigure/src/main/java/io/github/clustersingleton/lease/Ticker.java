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

/**
 * The engine's monotonic clock: every lease deadline, renewal cadence and pause of the
 * engine is measured with it. Production reads {@link System#nanoTime()}; a test can hand
 * the engine a ticker it moves by hand, and drive the engine in virtual time together
 * with a deterministic {@link EngineExecutors}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@FunctionalInterface
public interface Ticker {

	/**
	 * The ticker of the running JVM: {@link System#nanoTime()}.
	 */
	Ticker SYSTEM = System::nanoTime;

	/**
	 * Return the current value of the monotonic clock, in nanoseconds: only differences
	 * between two readings mean anything.
	 * @return the current reading
	 */
	long nanoTime();

}
