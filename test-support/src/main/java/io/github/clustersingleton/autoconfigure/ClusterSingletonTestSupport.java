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

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Shared fixtures of the auto-configuration tests: an in-memory H2 database per context
 * and a stub {@link LeaseBackend}.
 *
 * @author cluster-singleton contributors
 */
public final class ClusterSingletonTestSupport {

	private ClusterSingletonTestSupport() {
	}

	/**
	 * Return a fresh, named in-memory H2 URL that outlives its connections.
	 * @return the JDBC URL
	 */
	public static String h2Url() {
		return "jdbc:h2:mem:cs-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

	/**
	 * Add Boot's {@link DataSourceAutoConfiguration} on a fresh in-memory H2 database.
	 * @return the customizer, for {@link ApplicationContextRunner#with(Function)}
	 */
	public static Function<ApplicationContextRunner, ApplicationContextRunner> h2() {
		return h2(h2Url());
	}

	/**
	 * Add Boot's {@link DataSourceAutoConfiguration} on the given database.
	 * @param url the JDBC URL
	 * @return the customizer, for {@link ApplicationContextRunner#with(Function)}
	 */
	public static Function<ApplicationContextRunner, ApplicationContextRunner> h2(String url) {
		return (runner) -> runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + url);
	}

	/**
	 * Return the first throwable of the given type in the cause chain of a failure.
	 * @param <T> the type
	 * @param failure the failure
	 * @param type the type to look for
	 * @return the cause
	 * @throws AssertionError when the chain holds none
	 */
	public static <T extends Throwable> T causeOf(@Nullable Throwable failure, Class<T> type) {
		Throwable candidate = failure;
		while (candidate != null) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
			candidate = (candidate.getCause() != candidate) ? candidate.getCause() : null;
		}
		throw new AssertionError("Expected a " + type.getName() + " in the cause chain of " + failure, failure);
	}

	/**
	 * An in-memory {@link LeaseBackend} good enough for unit-level checks: one live lease
	 * per job, no expiry.
	 */
	public static class StubLeaseBackend implements LeaseBackend {

		private final String id;

		private final AtomicLong fencing = new AtomicLong();

		private final AtomicLong acquisitions = new AtomicLong();

		private final Map<String, String> held = new ConcurrentHashMap<>();

		public StubLeaseBackend(String id) {
			this.id = id;
		}

		@Override
		public String id() {
			return this.id;
		}

		@Override
		public void validateJobName(String jobName) {
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			this.acquisitions.incrementAndGet();
			if (this.held.putIfAbsent(request.jobName(), request.leaseToken()) != null) {
				return AcquireResult.held(null);
			}
			return AcquireResult.acquired(this.fencing.incrementAndGet());
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			return leases.stream()
				.filter((lease) -> lease.leaseToken().equals(this.held.get(lease.jobName())))
				.map(HeldLease::leaseToken)
				.collect(Collectors.toSet());
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
			this.held.remove(lease.jobName(), lease.leaseToken());
		}

		@Override
		public Optional<LeaseInfo> describe(String jobName) {
			return Optional.empty();
		}

		@Override
		public boolean forceRelease(String jobName) {
			return this.held.remove(jobName) != null;
		}

		@Override
		public void probe() {
		}

		/**
		 * Return how many acquisitions were attempted.
		 * @return the number of calls of {@link #tryAcquire}
		 */
		public long acquisitions() {
			return this.acquisitions.get();
		}

	}

}
