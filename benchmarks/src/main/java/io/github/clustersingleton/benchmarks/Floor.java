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

package io.github.clustersingleton.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.RedisLeaseScript;

/**
 * The store's floor: the same round trips as the library, written by hand. On SQL one
 * owner-checked upsert that returns the fencing token plus one owner-checked release
 * {@code UPDATE}, on one plain connection from the same pool; on Redis one Lua acquire
 * (slot check, fence bump) plus one Lua release, through a plain Lettuce connection.
 *
 * @author cluster-singleton
 */
public final class Floor {

	private static final String T = Store.TABLE;

	private static final String PG_NOW = "CURRENT_TIMESTAMP";

	private static final String PG_ACQUIRE = "INSERT INTO " + T + " AS l (name, owner, lease_token, acquired_at, "
			+ "expires_at, last_slot, fencing_token) VALUES (?, ?, ?, " + PG_NOW + ", " + PG_NOW
			+ " + ? * INTERVAL '1 millisecond', NULL, 1) ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, "
			+ "lease_token = EXCLUDED.lease_token, acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at, "
			+ "fencing_token = l.fencing_token + 1 WHERE l.expires_at <= " + PG_NOW + " RETURNING fencing_token";

	// a release retires the token too, so that a late renewal cannot hold the lease again
	private static final String PG_RELEASE = "UPDATE " + T + " SET expires_at = " + PG_NOW + ", lease_token = ?"
			+ " WHERE name = ? AND lease_token = ? AND expires_at > " + PG_NOW;

	private static final String MY_NOW = "UTC_TIMESTAMP(6)";

	private static final String MY_WON = "lease_token = VALUES(lease_token)";

	private static final String MY_ACQUIRE = "INSERT INTO " + T
			+ " (name, owner, lease_token, acquired_at, expires_at, " + "last_slot, fencing_token) VALUES (?, ?, ?, "
			+ MY_NOW + ", " + MY_NOW
			+ " + INTERVAL ? * 1000 MICROSECOND, NULL, 1) ON DUPLICATE KEY UPDATE lease_token = IF(expires_at <= "
			+ MY_NOW + ", VALUES(lease_token), lease_token), owner = IF(" + MY_WON + ", VALUES(owner), owner), "
			+ "acquired_at = IF(" + MY_WON + ", VALUES(acquired_at), acquired_at), expires_at = IF(" + MY_WON
			+ ", VALUES(expires_at), expires_at), fencing_token = IF(" + MY_WON
			+ ", fencing_token + 1, fencing_token) RETURNING lease_token, fencing_token";

	private static final String MY_RELEASE = "UPDATE " + T + " SET expires_at = " + MY_NOW + ", lease_token = ?"
			+ " WHERE name = ? AND lease_token = ? AND expires_at > " + MY_NOW;

	private static final String H2_NOW = "CURRENT_TIMESTAMP";

	private static final String H2_ACQUIRE = "SELECT fencing_token FROM FINAL TABLE (MERGE INTO " + T
			+ " l USING (VALUES (CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64)), "
			+ "CAST(? AS BIGINT))) AS r(name, owner, lease_token, ttl) ON l.name = r.name WHEN MATCHED AND l.expires_at <= "
			+ H2_NOW + " THEN UPDATE SET owner = r.owner, lease_token = r.lease_token, acquired_at = " + H2_NOW
			+ ", expires_at = DATEADD(MILLISECOND, r.ttl, " + H2_NOW + "), fencing_token = l.fencing_token + 1 "
			+ "WHEN NOT MATCHED THEN INSERT (name, owner, lease_token, acquired_at, expires_at, last_slot, "
			+ "fencing_token) VALUES (r.name, r.owner, r.lease_token, " + H2_NOW + ", DATEADD(MILLISECOND, r.ttl, "
			+ H2_NOW + "), NULL, 1))";

	private static final String H2_RELEASE = PG_RELEASE;

	private Floor() {
	}

