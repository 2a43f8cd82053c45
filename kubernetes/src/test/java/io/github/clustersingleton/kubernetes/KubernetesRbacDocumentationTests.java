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

package io.github.clustersingleton.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Role in {@code docs/kubernetes.md} and {@code docs/kubernetes/rbac.yaml} grants the
 * verbs the startup error names ({@link KubernetesLeaseBackend#RBAC_VERBS}), and the two
 * show the same Role.
 *
 * @author cluster-singleton contributors
 */
class KubernetesRbacDocumentationTests {

	private static final Path PAGE = Path.of("..", "docs", "kubernetes.md");

	private static final Path ROLE_FILE = Path.of("..", "docs", "kubernetes", "rbac.yaml");

	private static final Pattern VERBS = Pattern.compile("verbs: \\[([^\\]]*)\\]");

	@Test
	void theDocumentedRoleGrantsTheVerbsTheErrorNames() throws IOException {
		String file = Files.readString(ROLE_FILE);
		assertThat(verbs(file)).as("verbs in %s", ROLE_FILE)
			.containsExactlyElementsOf(KubernetesLeaseBackend.RBAC_VERBS);
		assertThat(Files.readString(PAGE)).as("%s shows %s as it is", PAGE, ROLE_FILE).contains(file);
	}

	private static List<String> verbs(String yaml) {
		Matcher matcher = VERBS.matcher(yaml);
		assertThat(matcher.find()).as("a verbs list").isTrue();
		List<String> verbs = new ArrayList<>();
		for (String verb : matcher.group(1).split(",")) {
			verbs.add(verb.strip().replace("\"", ""));
		}
		return verbs;
	}

}
