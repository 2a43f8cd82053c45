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

package io.github.clustersingleton.cluster.node;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Logs every stretch of time in which this JVM did not run a sleeping thread on time: a
 * thread sleeps {@value #TICK_MILLIS} ms again and again and logs a line
 * {@code [pause] <ms> ms, <from> .. <to>} (system clock, not the node's skewed one)
 * whenever it woke up more than {@value #THRESHOLD_MILLIS} ms late. A SIGSTOP of the node
 * shows as such a line; so does a stall of the host or of the JVM (a GC pause, a blocked
 * safepoint). The harness reads these lines to tell a node that was not running from a
 * store that was slow. A diagnostic of the harness only.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
class PauseMonitor implements DisposableBean {

	/** The prefix the harness looks for. */
	static final String PREFIX = "[pause] ";

	private static final long TICK_MILLIS = 50;

	private static final long THRESHOLD_MILLIS = 500;

	private static final Log logger = LogFactory.getLog(PauseMonitor.class);

	private final Thread thread;

	PauseMonitor() {
		this.thread = new Thread(this::watch, "node-pause-monitor");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void watch() {
		long before = System.nanoTime();
		while (!Thread.currentThread().isInterrupted()) {
			try {
				Thread.sleep(TICK_MILLIS);
			}
			catch (InterruptedException ex) {
				return;
			}
			long now = System.nanoTime();
			long late = TimeUnit.NANOSECONDS.toMillis(now - before) - TICK_MILLIS;
			if (late > THRESHOLD_MILLIS) {
				Instant to = Instant.now();
				logger.warn(PREFIX + late + " ms, " + to.minusMillis(late + TICK_MILLIS) + " .. " + to);
			}
			before = now;
		}
	}

	@Override
	public void destroy() {
		this.thread.interrupt();
	}

}
