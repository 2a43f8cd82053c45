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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The shutdown sequence of the engine: stop taking new leases, wait up to the grace
 * period for running jobs and for completions the store has not taken yet, then stop the
 * watchdog, the background work, the leader election and the run-ledger writer. Its waits
 * are measured on the {@link Ticker} and pause through the {@link Sleeper}.
 *
 * @author cluster-singleton contributors
 */
final class EngineShutdown {

	/**
	 * How long at least the shutdown gives back the leases of the leader's runs that
	 * returned and whose release waits, whatever the grace period.
	 */
	private static final Duration RELEASES_AT_LEAST = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private EngineShutdown() {
	}

	/**
	 * Shut the engine down ({@link ClusterSingletonExecutor#shutdown(Duration)}).
	 * @param engine the engine
	 * @param gracePeriod how long to wait for running jobs
	 */
	static void shutdown(EngineComponents engine, Duration gracePeriod) {
		EngineState state = engine.state;
		Ticker ticker = engine.ticker;
		state.beginShutdown();
		if (!state.markShutDown()) {
			// shut down already: in the lifecycle's stop phase, then again when the bean
			// is destroyed
			return;
		}
		PreferredNodes preferredNodes = engine.preferredNodes;
		if (preferredNodes != null) {
			// the other nodes stop leaving jobs to this one at their next heartbeat
			preferredNodes.leave();
		}
		long deadline = ticker.nanoTime() + ActiveRun.saturatedNanos(gracePeriod);
		// the leases of the leader's runs that returned, not given back yet: within the
		// grace period, a second at least, since their leases must not be left to expire
		// (a recovery policy would run such a slot again elsewhere)
		long releases = Math.max(deadline, ticker.nanoTime() + RELEASES_AT_LEAST.toNanos());
		engine.settleBehind.settleAll(releases);
		while (!state.running().isEmpty() && deadline - ticker.nanoTime() > 0) {
			try {
				engine.sleeper.sleep(Math.min(50, Math.max(1, (deadline - ticker.nanoTime()) / 1_000_000)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		if (!state.running().isEmpty()) {
			logger.warn("cluster-singleton is shutting down while " + state.running().size()
					+ " job(s) still run; their leases are no longer renewed");
		}
		engine.settleBehind.close(Math.max(deadline, releases));
		engine.delivery.drain(deadline);
		engine.watchdog.close();
		engine.monitor.shutdown();
		LeaderElection leader = state.leader();
		if (leader != null) {
			leader.resign();
		}
		engine.ledger.close(1000);
	}

}
