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

package io.github.clustersingleton.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the herd's job methods report that they ran ({@link HerdApplications}): each run
 * counts for the fire time its cron period puts it in, if the benchmark measures that
 * tick.
 *
 * @author cluster-singleton contributors
 */
public final class HerdRuns {

	private static final Map<Instant, Tick> ticks = new ConcurrentHashMap<>();

	private HerdRuns() {
	}

	/**
	 * Called by a job method as its first statement.
	 * @param node the node it runs on
	 * @param job the job's index
	 */
	public static void ran(int node, int job) {
		Instant now = Instant.now();
		for (Tick tick : ticks.values()) {
			if (!now.isBefore(tick.fire) && now.isBefore(tick.fire.plus(tick.period))) {
				tick.ran(node, job, now);
			}
		}
	}

	/**
	 * Start counting the runs of one fire time.
	 * @param fire the fire time
	 * @param period the jobs' cron period
	 * @param jobs how many jobs there are
	 * @param nodes how many nodes there are
	 * @return the runs of that tick
	 */
	static Tick expect(Instant fire, Duration period, int jobs, int nodes) {
		Tick tick = new Tick(fire, period, jobs, nodes);
		ticks.put(fire, tick);
		return tick;
	}

	/**
	 * Stop counting the runs of one fire time.
	 * @param tick the tick
	 */
	static void forget(Tick tick) {
		ticks.remove(tick.fire);
	}

	/**
	 * The runs of one fire time.
	 */
	static final class Tick {

		final Instant fire;

		final Duration period;

		final AtomicIntegerArray runs;

		final AtomicIntegerArray runsPerNode;

		final ConcurrentLinkedQueue<Long> delays = new ConcurrentLinkedQueue<>();

		/** Counted down by the first run of each job. */
		final CountDownLatch everyJobRan;

		/** When the last run started, in nano time. */
		final AtomicLong lastRun = new AtomicLong();

		Tick(Instant fire, Duration period, int jobs, int nodes) {
			this.fire = fire;
			this.period = period;
			this.runs = new AtomicIntegerArray(jobs);
			this.runsPerNode = new AtomicIntegerArray(nodes);
			this.everyJobRan = new CountDownLatch(jobs);
		}

		void ran(int node, int job, Instant now) {
			this.delays.add(Duration.between(this.fire, now).toNanos());
			this.runsPerNode.incrementAndGet(node);
			this.lastRun.accumulateAndGet(System.nanoTime(), Math::max);
			if (this.runs.incrementAndGet(job) == 1) {
				this.everyJobRan.countDown();
			}
		}

	}

}
