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
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium, driven through Debian's chromedriver: nothing is
 * downloaded. Without them, a test that needs a browser is skipped, saying so, in the
 * default build, and fails in the full profile.
 *
 * @author cluster-singleton contributors
 */
final class Chromium implements AutoCloseable {

	static final Path BINARY = Path.of(System.getProperty("dashboard.chromium", "/usr/bin/chromium"));

	static final Path DRIVER = Path.of(System.getProperty("dashboard.chromedriver", "/usr/bin/chromedriver"));

	/**
	 * System property naming the folder the screenshots are written to, relative to the
	 * project's root; no screenshots when not set.
	 */
	static final String SCREENSHOTS = "dashboard.screenshots";

	private final ChromeDriver driver;

	private final WebDriverWait wait;

	private Chromium(ChromeDriver driver) {
		this.driver = driver;
		this.wait = new WebDriverWait(driver, Duration.ofSeconds(45));
	}

	/**
	 * Skip the calling test (default build) or fail it (full profile) when Chromium or
	 * its driver is not installed.
	 */
	static void assumeInstalled() {
		if (Files.isExecutable(BINARY) && Files.isExecutable(DRIVER)) {
			return;
		}
		String message = "No Chromium at " + BINARY + " with chromedriver at " + DRIVER
				+ " (Debian packages chromium and chromium-driver): the dashboard is tested over HTTP only";
		if (Boolean.getBoolean("cluster-singleton.test.full")) {
			Assertions.fail(message + "; the full profile needs the browser (.ci/run installs it)");
		}
		System.err.println("SKIPPED: " + message);
		Assumptions.abort(message);
	}

	static Chromium start() {
		assumeInstalled();
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions();
		options.setBinary(BINARY.toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
				"--window-size=1280,1200", "--lang=en-US", "--no-first-run", "--disable-extensions",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-default-apps");
		return new Chromium(new ChromeDriver(service, options));
	}

	ChromeDriver driver() {
		return this.driver;
	}

	void open(String url) {
		this.driver.get(url);
	}

	WebElement await(String css) {
		try {
			return this.wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
		}
		catch (TimeoutException ex) {
			throw explained(ex);
		}
	}

	void awaitPresent(String css) {
		try {
			this.wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(css)));
		}
		catch (TimeoutException ex) {
			throw explained(ex);
		}
	}

	/**
	 * Add what the page said to a failed wait: its message and problem lines.
	 */
	private AssertionError explained(TimeoutException ex) {
		Object said = this.driver.executeScript("var m = document.getElementById('message'),"
				+ " p = document.getElementById('problem'); return 'url: ' + location.href + ', message: '"
				+ " + (m ? m.textContent : '-') + ', problem: ' + (p ? p.textContent : '-')");
		return new AssertionError(ex.getMessage().lines().findFirst().orElse("") + " (page: " + said + ")", ex);
	}

	/**
	 * Return the text of an element, read in one step in the page: the page renders parts
	 * of itself anew at every refresh.
	 * @param css the element
	 * @return its text content
	 */
	String text(String css) {
		try {
			return this.wait.until((driver) -> (String) this.driver
				.executeScript("var e = document.querySelector(arguments[0]); return e ? e.textContent : null", css));
		}
		catch (TimeoutException ex) {
			throw explained(ex);
		}
	}

	List<WebElement> all(String css) {
		return this.driver.findElements(By.cssSelector(css));
	}

	void click(String css) {
		this.wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector(css))).click();
	}

	/**
	 * Render the page as the operating system's light or dark setting asks.
	 * @param scheme {@code light} or {@code dark}
	 */
	void colorScheme(String scheme) {
		this.driver.executeCdpCommand("Emulation.setEmulatedMedia",
				Map.of("features", List.of(Map.of("name", "prefers-color-scheme", "value", scheme))));
	}

	/**
	 * Write a screenshot of the whole page when {@value #SCREENSHOTS} is set.
	 * @param name the file name
	 * @return the file written, or {@code null}
	 */
	@Nullable Path screenshot(String name) {
		String folder = System.getProperty(SCREENSHOTS, "");
		if (folder.isBlank()) {
			return null;
		}
		Object height = this.driver.executeScript("return document.documentElement.scrollHeight");
		this.driver.manage().window().setSize(new Dimension(1280, Math.min(3000, ((Number) height).intValue() + 20)));
		Path file = projectRoot().resolve(folder).resolve(name);
		try {
			Files.createDirectories(file.getParent());
			Files.write(file, this.driver.getScreenshotAs(OutputType.BYTES));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.driver.manage().window().setSize(new Dimension(1280, 1200));
		return file;
	}

	private static Path projectRoot() {
		Path dir = Path.of("").toAbsolutePath();
		for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
			if (Files.isRegularFile(candidate.resolve("mvnw")) && Files.isDirectory(candidate.resolve("dashboard"))) {
				return candidate;
			}
		}
		return dir;
	}

	@Override
	public void close() {
		this.driver.quit();
	}

}
