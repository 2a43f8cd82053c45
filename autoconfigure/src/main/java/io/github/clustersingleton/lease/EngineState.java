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

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * The state every part of the engine reads: whether the application shuts down, the
 * leader election in leader mode, and the runs under way on this node.
 *
 * @author cluster-singleton contributors
 */
final class EngineState {

	private volatile boolean closing;

	private final AtomicBoolean shutDown = new AtomicBoolean();

	private volatile @Nullable LeaderElection leader;

	private final Set<ActiveRun> running = ConcurrentHashMap.newKeySet();

	/**
	 * Return whether the application shuts down: no new leases are taken.
	 */
	boolean isClosing() {
		return this.closing;
	}

	void beginShutdown() {
		this.closing = true;
	}

	/**
	 * Mark the engine as shut down.
	 * @return whether this call marked it (the first one)
	 */
	boolean markShutDown() {
		return this.shutDown.compareAndSet(false, true);
	}

	/**
	 * Return the leader election, in leader mode.
	 */
	@Nullable LeaderElection leader() {
		return this.leader;
	}

	void setLeader(LeaderElection leader) {
		this.leader = leader;
	}

	/**
	 * Return the runs under way here, and those that ended and are not settled yet.
	 */
	Set<ActiveRun> running() {
		return this.running;
	}

}
