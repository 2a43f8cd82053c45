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

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/configuration.md} lists every {@code cluster-singleton.*} property of the
 * generated configuration metadata, and no other, with the metadata's default.
 *
 * @author cluster-singleton contributors
 */
class ConfigurationDocumentationTests {

	private static final Path DOC = Path.of("..", "docs", "configuration.md");

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	/**
	 * A row of the keys table: the key, its type, its default.
	 */
	private static final Pattern ROW = Pattern.compile(
			"^\\| `(cluster-singleton\\.[^`]+)` \\| ((?:[^|\\\\]|\\\\\\|)*) \\| ((?:[^|\\\\]|\\\\\\|)*) \\|",
			Pattern.MULTILINE);

	@Test
	void everyPropertyIsDocumentedWithItsDefault() throws IOException {
		Map<String, String> documented = documentedDefaults();
		Map<String, JsonNode> metadata = metadataProperties();
		List<String> problems = new ArrayList<>();
		metadata.forEach((name, property) -> {
			if (name.equals("cluster-singleton.jobs")) {
				for (String key : List.of("lock-at-most-for", "lock-at-least-for", "enabled")) {
					if (!documented.containsKey("cluster-singleton.jobs.<name>." + key)) {
						problems.add("cluster-singleton.jobs.<name>." + key + " is missing from " + DOC);
					}
				}
				return;
			}
			String doc = documented.get(name);
			if (doc == null) {
				problems.add(name + " is missing from the keys table of " + DOC + ": add a row for it");
				return;
			}
			JsonNode defaultValue = property.get("defaultValue");
			if (defaultValue != null && !defaultValue.isNull() && !sameDefault(defaultValue.asString(), doc)) {
				problems.add(name + " is documented with default '" + doc + "' but its default is '"
						+ defaultValue.asString() + "': correct the row in " + DOC);
			}
		});
		documented.keySet()
			.stream()
			.filter((name) -> !name.startsWith("cluster-singleton.jobs.<name>.") && !metadata.containsKey(name))
			.forEach((name) -> problems.add(name + " is documented in " + DOC + " but is no property: remove its row"));
		assertThat(problems).isEmpty();
	}

	private static boolean sameDefault(String metadata, String documented) {
		String doc = documented.strip().replaceAll("^`|`$", "");
		if (metadata.equalsIgnoreCase(doc)) {
			return true;
		}
		try {
			Duration expected = DurationStyle.detectAndParse(metadata);
			return expected.equals(DurationStyle.detectAndParse(doc, java.time.temporal.ChronoUnit.SECONDS));
		}
		catch (IllegalArgumentException ex) {
			return metadata.replace('_', '-')
				.toLowerCase(Locale.ROOT)
				.equals(doc.replace('_', '-').toLowerCase(Locale.ROOT));
		}
	}

	private static Map<String, String> documentedDefaults() throws IOException {
		Map<String, String> rows = new LinkedHashMap<>();
		Matcher matcher = ROW.matcher(Files.readString(DOC));
		while (matcher.find()) {
			rows.put(matcher.group(1), matcher.group(3));
		}
		return rows;
	}

	private static Map<String, JsonNode> metadataProperties() throws IOException {
		// the core and each store module publish their own metadata
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		List<URL> files = Collections
			.list(ConfigurationDocumentationTests.class.getClassLoader().getResources(METADATA));
		assertThat(files).as("%s on the class path (run the build once)", METADATA).isNotEmpty();
		for (URL file : files) {
			try (InputStream in = file.openStream()) {
				JsonNode root = JsonMapper.builder().build().readTree(in);
				for (JsonNode property : root.get("properties")) {
					String name = property.get("name").asString();
					if (name.startsWith("cluster-singleton.")) {
						properties.put(name, property);
					}
				}
			}
		}
		return properties;
	}

}
