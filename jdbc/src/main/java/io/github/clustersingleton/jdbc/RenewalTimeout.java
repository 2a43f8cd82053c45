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
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * The bound on a renewal round trip: a renewal that hangs (a database that stopped
 * answering, a connection into a black hole during a failover) gives up in time for the
 * watchdog's next tick to try again on another connection. The bound is the connection's
 * network timeout, put back as it was afterwards, and, on platforms that have one, each
 * statement's {@link #queryTimeoutSeconds() query timeout}, which always comes later.
 *
 * @author cluster-singleton contributors
 */
final class RenewalTimeout {

	private final boolean boundsRenewals;

	private final boolean queryTimeout;

	private volatile Duration timeout = Duration.ZERO;

	private RenewalTimeout(boolean boundsRenewals, boolean queryTimeout) {
		this.boundsRenewals = boundsRenewals;
		this.queryTimeout = queryTimeout;
	}

	/**
	 * Return the bound of a platform whose renewals get a network timeout and a longer
	 * query timeout.
	 * @return the bound
	 */
	static RenewalTimeout networkAndQuery() {
		return new RenewalTimeout(true, true);
	}

	/**
	 * Return the bound of a platform whose renewals get a network timeout only, no query
	 * timeout (see {@code PostgreSqlLeaseStatements}).
	 * @return the bound
	 */
	static RenewalTimeout networkOnly() {
		return new RenewalTimeout(true, false);
	}

	/**
	 * Return the bound of an embedded database, which has no network to time out: none.
	 * @return the bound
	 */
	static RenewalTimeout none() {
		return new RenewalTimeout(false, false);
	}

	void set(Duration timeout) {
		this.timeout = timeout;
	}

	/**
	 * Run a renewal bounded by the timeout: with the connection's network timeout set to
	 * it, and put back as it was afterwards.
	 * @param <T> the result type
	 * @param connection an auto-commit connection
	 * @param renewal the renewal
	 * @return the renewal's result
	 * @throws SQLException on a database error, including a timeout
	 */
	<T> T bound(Connection connection, Renewal<T> renewal) throws SQLException {
		Duration timeout = this.timeout;
		if (timeout.isZero() || !this.boundsRenewals) {
			return renewal.run();
		}
		Integer previous;
		try {
			previous = connection.getNetworkTimeout();
			connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis());
		}
		catch (SQLFeatureNotSupportedException ex) {
			previous = null;
		}
		try {
			return renewal.run();
		}
		finally {
			if (previous != null) {
				try {
					connection.setNetworkTimeout(Runnable::run, previous);
				}
				catch (SQLException ex) {
					// a connection the timeout broke: the pool discards it
				}
			}
		}
	}

	/**
	 * Prepare a renewal statement with its {@link #queryTimeoutSeconds() query timeout},
	 * if any.
	 * @param connection the connection
	 * @param statement the statement
	 * @param parameters its parameters
	 * @return the prepared statement
	 * @throws SQLException on a driver error
	 */
	PreparedStatement prepare(Connection connection, JdbcStatement statement, MapSqlParameterSource parameters)
			throws SQLException {
		PreparedStatement prepared = statement.prepare(connection, parameters);
		int seconds = queryTimeoutSeconds();
		if (seconds > 0) {
			prepared.setQueryTimeout(seconds);
		}
		return prepared;
	}

	/**
	 * Return the network timeout of a renewal round trip: the renewal timeout in
	 * milliseconds (at least one, as zero would mean none).
	 * @return the network timeout in milliseconds
	 */
	int networkTimeoutMillis() {
		return (int) Math.min(Integer.MAX_VALUE, Math.max(1, this.timeout.toMillis()));
	}

	/**
	 * Return the query timeout of each renewal statement in whole seconds, or zero for
	 * none. A renewal that gets no answer in time must end by the network timeout, never
	 * by a cancel that reaches the server first: the driver then reports an I/O error and
	 * the renewal counts as failed (its outcome unknown), whereas a server can answer a
	 * cancelled commit with success when the commit was only waiting for a replica (see
	 * {@code PostgreSqlLeaseStatements}). So the query timeout is strictly longer than
	 * the network timeout, for every renewal timeout: the whole seconds of the network
	 * timeout plus one (a renewal timeout of 1 s gets 2 s, 7.5 s gets 8 s). It only
	 * bounds a statement when the driver cannot set a network timeout.
	 * @return the query timeout in seconds, zero for none
	 */
	int queryTimeoutSeconds() {
		if (!this.queryTimeout || this.timeout.isZero() || !this.boundsRenewals) {
			return 0;
		}
		return (int) Math.min(Integer.MAX_VALUE, networkTimeoutMillis() / 1000L + 1);
	}

	/**
	 * A renewal's round trips.
	 *
	 * @param <T> the result type
	 */
	@FunctionalInterface
	interface Renewal<T> {

		T run() throws SQLException;

	}

}
