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
package io.github.clustersingleton.dashboard;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.function.RouterFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link ClusterSingletonDashboardAutoConfiguration}.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonDashboardAutoConfigurationTests {

	private static final String ROUTES = "clusterSingletonDashboardRoutes";

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonDashboardAutoConfiguration.class));

	@Test
	void servesThePageInAServletWebApplication() {
		this.runner.run((context) -> {
			assertThat(context).hasBean(ROUTES);
			assertThat(context.getBean(ClusterSingletonDashboardProperties.class).getPath())
				.isEqualTo("/cluster-singleton");
		});
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("cluster-singleton.dashboard.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ROUTES));
	}

	@Test
	void backsOffWithoutSpringMvc() {
		this.runner.withClassLoader(new FilteredClassLoader(RouterFunction.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ROUTES));
	}

	@Test
	void backsOffInAnApplicationThatIsNotAWebApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ClusterSingletonDashboardAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ROUTES));
	}

	@Test
	void backsOffInAReactiveWebApplication() {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ClusterSingletonDashboardAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ROUTES));
	}

	@Test
	void refusesAPathThatIsNotAPath() {
		this.runner.withPropertyValues("cluster-singleton.dashboard.path=ops/**")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("cluster-singleton.dashboard.path 'ops/**'"));
	}

	@Test
	void normalizesThePath() {
		assertThat(ClusterSingletonDashboardAutoConfiguration.pagePath("/ops/jobs/")).isEqualTo("/ops/jobs");
		assertThat(ClusterSingletonDashboardAutoConfiguration.pagePath(" /ops ")).isEqualTo("/ops");
		assertThat(ClusterSingletonDashboardAutoConfiguration.pagePath("/")).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> ClusterSingletonDashboardAutoConfiguration.pagePath(""))
			.withMessageContaining("cluster-singleton.dashboard.path");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClusterSingletonDashboardAutoConfiguration.pagePath("/a/{b}"))
			.withMessageContaining("'/a/{b}'");
	}

}
