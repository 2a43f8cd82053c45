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

package io.github.clustersingleton.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Watches the lease store and the host while the cluster proof runs, independently of the
 * nodes and of cluster-singleton: every {@value #PERIOD_MILLIS} ms it makes one small
 * durable write to the store (PostgreSQL: an autocommit {@code UPDATE}, which waits for
 * its WAL flush; Redis: an {@code INCR}, which waits for the AOF fsync) and records how
 * long it took, with the host's pressure-stall counters ({@code /proc/pressure/io} and
 * {@code cpu}: time in which tasks were stalled on I/O or CPU) and the CPU time stolen by
 * the hypervisor ({@code /proc/stat}) over the same interval.
 * <p>
 * A write that takes {@link #STALL} or longer (whether it then succeeds or fails) marks a
 * <em>store stall</em>: the store did not answer, which for the nodes is the same as an
 * outage the harness injects. A write that fails at once (connection refused, terminated)
 * is counted in the stall it falls in but does not make one: outside the injected faults
 * such failures are not excused, whatever their cause. The report lists every stall with
 * these counters, so that one outside the injected faults can be told apart from a fault
 * of the library: a library bug does not make an unrelated write on another connection
 * slow.
 *
 * @author cluster-singleton contributors
 */
final class StallWatch {

	/** A write that takes this long is a stall of the store. */
	static final Duration STALL = Duration.ofSeconds(1);

	private static final long PERIOD_MILLIS = 250;

	private final String name;

	private final Probe probe;

	private final List<Sample> samples = new ArrayList<>();

	private final Thread thread;

	private volatile boolean running = true;

	/**
	 * Create a watch.
	 * @param name what the probe writes to, for the report
	 * @param probe one durable write to the store
	 */
	StallWatch(String name, Probe probe) {
		this.name = name;
		this.probe = probe;
		this.thread = new Thread(this::watch, "cluster-proof-stall-watch");
		this.thread.setDaemon(true);
	}

	void start() {
		this.thread.start();
	}

	void stop() throws InterruptedException {
		this.running = false;
		this.thread.interrupt();
		this.thread.join(TimeUnit.SECONDS.toMillis(70));
		if (!this.thread.isAlive()) {
			this.probe.close();
		}
	}

	private void watch() {
		Counters before = Counters.read();
		while (this.running) {
			Instant start = Instant.now();
			long started = System.nanoTime();
			String error = null;
			try {
				this.probe.write();
			}
			catch (Exception ex) {
				error = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			}
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
			Counters after = Counters.read();
			synchronized (this.samples) {
				this.samples.add(new Sample(start, millis, error, after.minus(before)));
			}
			before = after;
			try {
				Thread.sleep(Math.max(0, PERIOD_MILLIS - millis));
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/**
	 * Return the stalls: runs of slow writes, with the failed writes between them,
	 * merged.
	 * @return the stalls, in time order
	 */
	List<Stall> stalls() {
		List<Sample> copy;
		synchronized (this.samples) {
			copy = new ArrayList<>(this.samples);
		}
		List<Stall> stalls = new ArrayList<>();
		Stall current = null;
		for (Sample sample : copy) {
			boolean slow = sample.millis >= STALL.toMillis();
			// slow writes less than a second apart make one stall, and so do the failed
			// writes that follow a slow one within a second
			boolean inStall = current != null && !sample.start.isAfter(current.end.plus(STALL));
			if (!slow && !(inStall && sample.error != null)) {
				continue;
			}
			Instant end = sample.start.plusMillis(sample.millis);
			if (!inStall) {
				current = null;
			}
			if (current == null) {
				current = new Stall(this.name, sample.start, end, sample.millis, 0, sample.counters);
				stalls.add(current);
			}
			else {
				Stall merged = new Stall(this.name, current.start, end, Math.max(current.maxMillis, sample.millis),
						current.errors, current.counters.plus(sample.counters));
				stalls.set(stalls.size() - 1, merged);
				current = merged;
			}
			if (sample.error != null) {
				current = current.withError();
				stalls.set(stalls.size() - 1, current);
			}
		}
		return stalls;
	}

	/**
	 * Summarize the write latencies of the whole run.
	 * @return one line for the report
	 */
	String summary() {
		List<Long> millis;
		synchronized (this.samples) {
			millis = this.samples.stream().map(Sample::millis).sorted().toList();
		}
		if (millis.isEmpty()) {
			return "store probe (" + this.name + "): no sample";
		}
		return String.format(Locale.ROOT,
				"store probe (%s, one durable write every %d ms): %d writes, median %d ms, p99 %d ms, max %d ms",
				this.name, PERIOD_MILLIS, millis.size(), millis.get(millis.size() / 2),
				millis.get((int) (millis.size() * 0.99)), millis.get(millis.size() - 1));
	}

	/**
	 * One durable write to the store.
	 */
	@FunctionalInterface
	interface Probe {

		void write() throws Exception;

		/**
		 * Release what the probe holds; called once the watch has stopped.
		 */
		default void close() {
		}

	}

	private record Sample(Instant start, long millis, String error, Counters counters) {
	}

	/**
	 * A stretch of time in which the store did not answer a write within {@link #STALL}.
	 *
	 * @param name what the probe writes to
	 * @param start when the first slow write was sent
	 * @param end when the last slow write returned
	 * @param maxMillis the slowest write
	 * @param errors how many writes failed
	 * @param counters the host's counters over the stall
	 */
	record Stall(String name, Instant start, Instant end, long maxMillis, int errors, Counters counters) {

		Stall withError() {
			return new Stall(this.name, this.start, this.end, this.maxMillis, this.errors + 1, this.counters);
		}

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%s .. %s (%d ms): slowest %s write %d ms, %d failed; host: %s",
					this.start, this.end, Duration.between(this.start, this.end).toMillis(), this.name, this.maxMillis,
					this.errors, this.counters);
		}

	}

	/**
	 * The host's stall counters: Linux pressure-stall information (microseconds in which
	 * some or all non-idle tasks waited for I/O, or some waited for a CPU) and the CPU
	 * time stolen by the hypervisor (clock ticks). Zero where the host does not have
	 * them.
	 *
	 * @param ioSomeMicros time in which some task waited for I/O
	 * @param ioFullMicros time in which every non-idle task waited for I/O
	 * @param cpuSomeMicros time in which some task waited for a CPU
	 * @param stealTicks CPU time stolen by the hypervisor
	 */
	record Counters(long ioSomeMicros, long ioFullMicros, long cpuSomeMicros, long stealTicks) {

		static Counters read() {
			long[] io = pressure(Path.of("/proc/pressure/io"));
			long[] cpu = pressure(Path.of("/proc/pressure/cpu"));
			return new Counters(io[0], io[1], cpu[0], steal());
		}

		Counters minus(Counters other) {
			return new Counters(this.ioSomeMicros - other.ioSomeMicros, this.ioFullMicros - other.ioFullMicros,
					this.cpuSomeMicros - other.cpuSomeMicros, this.stealTicks - other.stealTicks);
		}

		Counters plus(Counters other) {
			return new Counters(this.ioSomeMicros + other.ioSomeMicros, this.ioFullMicros + other.ioFullMicros,
					this.cpuSomeMicros + other.cpuSomeMicros, this.stealTicks + other.stealTicks);
		}

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "I/O stall some %d ms, full %d ms; CPU wait %d ms; steal %d ticks",
					this.ioSomeMicros / 1000, this.ioFullMicros / 1000, this.cpuSomeMicros / 1000, this.stealTicks);
		}

		/** {some total, full total} of a pressure file, in microseconds. */
		private static long[] pressure(Path file) {
			long[] totals = new long[2];
			try {
				for (String line : Files.readAllLines(file)) {
					int index = line.startsWith("some ") ? 0 : line.startsWith("full ") ? 1 : -1;
					int at = line.indexOf("total=");
					if (index >= 0 && at >= 0) {
						totals[index] = Long.parseLong(line.substring(at + "total=".length()).trim());
					}
				}
			}
			catch (IOException | RuntimeException ex) {
				// not a Linux host with PSI: the counters stay zero
			}
			return totals;
		}

		private static long steal() {
			try {
				for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
					if (line.startsWith("cpu ")) {
						// cpu user nice system idle iowait irq softirq steal ...
						String[] fields = line.trim().split("\\s+");
						return (fields.length > 8) ? Long.parseLong(fields[8]) : 0;
					}
				}
			}
			catch (IOException | RuntimeException ex) {
				// not Linux
			}
			return 0;
		}

	}

}
