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

package io.github.clustersingleton.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.NodePresence;

import org.springframework.util.Assert;

/**
 * {@link NodePresence} of the {@link JdbcLeaseBackend}: one row per node in the lease
 * table, named {@value PresenceStatements#PREFIX} and a hash of the node's owner id (the
 * owner id itself is in column {@code owner}), with an expiry by the database's clock, as
 * a lease has; and the sweep's read of which jobs were claimed for a slot, a plain
 * {@code SELECT} that takes no row lock.
 *
 * @author cluster-singleton contributors
 */
final class JdbcNodePresence implements NodePresence {

	private final JdbcLeaseBackend backend;

	private volatile boolean cleaned;

	JdbcNodePresence(JdbcLeaseBackend backend) {
		this.backend = backend;
	}

	@Override
	public Set<String> heartbeat(String owner, Duration ttl) {
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		String name = rowName(owner);
		if (!this.cleaned) {
			// the rows of nodes stopped without removing theirs, once per start
			this.backend.execute("remove expired presence rows", (connection, statements) -> {
				statements.presence().leave(connection, name, ttl);
				return Boolean.TRUE;
			});
			this.cleaned = true;
		}
		return this.backend.execute("renew the presence row of node '" + owner + "'",
				(connection, statements) -> statements.presence().heartbeat(connection, name, owner, ttl));
	}

	@Override
	public void leave(String owner) {
		Assert.hasText(owner, "'owner' must not be empty");
		this.backend.execute("remove the presence row of node '" + owner + "'", (connection, statements) -> {
			statements.presence().leave(connection, rowName(owner), Duration.ofDays(1));
			return Boolean.TRUE;
		});
	}

	@Override
	public Set<String> claimedSince(Collection<String> jobNames, Instant slot) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		List<String> names = jobNames.stream().distinct().toList();
		if (names.isEmpty()) {
			return Set.of();
		}
		return this.backend.execute("read which of " + names.size() + " job(s) were claimed for slot " + slot,
				(connection, statements) -> {
					Set<String> claimed = new HashSet<>();
					for (int from = 0; from < names.size(); from += JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT) {
						claimed.addAll(statements.presence()
							.claimedSince(connection,
									names.subList(from,
											Math.min(from + JdbcLeaseBackend.MAX_LEASES_PER_STATEMENT, names.size())),
									slot));
					}
					return claimed;
				});
	}

	/**
	 * The name of a node's presence row: the prefix and the first 32 hex digits of the
	 * SHA-256 of its owner id, which fits the {@code name} column whatever the owner id.
	 */
	static String rowName(String owner) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(owner.getBytes(StandardCharsets.UTF_8));
			return PresenceStatements.PREFIX + HexFormat.of().formatHex(digest, 0, 16);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

}
