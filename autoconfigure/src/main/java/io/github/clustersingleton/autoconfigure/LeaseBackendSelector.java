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

package io.github.clustersingleton.autoconfigure;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.autoconfigure.ClusterSingletonProperties.Backend;
import org.jspecify.annotations.Nullable;

/**
 * Chooses the lease store among the {@link LeaseBackend} beans, following
 * {@code cluster-singleton.backend}.
 *
 * @author cluster-singleton contributors
 */
final class LeaseBackendSelector {

	private static final String HOW_TO_ADD = "Add a lease store to the application: a DataSource (for example "
			+ "spring-boot-starter-jdbc and a JDBC driver) for the jdbc backend, a RedissonClient or a "
			+ "RedisConnectionFactory for the redis backend, or the fabric8 kubernetes-client with a KubernetesClient "
			+ "bean or cluster-singleton.backend=kubernetes for the kubernetes backend; "
			+ "or define your own LeaseBackend bean";

	private LeaseBackendSelector() {
	}

	static LeaseBackend select(Backend configured, List<LeaseBackend> available, @Nullable LeaseBackend primary,
			List<String> jobs) {
		String usedBy = jobs.isEmpty() ? "" : " (used by the @ClusterSingleton jobs " + String.join(", ", jobs) + ")";
		if (configured != Backend.AUTO) {
			String id = id(configured);
			List<LeaseBackend> matching = available.stream().filter((backend) -> id.equals(backend.id())).toList();
			if (matching.size() == 1) {
				return matching.get(0);
			}
			if (matching.isEmpty()) {
				throw new LeaseBackendUnavailableException(
						"cluster-singleton.backend=" + id + " but no " + id + " lease store is available" + usedBy
								+ ". " + clientHint(configured) + " Available: " + describe(available) + ".");
			}
			if (primary != null && id.equals(primary.id())) {
				return primary;
			}
			throw new LeaseBackendUnavailableException("cluster-singleton.backend=" + id + " matches several "
					+ "LeaseBackend beans: " + describe(matching) + ". Mark one @Primary.");
		}
		if (available.size() == 1) {
			return available.get(0);
		}
		if (available.isEmpty()) {
			throw new LeaseBackendUnavailableException(
					"cluster-singleton found no lease store" + usedBy + ". " + HOW_TO_ADD + ".");
		}
		if (primary != null) {
			return primary;
		}
		throw new LeaseBackendUnavailableException("cluster-singleton.backend=auto found several lease stores: "
				+ describe(available) + usedBy + ". Choose one with cluster-singleton.backend (jdbc, redis or "
				+ "kubernetes), or mark one LeaseBackend bean @Primary.");
	}

	/**
	 * Return the {@link LeaseBackend#id() id} of the backends a value of
	 * {@code cluster-singleton.backend} selects: {@code IN_MEMORY} is {@code in-memory}.
	 * @param backend the configured value
	 * @return the backend id
	 */
	static String id(Backend backend) {
		return backend.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	private static String clientHint(Backend backend) {
		return switch (backend) {
			case JDBC -> "It needs exactly one DataSource bean (or one marked @Primary) and spring-jdbc.";
			case REDIS -> "It needs a RedissonClient or a RedisConnectionFactory bean.";
			case KUBERNETES ->
				"It needs the fabric8 kubernetes-client (io.fabric8:kubernetes-client) on the class path; "
						+ "it uses the application's KubernetesClient bean, or builds one from the standard configuration.";
			case IN_MEMORY -> "It is the in-memory backend for tests (one JVM only), in a separate artifact: "
					+ "add io.github.clustersingleton:cluster-singleton-spring-boot-test to the test class path.";
			case AUTO -> "";
		};
	}

	private static String describe(List<LeaseBackend> backends) {
		if (backends.isEmpty()) {
			return "none";
		}
		return backends.stream()
			.map((backend) -> backend.id() + " (" + backend.getClass().getName() + ")")
			.collect(Collectors.joining(", "));
	}

}
