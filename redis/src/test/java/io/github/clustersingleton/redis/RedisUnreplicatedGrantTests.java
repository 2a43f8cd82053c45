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

package io.github.clustersingleton.redis;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A grant that too few replicas acknowledged is given back before the rest of its reply
 * is read. Runs on the test Redis, a master without replicas, so that any
 * {@code min-replicas >= 1} is never met.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisUnreplicatedGrantTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private LettuceConnectionFactory factory;

	private StringRedisTemplate admin;

	@BeforeAll
	void connect() {
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(
				URI.create(TestStores.redisUrl()).getHost(), URI.create(TestStores.redisUrl()).getPort()));
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.admin = new StringRedisTemplate(this.factory);
	}

	@AfterAll
	void disconnect() {
		this.factory.destroy();
	}

	/**
	 * A reply this version cannot read (here a run recorded without its attempt, which
	 * acquire.lua hands back as '') must not keep the unreplicated grant on the master
	 * for a whole TTL: every node would skip the job until then, and a failover would
	 * lose it.
	 */
	@Test
	void unreplicatedGrantIsGivenBackEvenWhenTheReplyCannotBeDecoded() {
		String prefix = "review-giveback-" + UUID.randomUUID();
		RedisLeaseBackend backend = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(this.factory), prefix);
		backend.setMinReplicas(1, Duration.ofMillis(100));
		String job = "job-" + UUID.randomUUID();
		Instant previous = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);
		Instant slot = previous.plusSeconds(60);
		try {
			// a failed run whose attempt field is missing: recoverFailed finds it
			// pending,
			// so the claim keeps the run fields and returns attempt as ''
			this.admin.opsForHash()
				.putAll(backend.metaKey(job), Map.of("fence", "5", "last_slot", Long.toString(previous.toEpochMilli()),
						"run_slot", Long.toString(previous.toEpochMilli()), "run_state", "failed", "retry_at", "0"));
			LeaseRequest request = new LeaseRequest(job, "node-a", token(), TTL, slot)
				.withPolicy(new ClaimPolicy(false, true, 3, false), previous);
			assertThatIllegalStateException().isThrownBy(() -> backend.tryAcquire(request));
			assertThat(this.admin.hasKey(backend.leaseKey(job))).as("the grant no replica acknowledged was given back")
				.isFalse();
		}
		finally {
			this.admin.delete(List.of(backend.leaseKey(job), backend.metaKey(job)));
		}
	}

	private static String token() {
		return UUID.randomUUID().toString().replace("-", "");
	}

}
