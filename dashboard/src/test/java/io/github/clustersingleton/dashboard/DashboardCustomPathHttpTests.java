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

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the dashboard at a path of the user's, in an application with a servlet
 * context path, another Actuator base path and a path mapping of the endpoint.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "cluster-singleton.backend=in-memory", "cluster-singleton.owner-id=node-a",
				"management.endpoints.web.exposure.include=health,clustersingleton",
				"cluster-singleton.dashboard.path=/ops/jobs/", "cluster-singleton.dashboard.refresh-interval=2s",
				"server.servlet.context-path=/app", "management.endpoints.web.base-path=/manage",
				"management.endpoints.web.path-mapping.clustersingleton=singletons" })
class DashboardCustomPathHttpTests {

	@LocalServerPort
	private int port;

	private Http http;

	@BeforeEach
	void client() {
		this.http = new Http(this.port);
	}

	@Test
	void pageIsServedAtTheUsersPathAndFindsTheEndpoint() {
		HttpResponse<String> redirect = this.http.get("/app/ops/jobs");
		assertThat(redirect.statusCode()).isEqualTo(302);
		assertThat(redirect.headers().firstValue("Location")).hasValue("/app/ops/jobs/");
		HttpResponse<String> page = this.http.get("/app/ops/jobs/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(Http.pageConfig(page.body())).containsEntry("endpoint", "/app/manage/singletons")
			.containsEntry("refresh-millis", "2000");
		assertThat(this.http.get("/app/manage/singletons", "Accept", "application/json").body()).contains("\"report\"");
		assertThat(this.http.get("/app/ops/jobs/assets/dashboard.js").statusCode()).isEqualTo(200);
	}

	@Test
	void defaultPathIsFree() {
		assertThat(this.http.get("/app/cluster-singleton/").statusCode()).isEqualTo(404);
		assertThat(this.http.get("/app/cluster-singleton/assets/dashboard.js").statusCode()).isEqualTo(404);
	}

}
