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
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Reads the elements of a Lua script's reply as the clients return them: {@link String}s
 * (or bytes) for bulk replies, {@link Long}s for integer replies, and {@code ''} standing
 * for none.
 *
 * @author cluster-singleton contributors
 */
final class RedisReplies {

	private RedisReplies() {
	}

	/**
	 * Return an element of a reply.
	 * @param reply the reply
	 * @param index the index of the element
	 * @return the element, {@code null} when the reply is shorter
	 */
	static @Nullable Object element(List<Object> reply, int index) {
		return (index < reply.size()) ? reply.get(index) : null;
	}

	/**
	 * Return an element as a number.
	 * @param value the element
	 * @return the number
	 * @throws IllegalStateException when the element is missing or empty
	 */
	static long asLong(@Nullable Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		String text = asText(value);
		Assert.state(text != null, "Unexpected empty element in a Redis script reply");
		return Long.parseLong(text);
	}

	/**
	 * Return an element as text.
	 * @param value the element
	 * @return the text, {@code null} when missing or empty
	 */
	static @Nullable String asText(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		String text = (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : value.toString();
		return text.isEmpty() ? null : text;
	}

	/**
	 * Return an element in epoch milliseconds as an instant.
	 * @param value the element
	 * @return the instant, {@code null} when missing or empty
	 */
	static @Nullable Instant asInstant(@Nullable Object value) {
		String text = asText(value);
		return (text != null) ? Instant.ofEpochMilli(Long.parseLong(text)) : null;
	}

	/**
	 * Return an element in epoch milliseconds (a server's clock) as an instant.
	 * @param value the element
	 * @return the instant, {@code null} when missing
	 */
	static @Nullable Instant asTime(@Nullable Object value) {
		return (value != null) ? Instant.ofEpochMilli(asLong(value)) : null;
	}

	/**
	 * Return a flag as a script argument.
	 * @param value the flag
	 * @return {@code "1"} or {@code "0"}
	 */
	static String flag(boolean value) {
		return value ? "1" : "0";
	}

	/**
	 * Return an optional instant as a script argument, in epoch milliseconds.
	 * @param instant the instant
	 * @return the epoch milliseconds, {@code ""} for none
	 */
	static String millis(@Nullable Instant instant) {
		return (instant != null) ? Long.toString(instant.toEpochMilli()) : "";
	}

}
