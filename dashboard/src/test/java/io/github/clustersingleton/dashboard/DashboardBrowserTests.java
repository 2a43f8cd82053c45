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

import io.github.clustersingleton.ClusterSingletonOperations;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the dashboard in a real browser (headless Chromium): the page reads the jobs
 * back, and its buttons pause a job and run one now, as the operations read back.
 *
 * @author cluster-singleton contributors
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "cluster-singleton.backend=in-memory", "cluster-singleton.owner-id=node-a",
				"cluster-singleton.lease-ttl=3s", "cluster-singleton.dashboard.refresh-interval=1s",
				"management.endpoints.web.exposure.include=health,clustersingleton",
				"management.endpoint.clustersingleton.access=unrestricted" })
class DashboardBrowserTests {

	private static Chromium chromium;

	@LocalServerPort
	private int port;

	@Autowired
	private ObjectProvider<ClusterSingletonOperations> operations;

	@BeforeAll
	static void startBrowser() {
		chromium = Chromium.start();
	}

	@AfterAll
	static void stopBrowser() {
		if (chromium != null) {
			chromium.close();
		}
	}

	@Test
	void pageShowsEveryJobAndItsRunsAndOffersTheControls() {
		chromium.open("http://localhost:" + this.port + "/cluster-singleton");
		chromium.awaitPresent("body[data-loaded='true']");
		assertThat(chromium.text("article[data-job='report'] h3")).isEqualTo("report");
		assertThat(chromium.text("article[data-job='cleanup'] h3")).isEqualTo("cleanup");
		assertThat(chromium.text("#summary [data-field='owner']")).isEqualTo("node-a");
		assertThat(chromium.text("article[data-job='cleanup'] [data-field='schedule']")).contains("0 0 3 * * *");
		// writes are allowed: the probe said so, and the buttons are there
		chromium.awaitPresent("body[data-writes='true']");
		assertThat(chromium.text("#access")).isEqualTo("controls enabled");
		assertThat(chromium.await("article[data-job='report'] button[data-action='pause']").getAttribute("aria-label"))
			.isEqualTo("Pause report");
		// report runs every 2 s: its runs appear in its table and on the timeline
		chromium.await("article[data-job='report'] tr[data-trigger='scheduled'][data-outcome='succeeded']");
		chromium.awaitPresent("#timeline svg rect[data-job='report']");
	}

	@Test
	void pauseAndRunNowThroughThePage() {
		ClusterSingletonOperations operations = this.operations.getObject();
		chromium.open("http://localhost:" + this.port + "/cluster-singleton/");
		chromium.awaitPresent("body[data-loaded='true']");
		chromium.await("article[data-job='report'] input[name='reason']").sendKeys("browser test");
		chromium.click("article[data-job='report'] button[data-action='pause']");
		chromium.awaitPresent("article[data-job='report'][data-state='paused']");
		assertThat(chromium.text("article[data-job='report'] [data-field='state']")).isEqualTo("paused");
		assertThat(chromium.text("article[data-job='report'] [data-field='paused-by']")).contains("browser test");
		assertThat(operations.controls("report").paused()).isTrue();
		assertThat(operations.controls("report").pauseReason()).isEqualTo("browser test");
		assertThat(operations.controls("cleanup").paused()).isFalse();
		// the resume button takes the pause button's place
		chromium.await("article[data-job='report'] button[data-action='resume']");
		assertThat(chromium.all("article[data-job='report'] button[data-action='pause']"))
			.allSatisfy((button) -> assertThat(button.isDisplayed()).isFalse());

		chromium.click("article[data-job='cleanup'] button[data-action='run']");
		chromium.await("article[data-job='cleanup'] tr[data-trigger='manual'][data-outcome='succeeded']");
		await().untilAsserted(() -> assertThat(operations.controls("cleanup").pendingRuns()).isEmpty());

		chromium.colorScheme("light");
		chromium.screenshot("dashboard-light.png");
		chromium.colorScheme("dark");
		chromium.screenshot("dashboard-dark.png");
		chromium.colorScheme("light");

		chromium.click("article[data-job='report'] button[data-action='resume']");
		chromium.awaitPresent("article[data-job='report']:not([data-state='paused'])");
		assertThat(operations.controls("report").paused()).isFalse();
	}

}
