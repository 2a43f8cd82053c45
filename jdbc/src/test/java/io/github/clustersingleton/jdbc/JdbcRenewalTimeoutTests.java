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
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.test.TcpProxy;
import io.github.clustersingleton.test.TestStores;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.datasource.AbstractDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * A renewal stuck on a PostgreSQL connection that went dark (a TCP black hole, as during
 * a database failover) gives up within the renewal timeout, and the watchdog's next tick
 * renews on a fresh connection, so the run keeps its lease.
 *
 * @author cluster-singleton contributors
 */
class JdbcRenewalTimeoutTests {

	/**
	 * Renewals every 2 s, each given 1.5 s: a renewal stuck on the dark connection and
	 * the next one on a fresh connection fit well within one TTL on a loaded machine
	 * (with 3 s, one slow reconnection under a full build could end the lease).
	 */
	private static final Duration TTL = Duration.ofSeconds(6);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private @Nullable TcpProxy proxy;

	private @Nullable ClusterSingletonExecutor executor;

	private @Nullable ReconnectingDataSource dataSource;

	@AfterEach
	void stop() throws Exception {
		if (this.executor != null) {
			this.executor.close();
		}
		this.threads.shutdownNow();
		if (this.dataSource != null) {
			this.dataSource.close();
		}
		if (this.proxy != null) {
			this.proxy.close();
		}
	}

