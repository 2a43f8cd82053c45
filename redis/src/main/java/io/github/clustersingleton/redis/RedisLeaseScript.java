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

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the Redis lease backend, read from the {@code .lua} files next to
 * this class. Each script is identified by the SHA-1 digest of its source, as Redis's
 * script cache does, so executors run it with {@code EVALSHA} and send the source only
 * when the server does not know it yet.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public enum RedisLeaseScript {

	/**
	 * Acquire a lease, by a first or a recovery claim: {@code KEYS} lease and meta key;
	 * {@code ARGV} owner, lease token, TTL in milliseconds, slot in epoch milliseconds or
	 * {@code ''}, slot tolerance in milliseconds, then the claim policy (recoverLost,
	 * recoverFailed, maxAttempts, catchUp), the previous slot or {@code ''}, the recovery
	 * flag and the recovery grace in milliseconds. Outside a Redis Cluster also the
	 * pause-all key and the claims index, which a claim of a slot updates.
	 */
	ACQUIRE("acquire.lua"),

	/**
	 * Phase 1 of a quorum acquisition, on one member: grant the lease and tell the fence
	 * and last slot: {@code KEYS} lease and meta key; {@code ARGV} owner, lease token,
	 * TTL in milliseconds, slot in epoch milliseconds or {@code ''}, slot tolerance in
	 * milliseconds.
	 */
	QUORUM_GRANT("quorum-grant.lua"),

	/**
	 * Phase 2 of a quorum acquisition, on one member: raise the fence and the last slot
	 * to the picked ones: {@code KEYS} lease and meta key; {@code ARGV} lease token,
	 * fence, slot in epoch milliseconds or {@code ''}.
	 */
	QUORUM_COMMIT("quorum-commit.lua"),

	/**
	 * Start another run under a held lease: {@code KEYS} lease and meta key; {@code ARGV}
	 * lease token, slot in epoch milliseconds, attempt.
	 */
	START_RUN("start-run.lua"),

	/**
	 * Find the jobs with pending work: {@code KEYS} lease and meta key of each job;
	 * {@code ARGV} recoverLost, recoverFailed and maxAttempts of each job.
	 */
	FIND_PENDING("find-pending.lua"),

	/**
	 * Insert or replace a run in a job's ledger and trim it: {@code KEYS} the ledger key;
	 * {@code ARGV} fencing token, the run's JSON, how many runs to keep.
	 */
	RUN_RECORD("run-record.lua"),

	/**
	 * Insert or replace several runs in their jobs' ledgers (jobs of one hash slot in a
	 * Redis Cluster) and trim each ledger once.
	 */
	RUN_RECORD_BATCH("run-record-batch.lua"),

	/**
	 * Mark every running run of a job's ledger with a lower fencing token than the given
	 * one as lost: {@code KEYS} the ledger key; {@code ARGV} fencing token.
	 */
	RUN_MARK_LOST("run-mark-lost.lua"),

	/**
	 * Read the newest runs of a job's ledger: {@code KEYS} the ledger key; {@code ARGV}
	 * the most runs to return.
	 */
	RUN_HISTORY("run-history.lua"),

	/**
	 * Read when each job last succeeded: {@code KEYS} the ledger key of each job.
	 */
	RUN_LAST_SUCCESS("run-last-success.lua"),

	/**
	 * Renew leases: {@code KEYS} the lease keys; {@code ARGV} TTL in milliseconds, then
	 * one lease token per key.
	 */
	RENEW("renew.lua"),

	/**
	 * Record how a run ended, by its token, and release its lease: {@code KEYS} lease and
	 * meta key; {@code ARGV} lease token, lockAtLeastFor in milliseconds, how the run
	 * ended ({@code succeeded}, {@code failed} or {@code ''}) and the retry delay in
	 * milliseconds.
	 */
	RELEASE("release.lua"),

	/**
	 * Describe a lease: {@code KEYS} lease and meta key.
	 */
	DESCRIBE("describe.lua"),

	/**
	 * Force-release a lease: {@code KEYS} the lease key.
	 */
	FORCE_RELEASE("force-release.lua"),

	/**
	 * Pause a job, or every job, or mark a job as paused by a pause of every job:
	 * {@code KEYS} a meta key or the pause-all key; {@code ARGV} who, why, the mark flag.
	 */
	CONTROL_PAUSE("control-pause.lua"),

	/**
	 * Resume a job, or clear the pause of every job: {@code KEYS} a meta key or the
	 * pause-all key; {@code ARGV} the skip flag, the resume-all flag.
	 */
	CONTROL_RESUME("control-resume.lua"),

	/**
	 * Store or clear a job's cron override: {@code KEYS} the meta key; {@code ARGV} the
	 * expression or {@code ''}.
	 */
	CONTROL_RESCHEDULE("control-reschedule.lua"),

	/**
	 * Read the controls of several jobs: {@code KEYS} the meta keys, the run-now keys and
	 * optionally the pause-all key; {@code ARGV} the number of jobs.
	 */
	CONTROL_READ("control-read.lua"),

	/**
	 * Store a run-now request: {@code KEYS} meta and run-now key; {@code ARGV} who asked.
	 */
	MANUAL_REQUEST("manual-request.lua"),

	/**
	 * Start a pending run-now request: {@code KEYS} lease, meta and run-now key;
	 * {@code ARGV} request id, owner, fencing token.
	 */
	MANUAL_START("manual-start.lua"),

	/**
	 * Record how a run-now request ended: {@code KEYS} the run-now key; {@code ARGV}
	 * request id, state, error, how many ended requests to keep.
	 */
	MANUAL_FINISH("manual-finish.lua"),

	/**
	 * Read run-now requests: {@code KEYS} the run-now key; {@code ARGV} request id or
	 * {@code ''}, the most to return.
	 */
	MANUAL_READ("manual-read.lua"),

	/**
	 * Renew this node's presence entry and read the live ones: {@code KEYS} the nodes
	 * key; {@code ARGV} owner id, TTL in milliseconds.
	 */
	NODE_HEARTBEAT("node-heartbeat.lua"),

	/**
	 * Remove this node's presence entry: {@code KEYS} the nodes key; {@code ARGV} owner
	 * id.
	 */
	NODE_LEAVE("node-leave.lua"),

	/**
	 * Which jobs were claimed for a slot or later: {@code KEYS} their meta hashes;
	 * {@code ARGV} the slot in epoch milliseconds.
	 */
	CLAIMED_SINCE("claimed-since.lua"),

	/**
	 * Which jobs were claimed for a slot or later, from the claims index (not in a Redis
	 * Cluster): {@code KEYS} the claims index, then the jobs' meta hashes (read only
	 * before Redis 6.2); {@code ARGV} the slot in epoch milliseconds, then the job names.
	 */
	CLAIMED_SINCE_INDEX("claimed-since-index.lua");

	private final String fileName;

	private final String source;

	private final String sha1;

	RedisLeaseScript(String fileName) {
		this.fileName = fileName;
		this.source = read(fileName);
		this.sha1 = sha1(this.source);
	}

	/**
	 * Return the name of the script's file, next to this class.
	 * @return the file name
	 */
	public String getFileName() {
		return this.fileName;
	}

	/**
	 * Return the Lua source of the script.
	 * @return the source
	 */
	public String getSource() {
		return this.source;
	}

	/**
	 * Return the SHA-1 digest of the source, in lower-case hex: the script's name in
	 * Redis's script cache.
	 * @return the digest
	 */
	public String getSha1() {
		return this.sha1;
	}

	private static String read(String fileName) {
		try (InputStream in = RedisLeaseScript.class.getResourceAsStream(fileName)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + fileName + " not found next to "
						+ RedisLeaseScript.class.getName() + " on the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Failed to read Lua script " + fileName, ex);
		}
	}

	private static String sha1(String source) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-1");
			return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

}
