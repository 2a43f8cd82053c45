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

package io.github.clustersingleton.benchmarks;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.RedisLeaseScript;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * One store of a benchmark: our backend, the hand-written floor and ShedLock's provider,
 * all on the same connection pool or Redis connection factory. Store addresses come from
 * the same environment variables as the tests ({@code CLUSTER_SINGLETON_TEST_*_URL}),
 * defaulting to the local servers.
 *
 * @author cluster-singleton
 */
public final class Store implements AutoCloseable {

	/** The lease table of the library. */
	public static final String TABLE = JdbcLeaseBackend.DEFAULT_TABLE_NAME;

	/**
	 * The lease TTL the benchmarks use, and the backend's query timeout, as by default.
	 */
	public static final Duration TTL = Duration.ofSeconds(30);

	/** ShedLock's table, apart from any {@code shedlock} table of an application. */
	public static final String SHEDLOCK_TABLE = "bench_shedlock";

	private static final int POOL_SIZE = 10;

	private final String name;

	private final LeaseBackend backend;

	private final LeaseBackend backendWithoutQueryTimeout;

	private final LockProvider shedLock;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private HikariDataSource dataSource;

	private RedisClient redisClient;

	private LettuceConnectionFactory redisFactory;

	private RedisCommands<String, String> redis;

	private Store(String name) {
		this.name = name;
		if ("redis".equals(name)) {
			String url = redisUrl();
			LettuceConnectionFactory factory = redisConnectionFactory(url);
			this.closeables.add(factory::destroy);
			this.redisFactory = factory;
			RedisLeaseBackend redisBackend = new RedisLeaseBackend(new SpringDataRedisScriptExecutor(factory));
			redisBackend.initialize();
			this.backend = redisBackend;
			this.backendWithoutQueryTimeout = redisBackend;
			this.shedLock = new RedisLockProvider(factory);
			this.redisClient = RedisClient.create(url);
			StatefulRedisConnection<String, String> connection = this.redisClient.connect();
			this.closeables.add(connection);
			this.closeables.add(this.redisClient::shutdown);
			this.redis = connection.sync();
			for (RedisLeaseScript script : RedisLeaseScript.values()) {
				this.redis.scriptLoad(script.getSource());
			}
		}
		else {
			this.dataSource = pool(jdbcUrl(name));
			this.closeables.add(this.dataSource);
			createTables();
			JdbcLeaseBackend jdbcBackend = new JdbcLeaseBackend(this.dataSource, TABLE);
			// as the auto-configuration does: the query timeout is the lease TTL
			jdbcBackend.setRenewalTimeout(TTL.dividedBy(4));
			jdbcBackend.initialize();
			this.backend = jdbcBackend;
			JdbcLeaseBackend withoutTimeout = new JdbcLeaseBackend(this.dataSource, TABLE);
			withoutTimeout.initialize();
			this.backendWithoutQueryTimeout = withoutTimeout;
			this.shedLock = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
				.withJdbcTemplate(new JdbcTemplate(this.dataSource))
				.withTableName(SHEDLOCK_TABLE)
				.usingDbTime()
				.build());
		}
	}

	/**
	 * Open a store.
	 * @param name {@code postgresql}, {@code mariadb}, {@code h2} or {@code redis}
	 * @return the store
	 */
	/**
	 * The Redis the benchmarks use: {@code CLUSTER_SINGLETON_TEST_REDIS_URL}, else the
	 * local server.
	 */
	static String redisUrl() {
		return env("CLUSTER_SINGLETON_TEST_REDIS_URL", "redis://127.0.0.1:6379");
	}

	/**
	 * A started Spring Data connection factory for the Redis at {@code url}; the caller
	 * destroys it.
	 */
	static LettuceConnectionFactory redisConnectionFactory(String url) {
		java.net.URI uri = java.net.URI.create(url);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	public static Store open(String name) {
		return new Store(name);
	}

	private static String env(String variable, String fallback) {
		String value = System.getenv(variable);
		return (value != null && !value.isBlank()) ? value : fallback;
	}

	private static String jdbcUrl(String name) {
		return switch (name) {
			case "postgresql" ->
				env("CLUSTER_SINGLETON_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
			case "mariadb" ->
				env("CLUSTER_SINGLETON_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=");
			case "h2" -> "jdbc:h2:mem:benchmarks;DB_CLOSE_DELAY=-1";
			default -> throw new IllegalArgumentException("Unknown store '" + name + "'");
		};
	}

	private static HikariDataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(POOL_SIZE);
		config.setMinimumIdle(POOL_SIZE);
		config.setPoolName("benchmarks");
		return new HikariDataSource(config);
	}

	private void createTables() {
		String platform = this.name;
		// ShedLock's documented types; PostgreSQL rounds (not truncates) to a precision,
		// so its column keeps the microseconds of CURRENT_TIMESTAMP
		String timestamp = "mariadb".equals(platform) ? "DATETIME(3)" : "TIMESTAMP";
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			// the schema holds several statements (lease and run tables)
			ScriptUtils.executeSqlScript(connection,
					new ClassPathResource("io/github/clustersingleton/jdbc/schema-" + platform + ".sql"));
			statement.execute("CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE
					+ " (name VARCHAR(64) NOT NULL PRIMARY KEY, " + "lock_until " + timestamp + " NOT NULL, locked_at "
					+ timestamp + " NOT NULL, " + "locked_by VARCHAR(255) NOT NULL)");
			statement.execute("DELETE FROM " + TABLE + " WHERE name LIKE 'bench-%'");
			statement.execute("DELETE FROM " + SHEDLOCK_TABLE + " WHERE name LIKE 'bench-%'");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Failed to create the tables on " + platform, ex);
		}
	}

	public String name() {
		return this.name;
	}

	public boolean isRedis() {
		return this.redis != null;
	}

	public LeaseBackend backend() {
		return this.backend;
	}

	/**
	 * Return a backend of its own on this store's connections, for an engine of its own:
	 * an engine tells its backend where to report the store's clock.
	 * @return a new, initialized backend
	 */
	public LeaseBackend newBackend() {
		if (this.redisFactory != null) {
			RedisLeaseBackend redisBackend = new RedisLeaseBackend(
					new SpringDataRedisScriptExecutor(this.redisFactory));
			redisBackend.initialize();
			return redisBackend;
		}
		JdbcLeaseBackend jdbcBackend = new JdbcLeaseBackend(this.dataSource, TABLE);
		jdbcBackend.setRenewalTimeout(TTL.dividedBy(4));
		jdbcBackend.initialize();
		return jdbcBackend;
	}

	public LeaseBackend backendWithoutQueryTimeout() {
		return this.backendWithoutQueryTimeout;
	}

	public LockProvider shedLock() {
		return this.shedLock;
	}

	public HikariDataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * Run one of the library's Lua scripts by hand through a plain Lettuce connection.
	 * @param script the script
	 * @param keys the keys
	 * @param args the arguments
	 * @return the reply
	 */
	public List<Object> eval(RedisLeaseScript script, String[] keys, String... args) {
		List<Object> reply = this.redis.evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, args);
		return (reply != null) ? reply : Collections.emptyList();
	}

	@Override
	public void close() {
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			try {
				this.closeables.get(i).close();
			}
			catch (Exception ex) {
				// best effort
			}
		}
	}

}
