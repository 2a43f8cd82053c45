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

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * {@code acquire.lua} against settings of the server or values in the store that it must
 * survive without a wrong token or a lost slot, on a server of its own: an ACL written
 * for the keys of an earlier version, and fencing tokens that are not plain integers.
 *
 * @author cluster-singleton contributors
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisAcquireHardeningTests {

	private LocalRedisServers server;

	private LettuceConnectionFactory admin;

	private StringRedisTemplate redis;

	@BeforeAll
	void start() throws Exception {
		this.server = new LocalRedisServers(1);
		this.admin = factory(null, null);
		this.redis = new StringRedisTemplate(this.admin);
	}

	@AfterAll
	void stop() {
		this.admin.destroy();
		this.server.close();
	}

	private LettuceConnectionFactory factory(String user, String password) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("127.0.0.1", this.server.port(0));
		if (user != null) {
			configuration.setUsername(user);
			configuration.setPassword(RedisPassword.of(password));
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static LeaseRequest request(String job) {
		return new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), Duration.ofSeconds(30),
				Instant.now().truncatedTo(ChronoUnit.MINUTES));
	}

	/**
	 * An ACL that grants the keys of an earlier version (the job keys and the shared
	 * controls, nodes and probe keys) but not the claims index: claims go through without
	 * the index, and the sweep reads each job instead.
	 */
	@Test
	void anAclGrantingTheKeysOfTheVersionBeforeStillLetsAClaimThrough() {
		String prefix = "acl-" + UUID.randomUUID().toString().substring(0, 8);
		this.redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> connection
			.execute("ACL", "SETUSER".getBytes(), "cs".getBytes(), "on".getBytes(), ">pw".getBytes(),
					("~{" + prefix + ":*").getBytes(), ("~" + prefix + ":controls").getBytes(),
					("~" + prefix + ":nodes").getBytes(), ("~" + prefix + ":probe").getBytes(), "+@all".getBytes()));
		LettuceConnectionFactory restricted = factory("cs", "pw");
		try {
			RedisLeaseBackend backend = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(restricted), prefix);
			backend.initialize();
			LeaseRequest request = request("job");
			AcquireResult result = backend.tryAcquire(request);
			assertThat(result.isAcquired()).isTrue();
			assertThat(this.redis.hasKey(prefix + ":claims")).isFalse();
			assertThat(backend.presence())
				.hasValueSatisfying((presence) -> assertThat(presence.claimedSince(java.util.List.of("job", "other"),
						java.util.Objects.requireNonNull(request.slot())))
					.containsExactly("job"));
			assertThat(backend.tryAcquire(request("job2")).isAcquired()).isTrue();
		}
		finally {
			restricted.destroy();
		}
	}

	/**
	 * A fence that is not a plain integer ("-0") is left to HINCRBY, which refuses it:
	 * the claim fails rather than restart the fencing tokens at 1.
	 */
	@Test
	void aPlainFenceIsRaisedByOne() {
		String prefix = "plain-" + UUID.randomUUID().toString().substring(0, 8);
		this.redis.opsForHash().put("{" + prefix + ":job}:meta", "fence", "41");
		RedisLeaseBackend backend = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(this.admin), prefix);
		backend.initialize();
		assertThat(backend.tryAcquire(request("job")).fencingToken()).isEqualTo(42);
		assertThat(this.redis.opsForHash().get("{" + prefix + ":job}:meta", "fence")).isEqualTo("42");
	}

	@Test
	void aFenceThatHincrbyRefusesIsNotRestartedAtOne() {
		String prefix = "fence-" + UUID.randomUUID().toString().substring(0, 8);
		this.redis.opsForHash().put("{" + prefix + ":job}:meta", "fence", "-0");
		RedisLeaseBackend backend = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(this.admin), prefix);
		backend.initialize();
		assertThatRuntimeException().isThrownBy(() -> backend.tryAcquire(request("job")));
	}

	/**
	 * A claim that fails on a fence HINCRBY refuses writes nothing: neither the lease
	 * (which would block the job for its TTL) nor the slot (which would be lost).
	 */
	@Test
	void aClaimThatFailsOnACorruptFenceWritesNothing() {
		String prefix = "corrupt-" + UUID.randomUUID().toString().substring(0, 8);
		this.redis.opsForHash().put("{" + prefix + ":job}:meta", "fence", "abc");
		RedisLeaseBackend backend = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(this.admin), prefix);
		backend.initialize();
		assertThatRuntimeException().isThrownBy(() -> backend.tryAcquire(request("job")));
		assertThat(this.redis.hasKey("{" + prefix + ":job}:lease")).as("lease written").isFalse();
		assertThat(this.redis.opsForHash().get("{" + prefix + ":job}:meta", "last_slot")).as("last_slot written")
			.isNull();
	}

}
