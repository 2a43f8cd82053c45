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

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.test.TestStores;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Lease backend contract and JDBC tests of the MySQL dialect (an upsert without
 * {@code RETURNING}, then a {@code SELECT}), run on the MariaDB server with the
 * connection's metadata reporting MySQL. MariaDB evaluates the dialect's
 * {@code ON DUPLICATE KEY UPDATE} assignments left to right as MySQL does, so this checks
 * the MySQL SQL where no MySQL server is at hand.
 *
 * @author cluster-singleton contributors
 */
class MySqlDialectOnMariaDbJdbcLeaseBackendTests extends AbstractJdbcLeaseBackendTests {

	@Override
	protected HikariDataSource createPool() {
		return TestStores.mariadbDataSource();
	}

	@Override
	protected DataSource adapt(DataSource dataSource) {
		return new DelegatingDataSource(dataSource) {

			@Override
			public Connection getConnection() throws SQLException {
				return reportingMySql(super.getConnection());
			}

		};
	}

	@Override
	protected DataSource createUnreachableDataSource() {
		return TestStores.unreachableDataSource("mariadb");
	}

	@Override
	protected String schemaName() {
		return "test";
	}

	@Override
	protected int expectedAcquireRoundTrips() {
		return 2;
	}

	private static Connection reportingMySql(Connection connection) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		DatabaseMetaData mySqlMetaData = proxy(DatabaseMetaData.class, metaData, (name) -> switch (name) {
			case "getDatabaseProductName" -> "MySQL";
			case "getDatabaseProductVersion" -> "8.4.0";
			default -> null;
		});
		return proxy(Connection.class, connection, (name) -> name.equals("getMetaData") ? mySqlMetaData : null);
	}

	private static <T> T proxy(Class<T> type, T target, ReplacedMethods replaced) {
		return type
			.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
				Object value = replaced.value(method.getName());
				if (value != null) {
					return value;
				}
				try {
					return method.invoke(target, args);
				}
				catch (InvocationTargetException ex) {
					throw ex.getTargetException();
				}
			}));
	}

	/**
	 * The values that replace some methods' results, {@code null} for the others.
	 */
	@FunctionalInterface
	private interface ReplacedMethods {

		Object value(String methodName);

	}

	/**
	 * Return false: the renewal is an {@code UPDATE} without {@code RETURNING}.
	 */
	@Override
	protected boolean reportsStoreTimeOnRenewal() {
		return false;
	}

}
