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
package io.github.clustersingleton.aot;

import java.util.Set;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ClusterSingletonProperties;
import io.github.clustersingleton.autoconfigure.JobProperties;
import io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseProperties;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs Spring's AOT processing on an application with a guarded job, as
 * {@code spring-boot:process-aot} does, and checks the hints and classes it produces: the
 * library's resource hints (through {@code aot.factories}), the binding hints of its
 * properties (registered by Spring Boot), the invocation hint of the job's method and the
 * job bean's proxy class, generated at build time.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonAotProcessingTests {

	@Test
	void processingAnApplicationWithAGuardedJobRegistersWhatTheLibraryNeedsAtRuntime() {
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(JobApplication.class)), files);
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			TestPropertyValues.of("spring.datasource.url=" + ClusterSingletonTestSupport.h2Url()).applyTo(context);
			context.register(JobApplication.class);
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		}
		generation.writeGeneratedContent();
		RuntimeHints hints = generation.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/clustersingleton/jdbc/h2/acquire.sql"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/clustersingleton/redis/acquire.lua"))
			.accepts(hints);
		for (Class<?> properties : Set.of(ClusterSingletonProperties.class, JobProperties.class,
				JdbcLeaseProperties.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(properties)).accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Job.class, "run")).accepts(hints);
		assertThat(files.getGeneratedFiles(Kind.CLASS).keySet())
			.anySatisfy((file) -> assertThat(file).startsWith(Job.class.getName().replace('.', '/') + "$$SpringCGLIB"));
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, ClusterSingletonAutoConfiguration.class,
			JdbcLeaseAutoConfiguration.class })
	static class JobApplication {

		@Bean
		Job job() {
			return new Job();
		}

	}

	static class Job {

		@ClusterSingleton(name = "aot-job")
		void run() {
		}

	}

}