	@Test
	void aRenewalIntoABlackHoleIsRetriedOnAFreshConnectionBeforeTheLeaseEnds() throws Exception {
		URI server = URI.create(TestStores.postgresUrl().substring("jdbc:".length()));
		this.proxy = TcpProxy.start(server.getHost(), server.getPort());
		String url = TestStores.postgresUrl()
			.replace("//" + server.getHost() + ":" + server.getPort() + "/",
					"//127.0.0.1:" + this.proxy.getPort() + "/");
		this.dataSource = new ReconnectingDataSource(url);
		new JdbcLeaseSchemaInitializer(this.dataSource, JdbcLeaseBackend.DEFAULT_TABLE_NAME,
				DatabaseInitializationMode.ALWAYS)
			.initialize();
		JdbcLeaseBackend backend = new JdbcLeaseBackend(this.dataSource, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		// what the auto-configuration sets: a quarter of the TTL
		backend.setRenewalTimeout(TTL.dividedBy(4));
		CountingListener listener = new CountingListener();
		this.executor = new ClusterSingletonExecutor(backend,
				new ClusterSingletonExecutor.Settings("node-a", TTL, Duration.ofSeconds(1), true), Clock.systemUTC(),
				listener);
		CountDownLatch finish = new CountDownLatch(1);
		AtomicReference<@Nullable ClusterSingletonContext> context = new AtomicReference<>();
		String job = "black-hole-" + System.nanoTime();
		ClusterSingletonExecutor node = this.executor;
		Future<Boolean> run = this.threads.submit(() -> runQuietly(
				() -> node.execute(JobDefinition.of(job, Duration.ofMinutes(1), Duration.ZERO), (Instant) null, () -> {
					context.set(ClusterSingletonContext.current());
					return finish.await(30, TimeUnit.SECONDS);
				})));
		await().atMost(Duration.ofSeconds(10)).until(() -> listener.renewed.get() >= 1);
		// the connection every renewal has used so far goes dark
		this.proxy.blackHoleOpenConnections();
		int renewedBefore = listener.renewed.get();
		await().atMost(Duration.ofSeconds(30)).until(() -> listener.renewed.get() >= renewedBefore + 2);
		assertThat(listener.failed.get()).as("renewals that timed out").isPositive();
		assertThat(listener.lost.get()).as("leases lost").isZero();
		assertThat(context.get().isLeaseValid()).isTrue();
		finish.countDown();
		assertThat(run.get(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * A renewal that PostgreSQL does not answer within the renewal timeout (here it waits
	 * for a row lock another transaction holds; it could as well wait for a synchronous
	 * standby) ends by the network timeout, with an I/O error, not by a cancel: a cancel
	 * that reached a commit waiting for a standby would be answered with success. With a
	 * TTL of 4 s the renewal timeout is 1 s, a whole number of seconds, where a query
	 * timeout would tie with the network timeout.
	 */
	@Test
	void aPostgresRenewalWithNoAnswerInTimeEndsByTheNetworkTimeoutNotByACancel() throws Exception {
		Duration ttl = Duration.ofSeconds(4);
		String job = "renewal-timeout-" + UUID.randomUUID();
		try (HikariDataSource pool = TestStores.postgresDataSource()) {
			new JdbcLeaseSchemaInitializer(pool, JdbcLeaseBackend.DEFAULT_TABLE_NAME, DatabaseInitializationMode.ALWAYS)
				.initialize();
			JdbcLeaseBackend backend = new JdbcLeaseBackend(pool, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
			LeaseRequest request = new LeaseRequest(job, "node-a", UUID.randomUUID().toString(), ttl, null);
			AcquireResult acquired = backend.tryAcquire(request);
			assertThat(acquired.isAcquired()).isTrue();
			HeldLease lease = HeldLease.of(request, acquired.fencingToken());
			LeaseStatements dialect = LeaseStatements.of(JdbcPlatform.POSTGRESQL, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
			dialect.setRenewalTimeout(ttl.dividedBy(4));
			try (Connection locker = pool.getConnection();
					Connection connection = DriverManager.getConnection(TestStores.postgresUrl())) {
				locker.setAutoCommit(false);
				try (PreparedStatement lock = locker.prepareStatement(
						"SELECT name FROM " + JdbcLeaseBackend.DEFAULT_TABLE_NAME + " WHERE name = ? FOR UPDATE")) {
					lock.setString(1, job);
					try (ResultSet resultSet = lock.executeQuery()) {
						assertThat(resultSet.next()).isTrue();
					}
				}
				SQLException timedOut = catchThrowableOfType(SQLException.class,
						() -> dialect.renewBounded(connection, List.of(lease), ttl));
				locker.rollback();
				assertThat((Throwable) timedOut).as("renewal that got no answer").isNotNull();
				assertThat(timedOut.getSQLState())
					.as("SQL state of %s (57014 is a cancelled statement, 08xxx a broken connection)", timedOut)
					.startsWith("08");
			}
			finally {
				backend.release(lease, Duration.ZERO);
			}
		}
	}

	private static boolean runQuietly(ThrowingRun run) throws Exception {
		try {
			return run.run();
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	@FunctionalInterface
	interface ThrowingRun {

		boolean run() throws Throwable;

	}

	static final class CountingListener implements ClusterSingletonListener {

		final AtomicInteger renewed = new AtomicInteger();

		final AtomicInteger failed = new AtomicInteger();

		final AtomicInteger lost = new AtomicInteger();

		@Override
		public void renewalAttempted(Collection<HeldLease> leases, int renewed, Duration duration,
				@Nullable Throwable error) {
			if (error == null && renewed == leases.size()) {
				this.renewed.incrementAndGet();
			}
			else if (error != null) {
				this.failed.incrementAndGet();
			}
		}

		@Override
		public void leaseLost(JobDefinition job, HeldLease lease, String reason) {
			this.lost.incrementAndGet();
		}

	}

	/**
	 * One connection, handed out again and again without a validity check (as by a pool
	 * that does not test connections on borrow), replaced by a new one once the driver
	 * closed it after a network error.
	 */
	static final class ReconnectingDataSource extends AbstractDataSource implements AutoCloseable {

		private final String url;

		private @Nullable Connection connection;

		ReconnectingDataSource(String url) {
			this.url = url;
		}

		@Override
		public synchronized Connection getConnection() throws SQLException {
			if (this.connection == null || this.connection.isClosed()) {
				this.connection = DriverManager.getConnection(this.url);
			}
			Connection physical = this.connection;
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().equals("close")) {
							return null;
						}
						try {
							return method.invoke(physical, args);
						}
						catch (java.lang.reflect.InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					});
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

		@Override
		public synchronized void close() throws SQLException {
			if (this.connection != null) {
				this.connection.close();
			}
		}

	}

}
