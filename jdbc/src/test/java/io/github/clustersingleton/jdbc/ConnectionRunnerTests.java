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

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.AbstractDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ConnectionRunner} on a pool that hands out connections with
 * auto-commit off, whose switch back fails (the connection broke after the action).
 *
 * @author cluster-singleton contributors
 */
class ConnectionRunnerTests {

	@Test
	void anAnswerStandsWhenAutoCommitCannotBeSwitchedOffAgain() throws SQLException {
		ConnectionRunner runner = new ConnectionRunner(brokenAfterTheAction());
		String answer = runner.run((connection) -> "committed");
		assertThat(answer).isEqualTo("committed");
	}

	@Test
	void anErrorStaysTheErrorWhenAutoCommitCannotBeSwitchedOffAgain() {
		ConnectionRunner runner = new ConnectionRunner(brokenAfterTheAction());
		AtomicInteger attempts = new AtomicInteger();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> runner.runRetrying((connection) -> null, (connection, none) -> {
				attempts.incrementAndGet();
				throw new SQLException("deadlock (simulated)", "40001");
			}, (ex) -> new IllegalStateException(ex.getSQLState(), ex)))
			.withMessage("40001")
			.satisfies((ex) -> assertThat(ex.getCause().getSuppressed()).hasSize(1));
		assertThat(attempts).hasValue(3);
	}

	/**
	 * A data source whose connections come with auto-commit off and refuse to switch it
	 * off again, as a connection the pool closed after a failure does.
	 */
	private static DataSource brokenAfterTheAction() {
		return new AbstractDataSource() {

			@Override
			public Connection getConnection() {
				boolean[] autoCommit = { false };
				return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, args) -> switch (method.getName()) {
							case "getAutoCommit" -> autoCommit[0];
							case "setAutoCommit" -> {
								if (!(boolean) args[0]) {
									throw new SQLException("Connection is closed", "08003");
								}
								autoCommit[0] = true;
								yield null;
							}
							case "close" -> null;
							default -> throw new UnsupportedOperationException(method.getName());
						});
			}

			@Override
			public Connection getConnection(String username, String password) {
				return getConnection();
			}

		};
	}

}
