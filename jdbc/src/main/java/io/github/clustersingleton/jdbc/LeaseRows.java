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

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import io.github.clustersingleton.StoreClockObserver;
import org.jspecify.annotations.Nullable;

/**
 * Reads the rows the lease table's statements return: the outcome of a claim, a job's
 * current run, the renewed lease tokens, and the database's time, which it tells the
 * {@link StoreClockObserver}.
 *
 * @author cluster-singleton contributors
 */
final class LeaseRows {

	private final TimeBinding time;

	private volatile StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

	LeaseRows(TimeBinding time) {
		this.time = time;
	}

	void setStoreClockObserver(StoreClockObserver storeClockObserver) {
		this.storeClockObserver = storeClockObserver;
	}

	/**
	 * Tell the observer the database's time read in a round trip.
	 * @param resultSet a row with a {@code store_time} column
	 * @throws SQLException on a driver error
	 */
	void observeStoreTime(ResultSet resultSet) throws SQLException {
		Instant storeTime = this.time.read(resultSet, "store_time");
		if (storeTime != null) {
			try {
				this.storeClockObserver.storeTimeObserved(storeTime);
			}
			catch (RuntimeException ex) {
				// an observer must not turn a good round trip into a failure
			}
		}
	}

	/**
	 * Return the result of a claim that won, from the row as the claim left it: with the
	 * last slot and the current run for a job with an active policy.
	 * @param request the request
	 * @param resultSet the row, positioned on it
	 * @return the result
	 * @throws SQLException on a driver error
	 */
	AcquireResult acquired(LeaseRequest request, ResultSet resultSet) throws SQLException {
		long fencingToken = resultSet.getLong("fencing_token");
		if (!request.policy().isActive()) {
			return AcquireResult.acquired(fencingToken);
		}
		return AcquireResult.acquired(fencingToken, this.time.read(resultSet, "last_slot"), run(resultSet));
	}

	/**
	 * Read the current run of a row, {@code null} when it records none.
	 * @param resultSet the row, positioned on it
	 * @return the run
	 * @throws SQLException on a driver error
	 */
	@Nullable SlotRun run(ResultSet resultSet) throws SQLException {
		Instant slot = this.time.read(resultSet, "run_slot");
		int attempt = resultSet.getInt("attempt");
		String state = resultSet.getString("run_state");
		if (slot == null || attempt < 1 || state == null) {
			return null;
		}
		return new SlotRun(slot, attempt, RunState.fromValue(state));
	}

	/**
	 * Read the outcome of an acquisition from a row of {@code select-state.sql} (or a
	 * {@code RETURNING} clause with the same columns): acquired when it carries the
	 * request's lease token, else why not.
	 * @param request the request
	 * @param resultSet the row, positioned on it
	 * @return the result
	 * @throws SQLException on a driver error
	 */
	AcquireResult outcome(LeaseRequest request, ResultSet resultSet) throws SQLException {
		observeStoreTime(resultSet);
		if (request.leaseToken().equals(resultSet.getString("lease_token"))) {
			return acquired(request, resultSet);
		}
		if (!request.overridesPause() && resultSet.getInt("paused") == 1) {
			return AcquireResult.paused(this.time.read(resultSet, "last_slot"));
		}
		return AcquireResult.notAcquired(request, resultSet.getString("owner"), this.time.read(resultSet, "last_slot"),
				this.time.read(resultSet, "store_time"));
	}

	/**
	 * Read the {@code lease_token} column of every row a query returns, keeping only the
	 * tokens of the given leases, and the database's time when the rows carry it.
	 * @param statement the query
	 * @param leases the leases
	 * @return the tokens
	 * @throws SQLException on a database error
	 */
	Set<String> readTokens(PreparedStatement statement, List<HeldLease> leases) throws SQLException {
		Set<String> ours = tokens(leases);
		Set<String> found = new HashSet<>();
		try (ResultSet resultSet = statement.executeQuery()) {
			boolean timeRead = resultSet.getMetaData().getColumnCount() < 2;
			while (resultSet.next()) {
				String token = resultSet.getString(1);
				if (ours.contains(token)) {
					found.add(token);
				}
				if (!timeRead) {
					observeStoreTime(resultSet);
					timeRead = true;
				}
			}
		}
		return found;
	}

	static Set<String> tokens(List<HeldLease> leases) {
		Set<String> tokens = new HashSet<>(leases.size() * 2);
		for (HeldLease lease : leases) {
			tokens.add(lease.leaseToken());
		}
		return tokens;
	}

}
