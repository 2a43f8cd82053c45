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

import java.nio.charset.StandardCharsets;

/**
 * The hash slot of a key in a Redis Cluster, per the cluster specification: CRC16
 * (XMODEM) of the key, or of its hash tag (the part between the first opening brace and
 * the first closing brace after it, when not empty), modulo 16384.
 *
 * @author cluster-singleton contributors
 */
final class RedisClusterSlots {

	/**
	 * The number of hash slots of a Redis Cluster.
	 */
	static final int SLOTS = 16384;

	private RedisClusterSlots() {
	}

	/**
	 * Return the hash slot of a key.
	 * @param key the key
	 * @return the slot, from 0 to 16383
	 */
	static int slot(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		int from = 0;
		int to = bytes.length;
		int open = indexOf(bytes, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(bytes, (byte) '}', open + 1);
			if (close > open + 1) {
				from = open + 1;
				to = close;
			}
		}
		return crc16(bytes, from, to) % SLOTS;
	}

	private static int indexOf(byte[] bytes, byte wanted, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

	private static int crc16(byte[] bytes, int from, int to) {
		int crc = 0;
		for (int i = from; i < to; i++) {
			crc ^= (bytes[i] & 0xFF) << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
			crc &= 0xFFFF;
		}
		return crc;
	}

}
