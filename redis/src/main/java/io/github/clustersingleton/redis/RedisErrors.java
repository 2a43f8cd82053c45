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

import org.jspecify.annotations.Nullable;

/**
 * Recognizes Redis error replies in the exceptions of any client, by the error code that
 * starts the server's message somewhere in the cause chain.
 *
 * @author cluster-singleton contributors
 */
final class RedisErrors {

	private RedisErrors() {
	}

	/**
	 * Return whether the server did not know a script ({@code NOSCRIPT}).
	 * @param ex the exception
	 * @return whether it reports {@code NOSCRIPT}
	 */
	static boolean isNoScript(Throwable ex) {
		return contains(ex, "NOSCRIPT");
	}

	/**
	 * Return whether a Redis Cluster refused a call whose keys hash to several slots
	 * ({@code CROSSSLOT}).
	 * @param ex the exception
	 * @return whether it reports {@code CROSSSLOT}
	 */
	static boolean isCrossSlot(Throwable ex) {
		return contains(ex, "CROSSSLOT");
	}

	/**
	 * Return whether an exception reports that the server refused a key, a command or a
	 * channel to this client's user ({@code NOPERM}, Redis ACLs).
	 * @param ex the exception
	 * @return whether it reports {@code NOPERM}
	 */
	static boolean isNoPermission(Throwable ex) {
		return contains(ex, "NOPERM");
	}

	private static boolean contains(Throwable ex, String code) {
		@Nullable Throwable candidate = ex;
		for (int depth = 0; candidate != null && depth < 10; depth++) {
			String message = candidate.getMessage();
			if (message != null && message.contains(code)) {
				return true;
			}
			candidate = (candidate.getCause() != candidate) ? candidate.getCause() : null;
		}
		return false;
	}

}
