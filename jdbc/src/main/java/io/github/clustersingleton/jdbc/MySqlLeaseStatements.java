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
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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

	/**
	 * MariaDB's error for a statement its prepared-statement protocol does not support,
	 * which a server may answer to a batch sent in its bulk protocol.
	 */
	private static final int BULK_UNSUPPORTED = 1295;

	/**
	 * MariaDB's error for a row changed since the transaction read it
	 * ({@code innodb_snapshot_isolation}), which a claim in a transaction of its own does
	 * not meet.
	 */
	private static final int RECORD_CHANGED = 1020;

	private static final Log logger = LogFactory.getLog(JdbcLeaseBackend.class);

	private final JdbcStatement selectLive;

	private final JdbcStatement batchAcquire;

	private final JdbcStatement batchAcquireRun;

	private final JdbcStatement selectStates;

	private volatile boolean claimsOneByOne;

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
	 * holds nothing; a connection whose rollback failed is aborted rather than returned
	 * with the transaction open. Two errors of the transaction itself make the claims one
	 * by one instead, each in a transaction of its own as at a trigger: a server that
	 * refuses the batch's statement in its bulk protocol (error 1295; from then on this
	 * platform's claims go one by one), and a row changed since the transaction read it
	 * under {@code innodb_snapshot_isolation} (error 1020).
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
		List<@Nullable AcquireResult> results;
		connection.setAutoCommit(false);
		try {
			results = claimInTransaction(connection, requests, positions);
			connection.commit();
		}
		catch (SQLException | RuntimeException ex) {
			if (!rolledBack(connection, ex)) {
				throw ex;
			}
			if (ex instanceof SQLException failure && hasErrorCode(failure, BULK_UNSUPPORTED)) {
				this.claimsOneByOne = true;
				logger.info("cluster-singleton: this MariaDB server refuses the claims of an instant sent as one "
						+ "batch (error 1295); the leader claims them one at a time from now on");
				return claimOneByOne(connection, requests);
			}
			if (ex instanceof SQLException failure && hasErrorCode(failure, RECORD_CHANGED)) {
				return claimOneByOne(connection, requests);
			}
			throw ex;
		}
		try {
			connection.setAutoCommit(true);
		}
		catch (SQLException ex) {
			// the claims committed: their answer stands; the pool deals with the
			// connection
			logger.debug("cluster-singleton could not switch auto-commit back on after claims sent together", ex);
		}
		return results;
	}

	private List<@Nullable AcquireResult> claimInTransaction(Connection connection, List<LeaseRequest> requests,
			Map<String, List<Integer>> positions) throws SQLException {
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
		return results;
	}

	/**
	 * Roll the transaction of claims sent together back and switch auto-commit back on.
	 * When the rollback fails the connection is aborted, since switching auto-commit on
	 * would commit what the transaction still holds.
	 * @return whether the connection is usable again, in auto-commit
	 */
	private static boolean rolledBack(Connection connection, Exception failure) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
			try {
				connection.abort(Runnable::run);
			}
			catch (SQLException | RuntimeException abortFailure) {
				failure.addSuppressed(abortFailure);
			}
			return false;
		}
		try {
			connection.setAutoCommit(true);
			return true;
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
			return false;
		}
	}

	/**
	 * Make the claims one at a time, each in a transaction of its own. A claim that fails
	 * is answered {@code null}, so that the claims answered before it keep their answers
	 * and the caller reads the failed one's row, which tells whether it was taken after
	 * all; only when every claim failed is the first error thrown.
	 */
	private List<@Nullable AcquireResult> claimOneByOne(Connection connection, List<LeaseRequest> requests)
			throws SQLException {
		List<@Nullable AcquireResult> results = new ArrayList<>(requests.size());
		SQLException firstFailure = null;
		for (LeaseRequest request : requests) {
			try {
				results.add(tryAcquire(connection, request));
			}
			catch (SQLException ex) {
				logger.debug("cluster-singleton could not claim the lease of job '" + request.jobName() + "'", ex);
				firstFailure = (firstFailure != null) ? firstFailure : ex;
				results.add(null);
			}
		}
		if (firstFailure != null && results.stream().allMatch((result) -> result == null)) {
			throw firstFailure;
		}
		return results;
	}

	private static boolean hasErrorCode(SQLException failure, int errorCode) {
		// an SQLException iterates over its chained exceptions and their causes
		for (Throwable cause : failure) {
			if (cause instanceof SQLException sql && sql.getErrorCode() == errorCode) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return {@value #CLAIMS_PER_TRANSACTION}.
	 */
	@Override
	int claimsPerRoundTrip() {
		return this.claimsOneByOne ? 1 : CLAIMS_PER_TRANSACTION;
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
