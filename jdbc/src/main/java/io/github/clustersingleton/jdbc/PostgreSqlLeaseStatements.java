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
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.util.Assert;

/**
 * PostgreSQL dialect ({@code postgresql/*.sql}): acquisition is one
 * {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING} statement, renewal one
 * {@code UPDATE ... RETURNING}. Times are {@code TIMESTAMP WITH TIME ZONE} compared with
 * {@code CURRENT_TIMESTAMP}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class PostgreSqlLeaseStatements extends LeaseStatements {

	/**
	 * How many claims {@link #claimTogether} sends in one round trip at most: the same
	 * text for every full round trip, which pgJDBC prepares on the server once it has
	 * been used a few times.
	 */
	private static final int CLAIMS_PER_ROUND_TRIP = 64;

	/**
	 * Create the statements. A PostgreSQL renewal gets no query timeout, only the network
	 * timeout. pgJDBC's query timeout sends a cancel request, and a cancel that reaches a
	 * backend whose commit waits for a synchronous standby ends the wait with a WARNING
	 * ("canceling wait for synchronous replication ... committed locally but might not
	 * have been replicated") and a success reply: the node would extend its deadline on a
	 * renewal the standby never got, and after a failover the new primary could let
	 * another node take the lease up to one TTL before that deadline. A network timeout
	 * never reports success: the renewal fails, its outcome unknown, and the watchdog
	 * tries again on another connection. (A query timeout longer than the network timeout
	 * would not be safe either: the network timeout counts from the last bytes read, so a
	 * reply that arrives in parts can outlast it.)
	 * @param table the validated table name
	 */
	PostgreSqlLeaseStatements(String table) {
		super(table, "postgresql", TimeBinding.OFFSET_DATE_TIME, RenewalTimeout.networkOnly());
	}

	/**
	 * Acquire with {@code acquire.sql} or {@code acquire-run.sql}, which answer a refusal
	 * in the same round trip with the row the refused claim saw; only when the job has no
	 * row the statement could read (its first insert is a concurrent transaction's) does
	 * a second round trip ({@code select-state.sql}) tell why.
	 */
	@Override
	AcquireResult tryAcquire(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = acquireStatement(request).prepare(connection,
				this.parameters.acquire(request)); ResultSet resultSet = statement.executeQuery()) {
			AcquireResult result = read(request, resultSet);
			if (result != null) {
				return result;
			}
		}
		return readOutcome(connection, request);
	}

	/**
	 * Claim the leases with one statement made of the claims' statements
	 * ({@code acquire.sql} or {@code acquire-run.sql} each, unchanged): pgJDBC sends them
	 * together, and the server runs them one after another in one transaction, so that
	 * each row lock a claim takes is held until the last claim has run, and an error
	 * rolls them all back. The callers send their claims in the order of the job names,
	 * so two such transactions take their row locks in one order.
	 */
	@Override
	List<@Nullable AcquireResult> claimTogether(Connection connection, List<LeaseRequest> requests)
			throws SQLException {
		List<JdbcStatement> statements = new ArrayList<>(requests.size());
		List<MapSqlParameterSource> parameters = new ArrayList<>(requests.size());
		for (LeaseRequest request : requests) {
			Assert.isTrue(!request.recovery(), "a recovery claim goes by itself");
			statements.add(acquireStatement(request));
			parameters.add(this.parameters.acquire(request));
		}
		List<@Nullable AcquireResult> results = new ArrayList<>(requests.size());
		try (PreparedStatement statement = JdbcStatement.prepareAll(connection, statements, parameters)) {
			boolean resultSet = statement.execute();
			for (LeaseRequest request : requests) {
				if (!resultSet) {
					throw new SQLException("the claims sent together returned " + results.size() + " results for "
							+ requests.size() + " claims");
				}
				try (ResultSet rows = statement.getResultSet()) {
					results.add(read(request, rows));
				}
				resultSet = statement.getMoreResults();
			}
		}
		return results;
	}

	/**
	 * Return {@value #CLAIMS_PER_ROUND_TRIP}.
	 */
	@Override
	int claimsPerRoundTrip() {
		return CLAIMS_PER_ROUND_TRIP;
	}

	/**
	 * Read the answer of {@code acquire.sql} or {@code acquire-run.sql}.
	 * @return the result, or {@code null} when the statement found no row
	 */
	private @Nullable AcquireResult read(LeaseRequest request, ResultSet resultSet) throws SQLException {
		if (!resultSet.next()) {
			return null;
		}
		this.rows.observeStoreTime(resultSet);
		if (resultSet.getInt("acquired") == 1) {
			return this.rows.acquired(request, resultSet);
		}
		if (!request.overridesPause() && resultSet.getInt("paused") == 1) {
			return AcquireResult.paused(this.time.read(resultSet, "last_slot"));
		}
		return AcquireResult.notAcquired(request, resultSet.getString("owner"), this.time.read(resultSet, "last_slot"),
				this.time.read(resultSet, "store_time"));
	}

	/**
	 * Start a run with {@code start-run.sql}, and tell it started only when the lease was
	 * still live when the row was written ({@code live}): its {@code WHERE} clause judges
	 * by the time the statement began, before any wait for the row lock.
	 */
	@Override
	OptionalLong startRun(Connection connection, HeldLease lease, Instant slot, int attempt) throws SQLException {
		try (PreparedStatement statement = this.startRun.prepare(connection,
				this.parameters.startRun(lease, slot, attempt)); ResultSet resultSet = statement.executeQuery()) {
			if (resultSet.next() && resultSet.getInt("live") == 1) {
				return OptionalLong.of(resultSet.getLong("fencing_token"));
			}
			return OptionalLong.empty();
		}
	}

	@Override
	Set<String> renew(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException {
		try (PreparedStatement statement = this.renewalTimeout.prepare(connection, this.renew,
				LeaseParameters.renew(leases, ttl))) {
			return this.rows.readTokens(statement, leases);
		}
	}

}
