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

import java.net.http.HttpResponse;
import java.util.Map;

import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.dashboard.DashboardTestApplication.DashboardJobs;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the dashboard of an application that protects the endpoint with Spring
 * Security, as the documentation shows: a user with role {@code VIEWER} reads, only a
 * user with role {@code ADMIN} writes, and the page offers its buttons to the latter
 * only.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = DashboardSecurityTests.SecuredApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "cluster-singleton.backend=in-memory", "cluster-singleton.owner-id=node-a",
				"cluster-singleton.dashboard.refresh-interval=1s",
				"management.endpoints.web.exposure.include=health,clustersingleton",
				"management.endpoint.clustersingleton.access=unrestricted" })
class DashboardSecurityTests {

	private static final String VIEWER = Http.basic("viewer", "viewer-password");

	private static final String ADMIN = Http.basic("admin", "admin-password");

	@LocalServerPort
	private int port;

	@Autowired
	private ObjectProvider<ClusterSingletonOperations> operations;

	private Http http;

	@BeforeEach
	void client() {
		this.http = new Http(this.port);
	}

	@Test
	void anonymousUserGetsNeitherThePageNorTheEndpoint() {
		assertThat(this.http.get("/cluster-singleton/").statusCode()).isIn(302, 401);
		assertThat(this.http.get("/actuator/clustersingleton", "Accept", "application/json").statusCode()).isIn(302,
				401);
	}

	@Test
	void userWithoutAdminRoleReadsButCannotWrite() {
		Session viewer = signIn(VIEWER);
		assertThat(this.http.get("/actuator/clustersingleton", viewer.headers()).statusCode()).isEqualTo(200);
		// the page's write probe, then the writes themselves, as the page sends them
		assertThat(viewer.send("POST", "", "{}").statusCode()).isEqualTo(403);
		assertThat(viewer.send("POST", "/report", "{\"action\":\"pause\",\"reason\":\"no\"}").statusCode())
			.isEqualTo(403);
		assertThat(viewer.send("POST", "/report", "{\"action\":\"run\"}").statusCode()).isEqualTo(403);
		assertThat(viewer.send("DELETE", "/report", null).statusCode()).isEqualTo(403);
		ClusterSingletonOperations operations = this.operations.getIfAvailable();
		if (operations != null) {
			assertThat(operations.controls("report").paused()).isFalse();
		}
	}

	@Test
	void adminWrites() {
		Session admin = signIn(ADMIN);
		// the probe passes security and is refused by the endpoint as bad input
		assertThat(admin.send("POST", "", "{}").statusCode()).isEqualTo(400);
		assertThat(admin.send("DELETE", "/report", null).statusCode()).isEqualTo(200);
		ClusterSingletonOperations operations = this.operations.getIfAvailable();
		if (operations != null) {
			HttpResponse<String> pause = admin.send("POST", "/cleanup", "{\"action\":\"pause\",\"reason\":\"admin\"}");
			assertThat(pause.statusCode()).as(pause.body()).isEqualTo(200);
			assertThat(operations.controls("cleanup").paused()).isTrue();
			assertThat(operations.controls("cleanup").pausedBy()).isEqualTo("admin");
			assertThat(admin.send("POST", "/cleanup", "{\"action\":\"resume\"}").statusCode()).isEqualTo(200);
			assertThat(operations.controls("cleanup").paused()).isFalse();
		}
	}

	@Test
	void adminWriteWithoutTheCsrfTokenOfThePageIsRefused() {
		// the CSRF filter comes before authentication: refused as unauthenticated
		assertThat(this.http.send("DELETE", "/actuator/clustersingleton/report", null, "Authorization", ADMIN)
			.statusCode()).isIn(401, 403);
	}

	@Test
	void pageOffersTheButtonsOnlyToAnAdmin() {
		try (Chromium chromium = Chromium.start()) {
			signInWithBrowser(chromium, "viewer", "viewer-password");
			chromium.awaitPresent("body[data-writes='false']");
			chromium.await("article[data-job='report'] h3");
			assertThat(chromium.text("#access")).isEqualTo("read-only");
			assertThat(chromium.all("button[data-action]")).isNotEmpty()
				.allSatisfy((button) -> assertThat(button.isDisplayed()).isFalse());
		}
		try (Chromium chromium = Chromium.start()) {
			signInWithBrowser(chromium, "admin", "admin-password");
			chromium.awaitPresent("body[data-writes='true']");
			assertThat(chromium.await("article[data-job='report'] button[data-action='run']").isDisplayed()).isTrue();
			assertThat(chromium.await("#pause-all button").isDisplayed()).isTrue();
		}
	}

	private void signInWithBrowser(Chromium chromium, String user, String password) {
		chromium.open("http://localhost:" + this.port + "/cluster-singleton/");
		chromium.await("input[name='username']").sendKeys(user);
		chromium.await("input[name='password']").sendKeys(password);
		chromium.click("button[type='submit']");
		chromium.awaitPresent("body[data-loaded='true']");
	}

	/**
	 * Open the page as a user and keep what a browser keeps: the session cookie and the
	 * CSRF token the server wrote into the page.
	 */
	private Session signIn(String authorization) {
		HttpResponse<String> page = this.http.get("/cluster-singleton/", "Authorization", authorization);
		assertThat(page.statusCode()).isEqualTo(200);
		Map<String, String> config = Http.pageConfig(page.body());
		assertThat(config.get("csrf-header")).isNotEmpty();
		assertThat(config.get("csrf-token")).isNotEmpty();
		String cookie = page.headers()
			.allValues("Set-Cookie")
			.stream()
			.map((value) -> value.substring(0, value.indexOf(';')))
			.filter((value) -> value.startsWith("JSESSIONID="))
			.findFirst()
			.orElseThrow();
		return new Session(this.http, config.get("endpoint"), authorization, cookie, config.get("csrf-header"),
				config.get("csrf-token"));
	}

	private record Session(Http http, String endpoint, String authorization, String cookie, String csrfHeader,
			String csrfToken) {

		String[] headers() {
			return new String[] { "Authorization", this.authorization, "Cookie", this.cookie, "Accept",
					"application/json" };
		}

		HttpResponse<String> send(String method, String path, String json) {
			return this.http.send(method, this.endpoint + path, json, "Authorization", this.authorization, "Cookie",
					this.cookie, "Accept", "application/json", this.csrfHeader, this.csrfToken);
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(DashboardJobs.class)
	static class SecuredApplication {

		// the example of docs/observability.md
		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests
				.requestMatchers(EndpointRequest.to("clustersingleton").withHttpMethod(HttpMethod.GET))
				.hasAnyRole("VIEWER", "ADMIN")
				.requestMatchers(EndpointRequest.to("clustersingleton"))
				.hasRole("ADMIN")
				.requestMatchers("/cluster-singleton/**")
				.hasAnyRole("VIEWER", "ADMIN")
				.anyRequest()
				.authenticated()).httpBasic(Customizer.withDefaults()).formLogin(Customizer.withDefaults());
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("viewer").password("{noop}viewer-password").roles("VIEWER").build(),
					User.withUsername("admin").password("{noop}admin-password").roles("ADMIN").build());
		}

	}

}
