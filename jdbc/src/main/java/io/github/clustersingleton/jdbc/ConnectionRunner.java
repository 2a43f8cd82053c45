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
import java.sql.SQLException;
import java.util.function.Function;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.util.Assert;

/**
 * Runs actions on auto-commit connections of their own, taken straight from a
 * {@link DataSource}, never through Spring's transaction synchronization: a lease or lock
 * change is never part of (or rolled back with) a caller's transaction. Optionally runs
 * an action again when the database chose it as a deadlock victim, and translates SQL
 * errors into Spring's {@link DataAccessException}s. Shared by the JDBC lease store, its
 * schema initializer and the ShedLock bridge.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class ConnectionRunner {

	/**
	 * SQL state of a deadlock or serialization failure, after which the database rolled
	 * the statement back and it can simply run again.
	 */
	private static final String SERIALIZATION_FAILURE = "40001";

	/**
	 * PostgreSQL's SQL state of a statement chosen as the victim of a deadlock, rolled
	 * back whole, so sent again like a serialization failure (MySQL and MariaDB report
	 * theirs as {@value #SERIALIZATION_FAILURE}).
	 */
	private static final String DEADLOCK_DETECTED = "40P01";

	private static final int MAX_ATTEMPTS = 3;

	private static final Log logger = LogFactory.getLog(ConnectionRunner.class);

	private static final SQLExceptionTranslator TRANSLATOR = new SQLExceptionSubclassTranslator();

	private final DataSource dataSource;

	/**
	 * Create a new instance.
	 * @param dataSource the data source to take connections from
	 */
	public ConnectionRunner(DataSource dataSource) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		this.dataSource = dataSource;
	}

	/**
	 * Run an action once on an auto-commit connection of its own.
	 * @param <T> the result type
	 * @param action the action
	 * @return the action's result
	 * @throws SQLException on a database error
	 */
	public <T> T run(ConnectionAction<T> action) throws SQLException {
		return run((connection) -> null, (connection, none) -> action.execute(connection));
	}

	/**
	 * Run an action once on an auto-commit connection of its own, after reading what it
	 * needs from the connection as the data source hands it out.
	 * @param <C> the type of what the action needs
	 * @param <T> the result type
	 * @param context reads what the action needs, before auto-commit is switched on
	 * @param action the action
	 * @return the action's result
	 * @throws SQLException on a database error
	 */
	<C, T> T run(ConnectionAction<C> context, ContextAction<C, T> action) throws SQLException {
		// Straight from the DataSource, not DataSourceUtils: never join the caller's
		// transaction, whose rollback or late commit would undo or delay a lease change
		try (Connection connection = this.dataSource.getConnection()) {
			C value = context.execute(connection);
			boolean autoCommit = connection.getAutoCommit();
			if (!autoCommit) {
				connection.setAutoCommit(true);
			}
			T result;
			try {
				result = action.execute(connection, value);
			}
			catch (SQLException | RuntimeException ex) {
				if (!autoCommit) {
					restoreManualCommit(connection, ex);
				}
				throw ex;
			}
			if (!autoCommit) {
				restoreManualCommit(connection, null);
			}
			return result;
		}
	}

	/**
	 * Switch auto-commit off again before the connection goes back to the pool. A failure
	 * here never replaces the action's answer, whose statements committed, nor its error,
	 * which decides whether it is sent again: the pool finds the connection broken.
	 */
	private static void restoreManualCommit(Connection connection, @Nullable Exception failure) {
		try {
			connection.setAutoCommit(false);
		}
		catch (SQLException ex) {
			if (failure != null) {
				failure.addSuppressed(ex);
			}
			else {
				logger.debug("cluster-singleton could not switch auto-commit off again on a pooled connection", ex);
			}
		}
	}

	/**
	 * Run an action like {@link #run(ConnectionAction, ContextAction)}, again (up to
	 * three attempts in all) when the database chose it as a deadlock victim, and turn
	 * the SQL error that ends it into a runtime exception.
	 * @param <C> the type of what the action needs
	 * @param <T> the result type
	 * @param context reads what the action needs, before auto-commit is switched on
	 * @param action the action
	 * @param failure turns the SQL error into the exception to throw
	 * @return the action's result
	 */
	<C, T> T runRetrying(ConnectionAction<C> context, ContextAction<C, T> action,
			Function<SQLException, ? extends RuntimeException> failure) {
		for (int attempt = 1;; attempt++) {
			try {
				return run(context, action);
			}
			catch (SQLException ex) {
				if (attempt >= MAX_ATTEMPTS || !(SERIALIZATION_FAILURE.equals(ex.getSQLState())
						|| DEADLOCK_DETECTED.equals(ex.getSQLState()))) {
					throw failure.apply(ex);
				}
			}
		}
	}

	/**
	 * Translate an SQL error into a {@link DataAccessException}.
	 * @param message the message of the translated error
	 * @param ex the error
	 * @return the translated error
	 */
	static DataAccessException translate(String message, SQLException ex) {
		DataAccessException translated = TRANSLATOR.translate(message, null, ex);
		return (translated != null) ? translated : new UncategorizedSQLException(message, null, ex);
	}

	/**
	 * An action on a connection.
	 *
	 * @param <T> the result type
	 */
	@FunctionalInterface
	public interface ConnectionAction<T> {

		/**
		 * Run the action.
		 * @param connection the connection
		 * @return the result
		 * @throws SQLException on a database error
		 */
		T execute(Connection connection) throws SQLException;

	}

	/**
	 * An action on a connection that needs something read from it first.
	 *
	 * @param <C> the type of what it needs
	 * @param <T> the result type
	 */
	@FunctionalInterface
	interface ContextAction<C, T> {

		T execute(Connection connection, C context) throws SQLException;

	}

}
