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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The timeouts a renewal gets, for lease TTLs around the whole seconds of JDBC's query
 * timeout: the renewal timeout is a quarter of the TTL, as the auto-configuration sets
 * it. A renewal that times out must end by the network timeout (the outcome is unknown,
 * the renewal counts as failed), never by a cancel that reaches the server first:
 * PostgreSQL answers a cancelled wait for a synchronous standby with success, for a
 * renewal the standby never got.
 *
 * @author cluster-singleton contributors
 */
class JdbcRenewalTimeoutBoundsTests {

	private static final int DRIVER_NETWORK_TIMEOUT = 30_000;

	static Stream<Duration> ttls() {
		return Stream.of(Duration.ofMillis(10), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
				Duration.ofSeconds(3), Duration.ofMillis(3999), Duration.ofSeconds(4), Duration.ofMillis(4001),
				Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(12), Duration.ofSeconds(30),
				Duration.ofSeconds(60), Duration.ofMinutes(10));
	}

	@ParameterizedTest
	@MethodSource("ttls")
	void aPostgresRenewalIsBoundedByTheNetworkTimeoutAloneNeverByACancel(Duration ttl) throws Exception {
		Recording recording = renew(JdbcPlatform.POSTGRESQL, ttl);
		assertThat(recording.networkTimeouts).as("network timeouts set, then restored")
			.containsExactly(expectedNetworkTimeout(ttl), DRIVER_NETWORK_TIMEOUT);
		assertThat(recording.queryTimeouts).as("query timeouts (a cancel request when they expire)")
			.allSatisfy((seconds) -> assertThat(seconds).isZero());
	}

	@ParameterizedTest
	@MethodSource("ttls")
	void aMySqlOrMariaDbRenewalTimesOutOnTheNetworkBeforeItsQueryTimeout(Duration ttl) throws Exception {
		for (JdbcPlatform platform : List.of(JdbcPlatform.MYSQL, JdbcPlatform.MARIADB)) {
			Recording recording = renew(platform, ttl);
			int network = expectedNetworkTimeout(ttl);
			assertThat(recording.networkTimeouts).as("%s: network timeouts set, then restored", platform)
				.containsExactly(network, DRIVER_NETWORK_TIMEOUT);
			assertThat(recording.queryTimeouts).as("%s: query timeouts", platform)
				.isNotEmpty()
				.allSatisfy((seconds) -> assertThat(seconds * 1000L)
					.as("%s: query timeout of %s s against a network timeout of %s ms (TTL %s)", platform, seconds,
							network, ttl)
					.isGreaterThan(network));
		}
	}

	@ParameterizedTest
	@MethodSource("ttls")
	void anH2RenewalGetsNoTimeout(Duration ttl) throws Exception {
		Recording recording = renew(JdbcPlatform.H2, ttl);
		assertThat(recording.networkTimeouts).isEmpty();
		assertThat(recording.queryTimeouts).allSatisfy((seconds) -> assertThat(seconds).isZero());
	}

	private static int expectedNetworkTimeout(Duration ttl) {
		return (int) Math.max(1, ttl.dividedBy(4).toMillis());
	}

	private static Recording renew(JdbcPlatform platform, Duration ttl) throws Exception {
		LeaseStatements dialect = LeaseStatements.of(platform, JdbcLeaseBackend.DEFAULT_TABLE_NAME);
		dialect.setRenewalTimeout(ttl.dividedBy(4));
		Recording recording = new Recording();
		HeldLease lease = HeldLease.of(new LeaseRequest("job", "node-a", "token", ttl, null), 1);
		dialect.renewBounded(recording.connection(), List.of(lease), ttl);
		return recording;
	}

	/**
	 * A connection that records the timeouts a renewal sets; its statements change one
	 * row and query none.
	 */
	static final class Recording {

		final List<Integer> networkTimeouts = new ArrayList<>();

		final List<Integer> queryTimeouts = new ArrayList<>();

		private int networkTimeout = DRIVER_NETWORK_TIMEOUT;

		Connection connection() {
			return proxy(Connection.class, (method, args) -> switch (method) {
				case "getNetworkTimeout" -> this.networkTimeout;
				case "setNetworkTimeout" -> {
					this.networkTimeout = (Integer) args[1];
					this.networkTimeouts.add(this.networkTimeout);
					yield null;
				}
				case "prepareStatement" -> statement();
				default -> null;
			});
		}

		private PreparedStatement statement() {
			return proxy(PreparedStatement.class, (method, args) -> switch (method) {
				case "setQueryTimeout" -> {
					this.queryTimeouts.add((Integer) args[0]);
					yield null;
				}
				case "executeUpdate" -> 1;
				case "executeQuery" ->
					proxy(ResultSet.class, (resultSetMethod, resultSetArgs) -> switch (resultSetMethod) {
						case "getMetaData" -> proxy(ResultSetMetaData.class,
								(metaDataMethod, metaDataArgs) -> metaDataMethod.equals("getColumnCount") ? 1 : null);
						default -> null;
					});
				default -> null;
			});
		}

		@SuppressWarnings("unchecked")
		private static <T> T proxy(Class<T> type, Answer answer) {
			return (T) Proxy.newProxyInstance(Recording.class.getClassLoader(), new Class<?>[] { type },
					(proxy, method, args) -> {
						Object value = answer.answer(method.getName(), args);
						if (value == null && method.getReturnType().isPrimitive()) {
							Class<?> returnType = method.getReturnType();
							if (returnType == boolean.class) {
								return false;
							}
							if (returnType == void.class) {
								return null;
							}
							return (returnType == long.class) ? 0L
									: (returnType == double.class) ? 0.0 : (returnType == float.class) ? 0.0f : 0;
						}
						return value;
					});
		}

		@FunctionalInterface
		interface Answer {

			Object answer(String method, Object[] args) throws Exception;

		}

	}

}
