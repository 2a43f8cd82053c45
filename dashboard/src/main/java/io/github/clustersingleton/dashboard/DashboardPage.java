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
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.util.ClassUtils;
import org.springframework.util.StreamUtils;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * Serves the dashboard's HTML page, with what its script needs to know written into the
 * page: where the {@code clustersingleton} endpoint is, how often to read it, and the
 * CSRF token when Spring Security issues one.
 *
 * @author cluster-singleton contributors
 */
final class DashboardPage {

	/**
	 * Where the page and its assets are on the classpath.
	 */
	static final String LOCATION = "META-INF/cluster-singleton-dashboard/";

	/**
	 * Only the page's own origin: no script, style, font or image from anywhere else, and
	 * the endpoint is read on the same origin.
	 */
	static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

	private static final boolean CSRF_PRESENT = ClassUtils.isPresent("org.springframework.security.web.csrf.CsrfToken",
			DashboardPage.class.getClassLoader());

	private final String template;

	private final Supplier<EndpointLocation> endpoint;

	private final long refreshMillis;

	/**
	 * Create the page.
	 * @param endpoint where the endpoint is, relative to the servlet context, or why the
	 * page cannot reach it; asked on every request
	 * @param refreshMillis how often the page reads the endpoint again
	 */
	DashboardPage(Supplier<EndpointLocation> endpoint, long refreshMillis) {
		this.template = load(LOCATION + "index.html");
		this.endpoint = endpoint;
		this.refreshMillis = refreshMillis;
	}

	ServerResponse render(ServerRequest request) {
		HttpServletRequest servletRequest = request.servletRequest();
		EndpointLocation location = this.endpoint.get();
		String endpointUrl = (location.path() != null) ? servletRequest.getContextPath() + location.path() : "";
		String csrfHeader = "";
		String csrfToken = "";
		if (CSRF_PRESENT) {
			String[] csrf = Csrf.read(servletRequest);
			if (csrf != null) {
				csrfHeader = csrf[0];
				csrfToken = csrf[1];
			}
		}
		String html = this.template.replace("{{endpoint}}", escape(endpointUrl))
			.replace("{{endpointProblem}}", escape((location.problem() != null) ? location.problem() : ""))
			.replace("{{refreshMillis}}", Long.toString(this.refreshMillis))
			.replace("{{csrfHeader}}", escape(csrfHeader))
			.replace("{{csrfToken}}", escape(csrfToken));
		return ServerResponse.ok()
			.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.cacheControl(CacheControl.noStore())
			.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
			.header("X-Content-Type-Options", "nosniff")
			.header("Referrer-Policy", "no-referrer")
			.body(html);
	}

	private static String escape(String value) {
		return HtmlUtils.htmlEscape(value, StandardCharsets.UTF_8.name());
	}

	private static String load(String location) {
		try (InputStream in = new ClassPathResource(location, DashboardPage.class.getClassLoader()).getInputStream()) {
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cluster-singleton's dashboard page is missing from the classpath ("
					+ location + "): is cluster-singleton-dashboard's jar complete?", ex);
		}
	}

	/**
	 * Where the page finds the endpoint.
	 *
	 * @param path the endpoint's path below the servlet context, {@code null} when the
	 * page cannot reach it
	 * @param problem why the page cannot reach it, {@code null} when it can
	 */
	record EndpointLocation(@Nullable String path, @Nullable String problem) {

	}

	/**
	 * Reads Spring Security's CSRF token of the request, only loaded when Spring Security
	 * is on the classpath.
	 */
	private static final class Csrf {

		static String @Nullable [] read(HttpServletRequest request) {
			if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
				return new String[] { token.getHeaderName(), token.getToken() };
			}
			return null;
		}

	}

}
