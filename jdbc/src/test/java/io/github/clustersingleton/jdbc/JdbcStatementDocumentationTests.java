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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/jdbc.md} shows every SQL file of the JDBC backend exactly as it is in the
 * jar, so that what a DBA reads there is what runs.
 *
 * @author cluster-singleton contributors
 */
class JdbcStatementDocumentationTests {

	private static final Path DOC = Path.of("..", "docs", "jdbc.md");

	private static final Path STATEMENTS = Path.of("src", "main", "resources", "io", "github", "clustersingleton",
			"jdbc");

	private static final Pattern SHOWN = Pattern.compile("<!-- sql: (\\S+) -->\\n```sql\\n(.*?)\\n```", Pattern.DOTALL);

	@Test
	void everyStatementFileIsShownAsItIs() throws IOException {
		Map<String, String> shown = shownStatements();
		List<String> files = statementFiles();
		assertThat(files).as("SQL files under %s", STATEMENTS).isNotEmpty();
		assertThat(shown.keySet()).as("statements shown in %s", DOC).containsExactlyInAnyOrderElementsOf(files);
		for (String file : files) {
			String expected = JdbcStatement.read("io/github/clustersingleton/jdbc/" + file).stripTrailing();
			assertThat(shown.get(file)).as("%s as shown in %s (copy the file's text into its block there)", file, DOC)
				.isEqualTo(expected);
		}
	}

	private static Map<String, String> shownStatements() throws IOException {
		Map<String, String> shown = new LinkedHashMap<>();
		Matcher matcher = SHOWN.matcher(Files.readString(DOC));
		while (matcher.find()) {
			shown.put(matcher.group(1), matcher.group(2));
		}
		return shown;
	}

	private static List<String> statementFiles() throws IOException {
		try (Stream<Path> paths = Files.walk(STATEMENTS)) {
			return paths.filter((path) -> path.getParent() != null && !path.getParent().equals(STATEMENTS))
				.filter((path) -> path.toString().endsWith(".sql"))
				.map((path) -> STATEMENTS.relativize(path).toString().replace('\\', '/'))
				.sorted()
				.toList();
		}
	}

}
