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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Renewal of 1, 100 and 1,000 held leases: our batched {@code renew}, the same single
 * statement or script call by hand (the floor), and one {@code renew} call per lease.
 *
 * @author cluster-singleton
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
public class RenewalBenchmark {

	@Param({ "postgresql", "redis" })
	public String store;

	@Param({ "1", "100", "1000" })
	public int leases;

	private Store target;

	private LeaseBackend backend;

	private final List<HeldLease> held = new ArrayList<>();

	@Setup(Level.Trial)
	public void setUp() {
		this.target = Store.open(this.store);
		this.backend = this.target.backend();
		String prefix = "bench-renew-" + UUID.randomUUID().toString().substring(0, 8) + "-";
		for (int i = 0; i < this.leases; i++) {
			LeaseRequest request = new LeaseRequest(prefix + i, "bench-node-a", UUID.randomUUID().toString(), Store.TTL,
					null);
			AcquireResult result = this.backend.tryAcquire(request);
			if (!result.isAcquired()) {
				throw new IllegalStateException("Not acquired: " + request.jobName());
			}
			this.held.add(HeldLease.of(request, result.fencingToken()));
		}
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		for (HeldLease lease : this.held) {
			this.backend.release(lease, Duration.ZERO);
		}
		this.target.close();
	}

	@Benchmark
	public int batched() {
		Set<String> renewed = this.backend.renew(this.held, Store.TTL);
		return check(renewed.size());
	}

	@Benchmark
	public int floor() throws Exception {
		return check(Floor.renew(this.target, this.held));
	}

	@Benchmark
	public int oneByOne() {
		int renewed = 0;
		for (HeldLease lease : this.held) {
			renewed += this.backend.renew(List.of(lease), Store.TTL).size();
		}
		return check(renewed);
	}

	private int check(int renewed) {
		if (renewed != this.leases) {
			throw new IllegalStateException("Renewed " + renewed + " of " + this.leases + " leases");
		}
		return renewed;
	}

}
