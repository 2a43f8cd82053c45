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

import java.util.ArrayList;
import java.util.List;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ClusterSingletonConfigurationFailureAnalyzer}.
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterSingletonConfigurationFailureAnalyzerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ClusterSingletonAutoConfiguration.class));

	private final ClusterSingletonConfigurationFailureAnalyzer analyzer = new ClusterSingletonConfigurationFailureAnalyzer();

	@Test
	void analyzeMissingLeaseStoreShouldExplainHowToProvideOne() {
		this.contextRunner.withUserConfiguration(JobConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("no lease store").contains("nightly");
			assertThat(analysis.getAction()).contains("Provide a lease store")
				.contains("cluster-singleton.backend")
				.contains("cluster-singleton.enabled=false");
			assertThat(analysis.getCause()).isInstanceOf(LeaseBackendUnavailableException.class);
		});
	}

	@Test
	void analyzeInvalidJobShouldPointAtTheAttributeOrProperty() {
		this.contextRunner.withBean(InvalidJob.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("'invalid'").contains("@ClusterSingleton(lockAtMostFor)");
			assertThat(analysis.getAction())
				.contains("Correct the @ClusterSingleton attribute or the cluster-singleton property");
			assertThat(analysis.getCause()).isInstanceOf(ClusterSingletonConfigurationException.class)
				.isNotInstanceOf(LeaseBackendUnavailableException.class);
		});
	}

	@Test
	void analyzeWrappedConfigurationExceptionShouldFindIt() {
		ClusterSingletonConfigurationException cause = new ClusterSingletonConfigurationException("Invalid thing");
		FailureAnalysis analysis = this.analyzer
			.analyze(new BeanCreationException("someBean", "Failed", new IllegalStateException("wrapper", cause)));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).isEqualTo("Invalid thing");
		assertThat(analysis.getCause()).isSameAs(cause);
	}

	@Test
	void analyzeUnrelatedFailureShouldReturnNull() {
		assertThat(this.analyzer.analyze(new BeanCreationException("someBean", "Failed"))).isNull();
	}

	@Test
	void springFactoriesShouldRegisterTheAnalyzer() {
		List<Throwable> skipped = new ArrayList<>();
		// Boot's own analyzers need constructor arguments that are not supplied here:
		// skip them
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forResourceLocation("META-INF/spring.factories")
			.load(FailureAnalyzer.class, FailureHandler.handleMessage((message, failure) -> skipped.add(failure)));
		assertThat(analyzers).hasAtLeastOneElementOfType(ClusterSingletonConfigurationFailureAnalyzer.class);
	}

	@Test
	void startupFailureShouldBeReportedByTheAnalyzer(CapturedOutput output) {
		SpringApplication application = new SpringApplication(ApplicationConfiguration.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatExceptionOfType(BeanCreationException.class)
			.isThrownBy(() -> application.run("--spring.main.banner-mode=off"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("cluster-singleton found no lease store")
			.contains("nightly")
			.contains("Provide a lease store for the @ClusterSingleton jobs");
	}

	@Configuration(proxyBeanMethods = false)
	static class JobConfiguration {

		@Bean
		NightlyJob nightlyJob() {
			return new NightlyJob();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ClusterSingletonAutoConfiguration.class)
	static class ApplicationConfiguration {

		@Bean
		NightlyJob nightlyJob() {
			return new NightlyJob();
		}

	}

	static class NightlyJob {

		@ClusterSingleton(name = "nightly")
		public void run() {
		}

	}

	static class InvalidJob {

		@ClusterSingleton(name = "invalid", lockAtMostFor = "abc")
		public void run() {
		}

	}

}
