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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
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
 * Uncontended guarded-run overhead, acquire plus release, one thread, per store: ours
 * through the SPI and through the whole engine, the store's floor by hand, and ShedLock's
 * provider for the same store.
 *
 * @author cluster-singleton
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
public class UncontendedBenchmark {

	private static final String OWNER = "bench-node-a";

	@Param({ "postgresql", "mariadb", "h2", "redis" })
	public String store;

	private Store target;

	private LeaseBackend backend;

	private LeaseBackend backendWithoutQueryTimeout;

	private ClusterSingletonExecutor executor;

	private JobDefinition job;

	@Setup(Level.Trial)
	public void setUp() {
		this.target = Store.open(this.store);
		this.backend = this.target.backend();
		this.backendWithoutQueryTimeout = this.target.backendWithoutQueryTimeout();
		this.executor = new ClusterSingletonExecutor(this.backend,
				new ClusterSingletonExecutor.Settings(OWNER, Store.TTL, Duration.ofSeconds(1), false),
				Clock.systemUTC(), new ClusterSingletonListener() {
				});
		this.job = JobDefinition.of("bench-engine", Store.TTL, Duration.ZERO);
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.executor.close();
		this.target.close();
	}

	@Benchmark
	public long oursSpi() {
		LeaseRequest request = new LeaseRequest("bench-spi", OWNER, UUID.randomUUID().toString(), Store.TTL, null);
		AcquireResult result = this.backend.tryAcquire(request);
		if (!result.isAcquired()) {
			throw new IllegalStateException("Not acquired: " + result);
		}
		this.backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
		return result.fencingToken();
	}

	/**
	 * As {@link #oursSpi()}, on a JDBC backend without a query timeout (the
	 * auto-configuration sets one): shows what {@code Statement.setQueryTimeout} costs.
	 * @return the fencing token
	 */
	@Benchmark
	public long oursSpiNoQueryTimeout() {
		LeaseRequest request = new LeaseRequest("bench-spi-nqt", OWNER, UUID.randomUUID().toString(), Store.TTL, null);
		AcquireResult result = this.backendWithoutQueryTimeout.tryAcquire(request);
		if (!result.isAcquired()) {
			throw new IllegalStateException("Not acquired: " + result);
		}
		this.backendWithoutQueryTimeout.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
		return result.fencingToken();
	}

	@Benchmark
	public boolean oursEngine() throws Throwable {
		boolean ran = this.executor.execute(this.job, (Instant) null, () -> null);
		if (!ran) {
			throw new IllegalStateException("The engine did not run the job");
		}
		return ran;
	}

	@Benchmark
	public long floor() throws Exception {
		return Floor.acquireRelease(this.target, "bench-floor", OWNER);
	}

	@Benchmark
	public boolean shedLock() {
		Optional<SimpleLock> lock = this.target.shedLock()
			.lock(new LockConfiguration(Instant.now(), "bench-shedlock", Store.TTL, Duration.ZERO));
		lock.orElseThrow(() -> new IllegalStateException("ShedLock did not lock")).unlock();
		return true;
	}

}
