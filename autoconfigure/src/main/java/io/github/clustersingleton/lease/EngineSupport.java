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

package io.github.clustersingleton.lease;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * What every part of the engine shares: safe listener calls, fatal-error rethrow, the
 * descriptions of failures and slots in log lines, and new lease tokens.
 *
 * @author cluster-singleton contributors
 */
final class EngineSupport {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private static final SecureRandom TOKEN_SOURCE = new SecureRandom();

	private EngineSupport() {
	}

	static String describe(Enum<?> policy) {
		return policy.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * Log a message at debug level, building it only when debug is on: with Commons
	 * Logging 1.3 over SLF4J (Spring Framework 7 with Logback, Spring Boot's default),
	 * {@code logger.debug(LogMessage.of(...))} turns the message into a string whatever
	 * the level, and the engine logs on every trigger of every job.
	 * @param logger the logger
	 * @param message the message
	 */
	static void debug(Log logger, Supplier<String> message) {
		if (logger.isDebugEnabled()) {
			logger.debug(message.get());
		}
	}

	/**
	 * Log a message and an exception at debug level, building the message only when debug
	 * is on ({@link #debug(Log, Supplier)}).
	 * @param logger the logger
	 * @param message the message
	 * @param ex the exception
	 */
	static void debug(Log logger, Supplier<String> message, Throwable ex) {
		if (logger.isDebugEnabled()) {
			logger.debug(message.get(), ex);
		}
	}

	static void notify(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton listener failed", ex);
		}
	}

	static void rethrowIfFatal(Throwable ex) {
		if (ex instanceof VirtualMachineError error) {
			throw error;
		}
	}

	/**
	 * Describe a store failure with its root cause, which clients often wrap in a message
	 * that does not say what went wrong ("Operation [get] failed").
	 */
	static String describeFailure(Throwable ex) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(ex);
		return (root != ex) ? ex + " (caused by " + root + ")" : ex.toString();
	}

	static String describeSlot(@Nullable Instant slot) {
		return (slot != null) ? " for slot " + slot : "";
	}

	/**
	 * Return a new lease token: 128 bits from {@link SecureRandom}, not from a seeded
	 * PRNG, so two JVMs restored from one checkpoint (CRaC) or forked from one image
	 * cannot hand out the same tokens.
	 */
	static String newLeaseToken() {
		byte[] bytes = new byte[16];
		TOKEN_SOURCE.nextBytes(bytes);
		return HexFormat.of().formatHex(bytes);
	}

}
