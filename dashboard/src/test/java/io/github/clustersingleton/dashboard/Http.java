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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A small HTTP client for the tests: plain requests, as a browser without JavaScript or
 * the page's script would send them.
 *
 * @author cluster-singleton contributors
 */
final class Http {

	private final HttpClient client = HttpClient.newBuilder()
		.followRedirects(HttpClient.Redirect.NEVER)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final String base;

	Http(int port) {
		this.base = "http://localhost:" + port;
	}

	HttpResponse<String> get(String path, String... headers) {
		return send(request(path, headers).GET().build());
	}

	HttpResponse<String> send(String method, String path, @Nullable String json, String... headers) {
		HttpRequest.Builder request = request(path, headers);
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		return send(request.method(method, (json != null) ? BodyPublishers.ofString(json) : BodyPublishers.noBody())
			.build());
	}

	private HttpRequest.Builder request(String path, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(Duration.ofSeconds(60));
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return request;
	}

	private HttpResponse<String> send(HttpRequest request) {
		try {
			return this.client.send(request, BodyHandlers.ofString(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static String basic(String user, String password) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Return the data attributes the server wrote into the page's body.
	 * @param html the page
	 * @return the attributes by name, without {@code data-}
	 */
	static Map<String, String> pageConfig(String html) {
		Matcher body = Pattern.compile("<body([^>]*)>").matcher(html);
		if (!body.find()) {
			throw new AssertionError("No <body> in " + html);
		}
		Map<String, String> config = new java.util.LinkedHashMap<>();
		Matcher attribute = Pattern.compile("data-([a-z-]+)=\"([^\"]*)\"").matcher(body.group(1));
		while (attribute.find()) {
			config.put(attribute.group(1), attribute.group(2));
		}
		return config;
	}

}
