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

package io.github.clustersingleton.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.metrics.ClusterSingletonObservationContext;
import io.github.clustersingleton.metrics.ClusterSingletonObservationDocumentation;
import io.github.clustersingleton.metrics.DefaultClusterSingletonObservationConvention;
import io.github.clustersingleton.metrics.ObservationRunObserver;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ClusterSingletonObservationAutoConfiguration} and the observation of
 * guarded runs.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonObservationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class,
				JdbcLeaseAutoConfiguration.class, ClusterSingletonObservationAutoConfiguration.class))
		.with(h2());

	@Test
	void eachTriggerIsObservedWithItsOutcome() {
		RecordingHandler handler = new RecordingHandler();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(handler);
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry).withBean(Jobs.class).run((context) -> {
			assertThat(context).hasSingleBean(ObservationRunObserver.class);
			Jobs jobs = context.getBean(Jobs.class);
			jobs.kept();
			// lockAtLeastFor keeps the lease: the second trigger is skipped
			jobs.kept();
			assertThatIllegalStateException().isThrownBy(jobs::failing);
			assertThat(handler.stopped).hasSize(3);
			ClusterSingletonObservationContext ran = handler.stopped.get(0);
			assertThat(ran.getName()).isEqualTo(DefaultClusterSingletonObservationConvention.OBSERVATION_NAME);
			assertThat(ran.getContextualName()).isEqualTo("cluster-singleton observed-kept");
			assertThat(ran.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("name", "observed-kept"),
					KeyValue.of("backend", "jdbc"), KeyValue.of("outcome", "success"));
			assertThat(ran.getHighCardinalityKeyValue("cluster.singleton.fencing-token")).isNotNull();
			assertThat(handler.stopped.get(1).getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("held");
			assertThat(handler.stopped.get(1).getHighCardinalityKeyValue("cluster.singleton.fencing-token")).isNull();
			ClusterSingletonObservationContext failed = handler.stopped.get(2);
			assertThat(failed.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("failure");
			assertThat(failed.getError()).isInstanceOf(IllegalStateException.class);
			// the job body runs inside the observation: its own observations are
			// children
			Observation current = jobs.current();
			assertThat(current).isNotNull();
			assertThat(current.getContext()).isSameAs(ran);
			assertThat(registry.getCurrentObservation()).isNull();
		});
	}

	@Test
	void aReactiveJobIsObservedLikeAVoidJob() {
		RecordingHandler handler = new RecordingHandler();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(handler);
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry)
			.withBean(ReactiveJobs.class)
			.run((context) -> {
				ReactiveJobs jobs = context.getBean(ReactiveJobs.class);
				assertThat(jobs.value().block(Duration.ofSeconds(10))).isEqualTo("done");
				assertThat(handler.stopped).hasSize(1);
				ClusterSingletonObservationContext ran = handler.stopped.get(0);
				assertThat(ran.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(
						KeyValue.of("name", "observed-reactive"), KeyValue.of("backend", "jdbc"),
						KeyValue.of("outcome", "success"));
				assertThat(ran.getHighCardinalityKeyValue("cluster.singleton.fencing-token")).isNotNull();
				// nothing was left open on the subscribing thread
				assertThat(registry.getCurrentObservation()).isNull();
			});
	}

	@Test
	void documentationListsTheKeys() {
		assertThat(ClusterSingletonObservationDocumentation.RUN.getLowCardinalityKeyNames())
			.extracting((key) -> key.asString())
			.containsExactly("name", "backend", "outcome");
		assertThat(ClusterSingletonObservationDocumentation.RUN.getDefaultConvention())
			.isEqualTo(DefaultClusterSingletonObservationConvention.class);
	}

	@Test
	void runWithoutObservationRegistryShouldNotCreateObserver() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(ObservationRunObserver.class));
	}

	@Test
	void runWithoutMicrometerObservationShouldNotCreateObserver() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(ObservationRunObserver.class));
	}

	static class Jobs {

		private final AtomicReference<@Nullable Observation> current = new AtomicReference<>();

		private final ObservationRegistry registry;

		Jobs(ObservationRegistry registry) {
			this.registry = registry;
		}

		@ClusterSingleton(name = "observed-kept", lockAtLeastFor = "1m")
		public void kept() {
			this.current.set(this.registry.getCurrentObservation());
		}

		// read through a method: a field of the proxy would be null
		public @Nullable Observation current() {
			return this.current.get();
		}

		@ClusterSingleton(name = "observed-failing")
		public void failing() {
			throw new IllegalStateException("failed");
		}

	}

	static class ReactiveJobs {

		@ClusterSingleton(name = "observed-reactive")
		public Mono<String> value() {
			return Mono.just("done").delayElement(Duration.ofMillis(50));
		}

	}

	static class RecordingHandler implements ObservationHandler<ClusterSingletonObservationContext> {

		final List<ClusterSingletonObservationContext> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(ClusterSingletonObservationContext context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof ClusterSingletonObservationContext;
		}

	}

}
