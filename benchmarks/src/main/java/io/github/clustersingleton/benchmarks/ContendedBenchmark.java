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
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Eight threads (eight nodes) race for one job: attempts per second, runs per second, and
 * a holder counter that fails the run if two threads ever hold the lease at once.
 *
 * @author cluster-singleton
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Threads(8)
public class ContendedBenchmark {

	@Param({ "postgresql", "mariadb", "h2", "redis" })
	public String store;

	private Store target;

	private LeaseBackend backend;

	private final AtomicInteger holders = new AtomicInteger();

	private final AtomicLong maxHolders = new AtomicLong();

	@Setup(Level.Trial)
	public void setUp() {
		this.target = Store.open(this.store);
		this.backend = this.target.backend();
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.target.close();
		if (this.maxHolders.get() != 1) {
			throw new IllegalStateException("Max concurrent holders was " + this.maxHolders.get());
		}
		System.out.println("max concurrent holders: " + this.maxHolders.get());
	}

	/**
	 * Per-thread counts, reported by JMH next to the throughput.
	 */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Counts {

		public long runs;

		public long refused;

		private final String owner = "bench-node-" + UUID.randomUUID();

		@Setup(Level.Iteration)
		public void reset() {
			this.runs = 0;
			this.refused = 0;
		}

	}

	@Benchmark
	public void contended(Counts counts) {
		LeaseRequest request = new LeaseRequest("bench-contended", counts.owner, UUID.randomUUID().toString(),
				Store.TTL, null);
		AcquireResult result = this.backend.tryAcquire(request);
		if (!result.isAcquired()) {
			counts.refused++;
			return;
		}
		try {
			int now = this.holders.incrementAndGet();
			this.maxHolders.accumulateAndGet(now, Math::max);
			if (now > 1) {
				throw new IllegalStateException(now + " threads hold the lease of one job at once");
			}
			Blackhole.consumeCPU(100);
			counts.runs++;
		}
		finally {
			this.holders.decrementAndGet();
			this.backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
		}
	}

}
