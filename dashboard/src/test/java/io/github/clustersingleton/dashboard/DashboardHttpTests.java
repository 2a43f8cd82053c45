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

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the dashboard page and its assets over HTTP, at the default path, with the
 * endpoint's default (read-only) access.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "cluster-singleton.backend=in-memory", "cluster-singleton.owner-id=node-a",
				"management.endpoints.web.exposure.include=health,clustersingleton" })
class DashboardHttpTests {

	/**
	 * Any URL with a scheme or protocol-relative: the page must not load anything from
	 * anywhere but its own origin.
	 */
	private static final Pattern EXTERNAL = Pattern.compile("(?i)(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}");

	/**
	 * The one absolute URL the script holds: SVG's XML namespace, a name that is never
	 * fetched.
	 */
	private static final String SVG_NAMESPACE = "http://www.w3.org/2000/svg";

	@LocalServerPort
	private int port;

	private Http http;

	@BeforeEach
	void client() {
		this.http = new Http(this.port);
	}

	@Test
	void pathWithoutSlashRedirectsToThePage() {
		HttpResponse<String> response = this.http.get("/cluster-singleton");
		assertThat(response.statusCode()).isEqualTo(302);
		assertThat(response.headers().firstValue("Location")).hasValue("/cluster-singleton/");
	}

	@Test
	void pageTellsItsScriptWhereTheEndpointIs() {
		HttpResponse<String> response = this.http.get("/cluster-singleton/");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("text/html").containsIgnoringCase("charset=UTF-8"));
		assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
		assertThat(response.headers().firstValue("Content-Security-Policy"))
			.hasValue(DashboardPage.CONTENT_SECURITY_POLICY);
		assertThat(response.body()).contains("<title>cluster-singleton dashboard</title>")
			.contains("href=\"assets/dashboard.css\"")
			.contains("src=\"assets/dashboard.js\"")
			.doesNotContain("{{");
		Map<String, String> config = Http.pageConfig(response.body());
		assertThat(config).containsEntry("endpoint", "/actuator/clustersingleton")
			.containsEntry("endpoint-problem", "")
			.containsEntry("refresh-millis", "5000")
			.containsEntry("csrf-token", "");
	}

	@Test
	void endpointThePageReadsAnswersAtThatPath() {
		HttpResponse<String> response = this.http.get("/actuator/clustersingleton", "Accept", "application/json");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"report\"").contains("\"cleanup\"");
	}

	@Test
	void writeProbeOfThePageIsRefusedWhileTheEndpointIsReadOnly() {
		// what the page sends to learn whether it may show its buttons
		HttpResponse<String> response = this.http.send("POST", "/actuator/clustersingleton", "{}");
		assertThat(response.statusCode()).isEqualTo(405);
	}

	@Test
	void assetsAreServedWithTheirTypes() {
		assertAsset("/cluster-singleton/assets/dashboard.js", "text/javascript", "probeWrites");
		assertAsset("/cluster-singleton/assets/dashboard.css", "text/css", "prefers-color-scheme: dark");
		assertThat(this.http.get("/cluster-singleton/assets/missing.js").statusCode()).isEqualTo(404);
		// nothing but the assets folder is reachable
		assertThat(this.http.get("/cluster-singleton/assets/../index.html").statusCode()).isNotEqualTo(200);
	}

	private void assertAsset(String path, String type, String content) {
		HttpResponse<String> response = this.http.get(path);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((value) -> assertThat(value).startsWith(type));
		assertThat(response.body()).contains(content);
	}

	@Test
	void noAssetLoadsAnythingFromOutside() throws IOException {
		Resource[] resources = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + DashboardPage.LOCATION + "**/*.*");
		assertThat(resources).extracting(Resource::getFilename).contains("index.html", "dashboard.js", "dashboard.css");
		List<String> found = new ArrayList<>();
		for (Resource resource : resources) {
			String text = resource.getContentAsString(StandardCharsets.UTF_8);
			Matcher matcher = EXTERNAL.matcher(text.replace(SVG_NAMESPACE, ""));
			while (matcher.find()) {
				found.add(resource.getFilename() + ": " + matcher.group());
			}
			assertThat(text).as(resource.getFilename()).doesNotContain("@import").doesNotContain("@font-face");
		}
		assertThat(found).isEmpty();
		// and the page as served: its links are relative to it
		String page = this.http.get("/cluster-singleton/").body();
		Matcher links = Pattern.compile("(?:src|href)=\"([^\"]*)\"").matcher(page);
		List<String> urls = new ArrayList<>();
		while (links.find()) {
			urls.add(links.group(1));
		}
		assertThat(urls).containsExactlyInAnyOrder("data:,", "assets/dashboard.css", "assets/dashboard.js");
	}

}
