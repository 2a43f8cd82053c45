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

package io.github.clustersingleton.test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@link DataSource} that counts the statements its connections execute (every
 * {@code execute*} call on a {@link Statement}, {@link PreparedStatement} or
 * {@link CallableStatement}): the round trips to the database, for tests that assert how
 * many an operation takes.
 *
 * @author cluster-singleton contributors
 */
public class CountingDataSource extends DelegatingDataSource {

	private final AtomicLong executions = new AtomicLong();

	/**
	 * Create a new instance.
	 * @param target the data source to count the statements of
	 */
	public CountingDataSource(DataSource target) {
		super(target);
	}

	/**
	 * Return how many statements were executed since creation or the last
	 * {@link #reset()}.
	 * @return the count
	 */
	public long getCount() {
		return this.executions.get();
	}

	/**
	 * Reset the count to zero.
	 */
	public void reset() {
		this.executions.set(0);
	}

	@Override
	public Connection getConnection() throws SQLException {
		return countingConnection(super.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return countingConnection(super.getConnection(username, password));
	}

	private Connection countingConnection(Connection target) {
		return proxy(Connection.class, target, (method) -> {
		}, (method, result) -> {
			if (result instanceof CallableStatement statement) {
				return countingStatement(CallableStatement.class, statement);
			}
			if (result instanceof PreparedStatement statement) {
				return countingStatement(PreparedStatement.class, statement);
			}
			if (result instanceof Statement statement) {
				return countingStatement(Statement.class, statement);
			}
			return result;
		});
	}

	private <S extends Statement> S countingStatement(Class<S> type, S target) {
		// Counted before the call: a statement that fails was a round trip too
		return proxy(type, target, (method) -> {
			if (method.getName().startsWith("execute")) {
				this.executions.incrementAndGet();
			}
		}, (method, result) -> result);
	}

	private static <T> T proxy(Class<T> type, T target, Consumer<Method> before, ResultHandler handler) {
		InvocationHandler invocationHandler = (proxy, method, args) -> {
			before.accept(method);
			Object result;
			try {
				result = method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
			return handler.handle(method, result);
		};
		return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] { type },
				invocationHandler));
	}

	@FunctionalInterface
	private interface ResultHandler {

		Object handle(Method method, Object result);

	}

}
