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

import java.util.Random;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisClusterSlots}, against Lettuce's implementation of the Redis
 * Cluster specification.
 *
 * @author cluster-singleton contributors
 */
class RedisClusterSlotsTests {

	@Test
	void slotsMatchTheClusterSpecification() {
		// the specification's example: CRC16 of "123456789" is 0x31C3
		assertThat(RedisClusterSlots.slot("123456789")).isEqualTo(0x31C3 % 16384);
		assertThat(RedisClusterSlots.slot("{user1000}.following"))
			.isEqualTo(RedisClusterSlots.slot("{user1000}.followers"))
			.isEqualTo(RedisClusterSlots.slot("user1000"));
		// an empty tag hashes the whole key; only the first tag counts
		assertThat(RedisClusterSlots.slot("foo{}{bar}")).isEqualTo(SlotHash.getSlot("foo{}{bar}"));
		assertThat(RedisClusterSlots.slot("foo{{bar}}zap")).isEqualTo(SlotHash.getSlot("{bar"));
		assertThat(RedisClusterSlots.slot("foo{bar}{zap}")).isEqualTo(SlotHash.getSlot("bar"));
	}

	@Test
	void slotsAgreeWithLettuce() {
		Random random = new Random(42);
		String alphabet = "abcXYZ019:{}.-_ üé";
		for (int i = 0; i < 5000; i++) {
			StringBuilder key = new StringBuilder();
			int length = random.nextInt(40);
			for (int c = 0; c < length; c++) {
				key.append(alphabet.charAt(random.nextInt(alphabet.length())));
			}
			assertThat(RedisClusterSlots.slot(key.toString())).as(key.toString())
				.isEqualTo(SlotHash.getSlot(key.toString()));
		}
	}

}
