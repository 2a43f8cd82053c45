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

import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The startup warnings about Redis server settings that weaken the leases: no
 * persistence, eviction, and a quorum member that does not sync every write. Managed
 * services often disable {@code CONFIG}: a server that does not answer is logged at debug
 * level, not checked.
 *
 * @author cluster-singleton contributors
 */
final class RedisServerChecks {

	/**
	 * The single-server backend's logger: these are its messages.
	 */
	private static final Log logger = LogFactory.getLog(RedisLeaseBackend.class);

	/**
	 * The quorum backend's logger: these are its messages.
	 */
	private static final Log quorumLogger = LogFactory.getLog(RedisQuorumLeaseBackend.class);

	private RedisServerChecks() {
	}

	/**
	 * Warn once when the server persists nothing or may evict keys.
	 * @param executor the server
	 */
	static void warnAboutPersistenceAndEviction(RedisScriptExecutor executor) {
		try {
			warnWithoutPersistence(executor);
			warnAboutEviction(executor);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not read the Redis server's settings (CONFIG GET may be "
					+ "disabled on this server); not checking them", ex);
		}
	}

	private static void warnWithoutPersistence(RedisScriptExecutor executor) {
		Map<String, String> save = executor.getConfig("save");
		Map<String, String> appendOnly = executor.getConfig("appendonly");
		boolean snapshots = save.values().stream().anyMatch((value) -> value != null && !value.isBlank());
		boolean appendOnlyFile = appendOnly.values().stream().anyMatch("yes"::equalsIgnoreCase);
		if (!save.isEmpty() && !appendOnly.isEmpty() && !snapshots && !appendOnlyFile) {
			logger.warn("cluster-singleton: the Redis server (" + executor + ") persists nothing (CONFIG "
					+ "'save' is empty and 'appendonly' is 'no'). After a Redis restart every job's fencing token "
					+ "starts again at 1 and the last claimed cron slots are forgotten: fencing tokens then no "
					+ "longer increase across the restart, and a cron slot claimed just before it may run again. "
					+ "Enable AOF (appendonly yes) if you rely on them; see the Redis page of the "
					+ "cluster-singleton documentation");
		}
	}

	private static void warnAboutEviction(RedisScriptExecutor executor) {
		Map<String, String> maxMemory = executor.getConfig("maxmemory");
		boolean limited = maxMemory.values().stream().anyMatch((value) -> value != null && !value.equals("0"));
		if (!limited) {
			return;
		}
		Map<String, String> policy = executor.getConfig("maxmemory-policy");
		boolean evicts = policy.values().stream().anyMatch((value) -> !"noeviction".equalsIgnoreCase(value));
		if (evicts) {
			logger.warn("cluster-singleton: the Redis server (" + executor + ") may evict keys when it reaches "
					+ "maxmemory (maxmemory-policy " + policy.values() + "). An evicted lease ends early, so another "
					+ "node may start a job that still runs here; an evicted meta hash restarts the job's fencing "
					+ "tokens and forgets its last cron slot. Use maxmemory-policy noeviction, or a Redis of its own "
					+ "for the leases");
		}
	}

	/**
	 * Warn when a quorum member may lose acknowledged writes when it restarts (it needs
	 * {@code appendonly yes} and {@code appendfsync always}).
	 * @param member the member
	 */
	static void warnUnlessEveryWriteIsSynced(RedisScriptExecutor member) {
		try {
			Map<String, String> fsync = member.getConfig("appendfsync");
			Map<String, String> appendOnly = member.getConfig("appendonly");
			boolean always = appendOnly.values().stream().anyMatch("yes"::equalsIgnoreCase)
					&& fsync.values().stream().anyMatch("always"::equalsIgnoreCase);
			if (!fsync.isEmpty() && !always) {
				quorumLogger.warn("cluster-singleton: Redis quorum member " + member + " does not "
						+ "write every change to disk before it answers (it needs appendonly yes and appendfsync "
						+ "always). If it restarts and loses recent writes, fencing tokens and cron slots stay "
						+ "exact only while every other member is up; and it must stay down for a lease TTL "
						+ "before it rejoins, or two nodes may hold one lease. See the Redis page of the "
						+ "cluster-singleton documentation");
			}
		}
		catch (RuntimeException ex) {
			quorumLogger.debug(
					"cluster-singleton could not read the persistence settings of Redis quorum member " + member, ex);
		}
	}

}
