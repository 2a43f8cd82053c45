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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.util.Assert;

/**
 * MySQL dialect ({@code mysql/*.sql}): acquisition is one
 * {@code INSERT ... ON DUPLICATE KEY UPDATE} statement followed by a {@code SELECT} of
 * the row (MySQL has no {@code RETURNING}); our lease token in the row means we won. The
 * upsert's assignments give the same result whatever order the server evaluates them in
 * (MariaDB's {@code SIMULTANEOUS_ASSIGNMENT} sql_mode included); see the statement's
 * comments. Times are {@code DATETIME(6)} holding UTC, compared with
 * {@code UTC_TIMESTAMP(6)} so that the session time zone never matters. Claims sent
 * together ({@link #claimTogether}) are one transaction: the upserts as one JDBC batch,
 * then one {@code SELECT} of their rows.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
sealed class MySqlLeaseStatements extends LeaseStatements permits MariaDbLeaseStatements {

	/**
	 * How many claims {@link #claimTogether} sends in one transaction at most: its batch
	 * of upserts and its read of their rows are two round trips with MariaDB Connector/J,
	 * which sends a batch at once (other drivers may send a batch's statements one by
	 * one).
	 */
	private static final int CLAIMS_PER_TRANSACTION = 128;

	private final JdbcStatement selectLive;

	private final JdbcStatement batchAcquire;

	private final JdbcStatement batchAcquireRun;

	private final JdbcStatement selectStates;

	MySqlLeaseStatements(String table) {
		this(table, JdbcStatement.load("mysql", "acquire", table, false),
				JdbcStatement.load("mysql", "acquire-run", table, false));
	}

	protected MySqlLeaseStatements(String table, JdbcStatement acquire, JdbcStatement acquireRun) {
		super(table, acquire, acquireRun, "mysql", TimeBinding.UTC_LOCAL_DATE_TIME, RenewalTimeout.networkAndQuery());
		this.selectLive = JdbcStatement.load("mysql", "select-live", table, true);
		// without RETURNING, which a batch cannot answer: the rows are read afterwards
		this.batchAcquire = JdbcStatement.load("mysql", "acquire", table, false);
		this.batchAcquireRun = JdbcStatement.load("mysql", "acquire-run", table, false);
		this.selectStates = JdbcStatement.load("mysql", "select-states", table, true);
	}

	@Override
	AcquireResult tryAcquire(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = acquireStatement(request).prepare(connection,
				this.parameters.acquire(request))) {
			statement.executeUpdate();
		}
		return readOutcome(connection, request);
	}

	/**
	 * Claim several leases in one transaction: the upserts of {@code acquire.sql} or
	 * {@code acquire-run.sql} (one JDBC batch per run of requests with the same
	 * statement), then {@code select-states.sql}, which reads every row they found or
	 * inserted, still locked by them: a row carrying a claim's lease token means it won,
	 * as after a claim on its own. An error rolls every claim back, so a failed call
	 * holds nothing.
	 * @return one result per request, in order; {@code null} where the job has no row
	 * (its claim was refused before the upsert), which {@link #readOutcome} explains
	 */
	@Override
	List<@Nullable AcquireResult> claimTogether(Connection connection, List<LeaseRequest> requests)
			throws SQLException {
		Assert.isTrue(connection.getAutoCommit(), "claims sent together need an auto-commit connection");
		Map<String, List<Integer>> positions = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			Assert.isTrue(!requests.get(i).recovery(), "a recovery claim goes by itself");
			positions.computeIfAbsent(requests.get(i).jobName(), (name) -> new ArrayList<>()).add(i);
		}
		connection.setAutoCommit(false);
		try {
			for (int from = 0; from < requests.size();) {
				JdbcStatement statement = batchStatement(requests.get(from));
				List<MapSqlParameterSource> parameters = new ArrayList<>();
				int to = from;
				while (to < requests.size() && batchStatement(requests.get(to)) == statement) {
					parameters.add(this.parameters.acquire(requests.get(to)));
					to++;
				}
				try (PreparedStatement batch = statement.prepareBatch(connection, parameters)) {
					batch.executeBatch();
				}
				from = to;
			}
			List<@Nullable AcquireResult> results = new ArrayList<>(Collections.nCopies(requests.size(), null));
			try (PreparedStatement statement = this.selectStates.prepare(connection,
					LeaseParameters.jobs(positions.keySet())); ResultSet resultSet = statement.executeQuery()) {
				while (resultSet.next()) {
					for (int i : positions.getOrDefault(resultSet.getString("name"), List.of())) {
						results.set(i, this.rows.outcome(requests.get(i), resultSet));
					}
				}
			}
			connection.commit();
			return results;
		}
		catch (SQLException | RuntimeException ex) {
			try {
				connection.rollback();
			}
			catch (SQLException rollbackFailure) {
				ex.addSuppressed(rollbackFailure);
			}
			throw ex;
		}
		finally {
			connection.setAutoCommit(true);
		}
	}

	/**
	 * Return {@value #CLAIMS_PER_TRANSACTION}.
	 */
	@Override
	int claimsPerRoundTrip() {
		return CLAIMS_PER_TRANSACTION;
	}

	private JdbcStatement batchStatement(LeaseRequest request) {
		return LeaseParameters.recordsRun(request) ? this.batchAcquireRun : this.batchAcquire;
	}

	/**
	 * Make a recovery claim: {@code recover.sql}, then, when it changed the row,
	 * {@code select-state.sql} for the fencing token and the run (no {@code RETURNING} on
	 * an {@code UPDATE}). A row that no longer carries our token by then was taken over
	 * again: nothing is held.
	 */
	@Override
	AcquireResult recover(Connection connection, LeaseRequest request) throws SQLException {
		try (PreparedStatement statement = this.recover.prepare(connection, this.parameters.acquire(request))) {
			if (statement.executeUpdate() == 0) {
				return refusedRecovery(connection, request);
			}
		}
		AcquireResult result = readOutcome(connection, request);
		return result.isAcquired() ? result : AcquireResult.nothingPending();
	}

	/**
	 * Start a run with {@code start-run.sql}, whose {@code LAST_INSERT_ID(expr)} brings
	 * the new fencing token back as the statement's generated key, in the same round
	 * trip.
	 */
	@Override
	OptionalLong startRun(Connection connection, HeldLease lease, Instant slot, int attempt) throws SQLException {
		try (PreparedStatement statement = this.startRun.prepare(connection,
				this.parameters.startRun(lease, slot, attempt), true)) {
			if (statement.executeUpdate() == 0) {
				return OptionalLong.empty();
			}
			try (ResultSet keys = statement.getGeneratedKeys()) {
				if (keys.next() && keys.getLong(1) > 0) {
					return OptionalLong.of(keys.getLong(1));
				}
			}
		}
		// a driver that does not report LAST_INSERT_ID(expr) as a key: read the row,
		// which shows the new fencing token as long as it still carries our lease token
		try (PreparedStatement statement = this.selectState.prepare(connection, LeaseParameters.job(lease.jobName()));
				ResultSet resultSet = statement.executeQuery()) {
			if (resultSet.next() && lease.leaseToken().equals(resultSet.getString("lease_token"))) {
				return OptionalLong.of(resultSet.getLong("fencing_token"));
			}
		}
		return OptionalLong.empty();
	}

	@Override
	Set<String> renew(Connection connection, List<HeldLease> leases, Duration ttl) throws SQLException {
		MapSqlParameterSource parameters = LeaseParameters.renew(leases, ttl);
		int updated;
		try (PreparedStatement statement = this.renewalTimeout.prepare(connection, this.renew, parameters)) {
			updated = statement.executeUpdate();
		}
		if (updated == leases.size()) {
			return LeaseRows.tokens(leases);
		}
		// some leases are gone: ask which of ours are still live (and so were renewed)
		try (PreparedStatement statement = this.renewalTimeout.prepare(connection, this.selectLive, parameters)) {
			return this.rows.readTokens(statement, leases);
		}
	}

}