	/**
	 * Acquire and release a job's lease by hand.
	 * @param store the store
	 * @param job the job name
	 * @param owner the owner
	 * @return the fencing token
	 * @throws SQLException on a database error
	 */
	public static long acquireRelease(Store store, String job, String owner) throws SQLException {
		String token = UUID.randomUUID().toString();
		if (store.isRedis()) {
			RedisLeaseBackend backend = (RedisLeaseBackend) store.backend();
			String leaseKey = backend.leaseKey(job);
			List<Object> acquired = store.eval(RedisLeaseScript.ACQUIRE,
					new String[] { leaseKey, backend.metaKey(job) }, owner, token, Long.toString(Store.TTL.toMillis()),
					"");
			if (((Number) acquired.get(0)).longValue() != 1) {
				throw new IllegalStateException("Floor did not acquire '" + job + "'");
			}
			store.eval(RedisLeaseScript.RELEASE, new String[] { leaseKey }, token, "0");
			return ((Number) acquired.get(1)).longValue();
		}
		String acquireSql;
		String releaseSql;
		switch (store.name()) {
			case "postgresql" -> {
				acquireSql = PG_ACQUIRE;
				releaseSql = PG_RELEASE;
			}
			case "mariadb" -> {
				acquireSql = MY_ACQUIRE;
				releaseSql = MY_RELEASE;
			}
			default -> {
				acquireSql = H2_ACQUIRE;
				releaseSql = H2_RELEASE;
			}
		}
		long fence;
		try (Connection connection = store.dataSource().getConnection()) {
			try (PreparedStatement statement = connection.prepareStatement(acquireSql)) {
				statement.setString(1, job);
				statement.setString(2, owner);
				statement.setString(3, token);
				statement.setLong(4, Store.TTL.toMillis());
				try (ResultSet resultSet = statement.executeQuery()) {
					if (!resultSet.next()) {
						throw new IllegalStateException("Floor did not acquire '" + job + "'");
					}
					if ("mariadb".equals(store.name()) && !token.equals(resultSet.getString(1))) {
						throw new IllegalStateException("Floor did not acquire '" + job + "'");
					}
					fence = resultSet.getLong("fencing_token");
				}
			}
			try (PreparedStatement statement = connection.prepareStatement(releaseSql)) {
				statement.setString(1, "released:" + token);
				statement.setString(2, job);
				statement.setString(3, token);
				if (statement.executeUpdate() != 1) {
					throw new IllegalStateException("Floor did not release '" + job + "'");
				}
			}
		}
		return fence;
	}

	/**
	 * Renew leases by hand in one statement or one script call.
	 * @param store the store
	 * @param leases the leases
	 * @return how many were renewed
	 * @throws SQLException on a database error
	 */
	public static int renew(Store store, List<HeldLease> leases) throws SQLException {
		if (store.isRedis()) {
			RedisLeaseBackend backend = (RedisLeaseBackend) store.backend();
			String[] keys = new String[leases.size()];
			String[] args = new String[leases.size() + 1];
			args[0] = Long.toString(Store.TTL.toMillis());
			for (int i = 0; i < leases.size(); i++) {
				keys[i] = backend.leaseKey(leases.get(i).jobName());
				args[i + 1] = leases.get(i).leaseToken();
			}
			// the reply starts with the server's clock, then the positions of the renewed
			// leases
			return store.eval(RedisLeaseScript.RENEW, keys, args).size() - 1;
		}
		String placeholders = String.join(", ", Collections.nCopies(leases.size(), "?"));
		String sql = "UPDATE " + T + " SET expires_at = " + PG_NOW + " + ? * INTERVAL '1 millisecond' WHERE name IN ("
				+ placeholders + ") AND lease_token IN (" + placeholders + ") AND expires_at > " + PG_NOW
				+ " RETURNING lease_token";
		int renewed = 0;
		try (Connection connection = store.dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setLong(1, Store.TTL.toMillis());
			int index = 2;
			for (HeldLease lease : leases) {
				statement.setString(index++, lease.jobName());
			}
			for (HeldLease lease : leases) {
				statement.setString(index++, lease.leaseToken());
			}
			try (ResultSet resultSet = statement.executeQuery()) {
				while (resultSet.next()) {
					renewed++;
				}
			}
		}
		return renewed;
	}

}
