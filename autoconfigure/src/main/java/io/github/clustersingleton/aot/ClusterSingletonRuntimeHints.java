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

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * {@link RuntimeHintsRegistrar} for the files the lease backends read from the class path
 * when they start: the JDBC backend's schema scripts ({@code schema-<platform>.sql}) and
 * statements ({@code <platform>/<statement>.sql}), and the Redis backend's Lua scripts.
 * Registered in {@code META-INF/spring/aot.factories}, so an application's AOT processing
 * picks it up.
 * <p>
 * The rest needs no hint of its own: Spring Boot registers the binding hints of the
 * {@code cluster-singleton.*} properties classes (each one is enabled with
 * {@code @EnableConfigurationProperties}), {@code @ClusterSingleton} is meta-annotated
 * with {@code @Reflective}, so annotated methods of beans are registered for invocation
 * (the engine calls them reflectively for recovery and catch-up runs), and the proxy of a
 * bean with such methods is generated at build time like any other proxy an advising
 * post-processor creates.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * The class path patterns of the files the backends read.
	 */
	static final List<String> RESOURCE_PATTERNS = List.of("io/github/clustersingleton/jdbc/schema-*.sql",
			"io/github/clustersingleton/jdbc/*/*.sql", "io/github/clustersingleton/redis/*.lua");

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		RESOURCE_PATTERNS.forEach(hints.resources()::registerPattern);
	}

}
