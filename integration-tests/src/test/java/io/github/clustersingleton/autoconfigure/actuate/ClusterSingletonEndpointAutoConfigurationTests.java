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

package io.github.clustersingleton.autoconfigure.actuate;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.actuate.ClusterSingletonEndpoint;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ClusterSingletonDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.JobDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonRunHistory;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.test.TestStores;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ClusterSingletonEndpointAutoConfiguration} and the operations of
 * {@link ClusterSingletonEndpoint} called directly.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				JdbcLeaseAutoConfiguration.class, ClusterSingletonEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=clustersingleton");

	@Test
	void runWhenNotExposedShouldNotCreateEndpoint() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
					JdbcLeaseAutoConfiguration.class, ClusterSingletonEndpointAutoConfiguration.class))
			.with(h2())
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonEndpoint.class)
				.doesNotHaveBean(ClusterSingletonRunHistory.class));
	}

	@Test
	void runWhenAccessIsNoneShouldNotCreateEndpoint() {
		this.contextRunner.with(h2())
			.withPropertyValues("management.endpoint.clustersingleton.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonEndpoint.class));
	}

	@Test
	void runWhenExposedShouldCreateEndpointAndHistory() {
		this.contextRunner.with(h2())
			.run((context) -> assertThat(context).hasSingleBean(ClusterSingletonEndpoint.class)
				.hasSingleBean(ClusterSingletonRunHistory.class));
	}

	@Test
	void runWhenClusterSingletonIsDisabledShouldNotCreateEndpoint() {
		this.contextRunner.with(h2())
			.withPropertyValues("cluster-singleton.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterSingletonEndpoint.class));
	}

	@Test
	void readWithoutJobsShowsNoEngineAndDoesNotStartIt() {
		this.contextRunner.with(h2()).run((context) -> {
			ClusterSingletonDescriptor descriptor = context.getBean(ClusterSingletonEndpoint.class).clusterSingleton();
			assertThat(descriptor.backend()).isNull();
			assertThat(descriptor.owner()).isNull();
			assertThat(descriptor.jobs()).isEmpty();
			assertThat(context.getBeanFactory().containsSingleton("clusterSingletonExecutor")).isFalse();
		});
	}

	@Test
	void unknownJobIsNotFound() {
		this.contextRunner.with(h2()).withBean(Jobs.class).run((context) -> {
			ClusterSingletonEndpoint endpoint = context.getBean(ClusterSingletonEndpoint.class);
			assertThat(endpoint.job("no-such-job")).isNull();
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.forceRelease("no-such-job", SecurityContext.NONE))
				.withMessageContaining("No cluster-singleton job named 'no-such-job'; known jobs: [");
		});
	}

	@Test
	void storeErrorsAreReportedPerJobInsteadOfFailingTheRead() {
		this.contextRunner.withBean(DataSource.class, () -> TestStores.unreachableDataSource("postgresql"))
			.withBean(Jobs.class)
			.run((context) -> {
				ClusterSingletonEndpoint endpoint = context.getBean(ClusterSingletonEndpoint.class);
				ClusterSingletonDescriptor descriptor = endpoint.clusterSingleton();
				assertThat(descriptor.backend()).isEqualTo("jdbc");
				assertThat(descriptor.jobs()).containsOnlyKeys("first", "second");
				assertThat(descriptor.jobs().values()).allSatisfy((job) -> {
					assertThat(job.lease()).isNull();
					assertThat(job.leaseError()).contains("DataAccess");
					assertThat(job.settings().enabled()).isTrue();
				});
				JobDescriptor one = endpoint.job("first");
				assertThat(one).isNotNull();
				assertThat(one.leaseError()).contains("DataAccess");
			});
	}

	static class Jobs {

		@ClusterSingleton(name = "first")
		public void first() {
		}

		@ClusterSingleton(name = "second")
		public void second() {
		}

	}

}
