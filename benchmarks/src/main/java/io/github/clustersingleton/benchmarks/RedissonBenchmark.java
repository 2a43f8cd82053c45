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

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@link RLock}, tryLock plus unlock, one thread: the Redis comparison of
 * {@link UncontendedBenchmark}.
 *
 * @author cluster-singleton
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
public class RedissonBenchmark {

	private RedissonClient redisson;

	private RLock lock;

	@Setup(Level.Trial)
	public void setUp() {
		String url = System.getenv("CLUSTER_SINGLETON_TEST_REDIS_URL");
		Config config = new Config();
		config.useSingleServer()
			.setAddress((url != null && !url.isBlank()) ? url : "redis://127.0.0.1:6379")
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(2);
		this.redisson = Redisson.create(config);
		this.lock = this.redisson.getLock("bench-redisson");
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.redisson.shutdown();
	}

	@Benchmark
	public boolean redissonLock() throws InterruptedException {
		if (!this.lock.tryLock(0, 30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Redisson did not lock");
		}
		this.lock.unlock();
		return true;
	}

}
