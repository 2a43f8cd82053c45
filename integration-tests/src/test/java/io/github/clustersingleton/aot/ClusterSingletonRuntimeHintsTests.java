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

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every SQL and Lua file the backends read is matched by a resource hint of
 * {@link ClusterSingletonRuntimeHints}, and the registrar is listed in
 * {@code META-INF/spring/aot.factories}.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonRuntimeHintsTests {

	private static final String ROOT = "io/github/clustersingleton/";

	@Test
	void everyStatementScriptAndSchemaFileIsMatchedByAResourceHint() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new ClusterSingletonRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<String> files = backendFiles();
		// the schema of each of the four platforms, their statements and the Lua scripts
		assertThat(files).contains(ROOT + "jdbc/schema-postgresql.sql", ROOT + "jdbc/schema-mariadb.sql",
				ROOT + "jdbc/schema-mysql.sql", ROOT + "jdbc/schema-h2.sql", ROOT + "jdbc/postgresql/acquire.sql",
				ROOT + "jdbc/mariadb/acquire-returning.sql", ROOT + "redis/acquire.lua", ROOT + "redis/renew.lua");
		assertThat(files).hasSizeGreaterThan(70);
		assertThat(unmatched(hints, files)).isEmpty();
	}

	@Test
	void aFileWithoutItsHintIsReported() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		ClusterSingletonRuntimeHints.RESOURCE_PATTERNS.stream()
			.filter((pattern) -> !pattern.endsWith(".lua"))
			.forEach(hints.resources()::registerPattern);
		List<String> unmatched = unmatched(hints, backendFiles());
		assertThat(unmatched).isNotEmpty().allMatch((file) -> file.startsWith(ROOT + "redis/"));
		assertThat(RuntimeHintsPredicates.resource().forResource(ROOT + "jdbc/h2/acquire.txt")).rejects(hints);
	}

	@Test
	void registrarIsListedInAotFactories() {
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(ClusterSingletonRuntimeHints.class);
	}

	/**
	 * Return the class path location of every SQL and Lua file of the library.
	 */
	static List<String> backendFiles() throws IOException {
		PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
		List<String> files = new ArrayList<>();
		for (String pattern : List.of("classpath*:" + ROOT + "**/*.sql", "classpath*:" + ROOT + "**/*.lua")) {
			for (Resource resource : resolver.getResources(pattern)) {
				String url = resource.getURL().toString();
				files.add(url.substring(url.lastIndexOf(ROOT)));
			}
		}
		return files;
	}

	static List<String> unmatched(RuntimeHints hints, List<String> files) {
		return files.stream().filter(Predicate.not((file) -> matches(hints, file))).toList();
	}

	private static boolean matches(RuntimeHints hints, String file) {
		return RuntimeHintsPredicates.resource().forResource(file).test(hints);
	}

}
