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

package io.github.clustersingleton.sample;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Boots the demo with the {@code redis} profile against the test Redis server (found by
 * {@link TestStores#redisUrl()}), under a key prefix of its own.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "cluster-singleton.lease-ttl=2s", "demo.report-cron=* * * * * *", "demo.cleanup-delay=500ms",
				"demo.export-cron=0 0 0 1 1 *" })
@ActiveProfiles("redis")
class SampleApplicationRedisTests {

	private static final String KEY_PREFIX = "cs-sample-test-" + UUID.randomUUID();

	@Autowired
	private RunLog runLog;

	@Autowired
	private LeaseBackend leaseBackend;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private ApplicationContext context;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("cluster-singleton.redis.key-prefix", () -> KEY_PREFIX);
		URI url = URI.create(TestStores.redisUrl());
		registry.add("spring.data.redis.host", url::getHost);
		registry.add("spring.data.redis.port", url::getPort);
	}

	@AfterEach
	void removeKeys() {
		List<String> keys = new ArrayList<>();
		try (Cursor<String> cursor = this.redis
			.scan(ScanOptions.scanOptions().match("{" + KEY_PREFIX + ":*").count(1000).build())) {
			cursor.forEachRemaining(keys::add);
		}
		if (!keys.isEmpty()) {
			this.redis.delete(keys);
		}
	}

	@Test
	void jobsShareTheirLeasesInRedis() {
		assertThat(this.leaseBackend).isInstanceOf(RedisLeaseBackend.class);
		assertThat(this.context.getBeansOfType(DataSource.class)).isEmpty();
		await().atMost(Duration.ofSeconds(12))
			.untilAsserted(() -> assertThat(this.runLog.runs("report")).hasSizeGreaterThanOrEqualTo(2));
		List<RunLog.Run> runs = this.runLog.runs("report");
		for (int i = 1; i < runs.size(); i++) {
			assertThat(runs.get(i).fencingToken()).isGreaterThan(runs.get(i - 1).fencingToken());
		}
		assertThat(this.redis.opsForHash().get("{" + KEY_PREFIX + ":report}:meta", "fence")).isNotNull();
		await().atMost(Duration.ofSeconds(12))
			.untilAsserted(() -> assertThat(this.runLog.runs("cleanup")).isNotEmpty());
	}

}
