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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The statements of the presence rows, kept in the lease table under names that start
 * with {@value #PREFIX} (no job's name can start with a blank), and of the sweep's read
 * of the claimed slots.
 *
 * @author cluster-singleton contributors
 */
final class PresenceStatements {

	/**
	 * The start of every presence row's name.
	 */
	static final String PREFIX = " node:";

	private final TimeBinding time;

	private final JdbcStatement heartbeat;

	private final JdbcStatement live;

	private final JdbcStatement leave;

	private final JdbcStatement claimedSince;

	PresenceStatements(String platform, String table, TimeBinding time) {
		this.time = time;
		this.heartbeat = JdbcStatement.load(platform, "node-heartbeat", table, false);
		this.live = JdbcStatement.load(platform, "node-live", table, false);
		this.leave = JdbcStatement.load(platform, "node-leave", table, false);
		this.claimedSince = JdbcStatement.load(platform, "claimed-since", table, true);
	}

	/**
	 * Write or renew a node's presence row, then read the live owners.
	 * @param connection a connection
	 * @param name the row's name
	 * @param owner the node's owner id
	 * @param ttl how long the row lives
	 * @return the live owners
	 * @throws SQLException on a database error
	 */
	Set<String> heartbeat(Connection connection, String name, String owner, Duration ttl) throws SQLException {
		try (PreparedStatement statement = this.heartbeat.prepare(connection,
				new MapSqlParameterSource("name", name).addValue("owner", owner)
					.addValue("ttlMillis", ttl.toMillis()))) {
			statement.executeUpdate();
		}
		Set<String> owners = new HashSet<>();
		try (PreparedStatement statement = this.live.prepare(connection, new MapSqlParameterSource("prefix", PREFIX));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				owners.add(resultSet.getString("owner"));
			}
		}
		return owners;
	}

	/**
	 * Remove a node's presence row, and those expired for a TTL or longer.
	 * @param connection a connection
	 * @param name the row's name
	 * @param ttl the TTL
	 * @throws SQLException on a database error
	 */
	void leave(Connection connection, String name, Duration ttl) throws SQLException {
		try (PreparedStatement statement = this.leave.prepare(connection,
				new MapSqlParameterSource("name", name).addValue("prefix", PREFIX)
					.addValue("ttlMillis", ttl.toMillis()))) {
			statement.executeUpdate();
		}
	}

	/**
	 * Read which jobs were claimed for a slot or a later one.
	 * @param connection a connection
	 * @param jobNames the jobs, at most {@link JdbcLeaseBackend#MAX_LEASES_PER_STATEMENT}
	 * @param slot the slot
	 * @return the claimed jobs
	 * @throws SQLException on a database error
	 */
	Set<String> claimedSince(Connection connection, Collection<String> jobNames, Instant slot) throws SQLException {
		Set<String> claimed = new HashSet<>();
		try (PreparedStatement statement = this.claimedSince.prepare(connection,
				new MapSqlParameterSource("names", List.copyOf(jobNames)).addValue("slot", this.time.bind(slot)));
				ResultSet resultSet = statement.executeQuery()) {
			while (resultSet.next()) {
				claimed.add(resultSet.getString("name"));
			}
		}
		return claimed;
	}

}
