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

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the dashboard of an application that does not expose the endpoint over HTTP:
 * the page says what to set.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "cluster-singleton.backend=in-memory", "management.endpoints.web.exposure.include=health" })
class DashboardEndpointNotExposedHttpTests {

	@LocalServerPort
	private int port;

	@Test
	void pageSaysHowToExposeTheEndpoint() {
		HttpResponse<String> page = new Http(this.port).get("/cluster-singleton/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(Http.pageConfig(page.body())).containsEntry("endpoint", "")
			.hasEntrySatisfying("endpoint-problem",
					(problem) -> assertThat(problem).contains("management.endpoints.web.exposure.include"));
	}

}
