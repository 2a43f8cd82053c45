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

import io.github.clustersingleton.dashboard.DashboardPage.EndpointLocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the cluster-singleton dashboard:
 * a page at {@code cluster-singleton.dashboard.path} (default {@code /cluster-singleton})
 * of a Spring MVC application, which reads and writes through the
 * {@code clustersingleton} Actuator endpoint, so that the endpoint's access rules (and an
 * application's security rules for it) hold for the page too.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass({ RouterFunction.class, DispatcherServletPath.class, PathMappedEndpoints.class })
@ConditionalOnBooleanProperty(name = "cluster-singleton.dashboard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ClusterSingletonDashboardProperties.class)
@ImportRuntimeHints(ClusterSingletonDashboardAutoConfiguration.DashboardResourcesHints.class)
public final class ClusterSingletonDashboardAutoConfiguration {

	private static final EndpointId ENDPOINT = EndpointId.of("clustersingleton");

	@Bean
	RouterFunction<ServerResponse> clusterSingletonDashboardRoutes(ClusterSingletonDashboardProperties properties,
			ObjectProvider<PathMappedEndpoints> endpoints, ObjectProvider<DispatcherServletPath> servletPath,
			Environment environment) {
		String path = pagePath(properties.getPath());
		DashboardPage page = new DashboardPage(() -> locate(endpoints, servletPath, environment),
				properties.getRefreshInterval().toMillis());
		RouterFunctions.Builder routes = RouterFunctions.route().GET(path + "/", page::render);
		if (!path.isEmpty()) {
			// the page's links to its assets are relative to path + "/"
			routes.GET(path, (request) -> ServerResponse.status(HttpStatus.FOUND)
				.header(HttpHeaders.LOCATION,
						request.servletRequest().getContextPath() + prefix(servletPath.getIfAvailable()) + path + "/")
				.build());
		}
		return routes
			.resources(path + "/assets/**",
					new ClassPathResource(DashboardPage.LOCATION + "assets/",
							ClusterSingletonDashboardAutoConfiguration.class.getClassLoader()))
			.build();
	}

	private static EndpointLocation locate(ObjectProvider<PathMappedEndpoints> endpoints,
			ObjectProvider<DispatcherServletPath> servletPath, Environment environment) {
		if (ManagementPortType.get(environment) == ManagementPortType.DIFFERENT) {
			return new EndpointLocation(null,
					"The Actuator endpoints are served on another port (management.server.port), "
							+ "which this page cannot reach: serve them on the application's port to use the dashboard.");
		}
		PathMappedEndpoints mapped = endpoints.getIfAvailable();
		String path = (mapped != null) ? mapped.getPath(ENDPOINT) : null;
		if (path == null) {
			return new EndpointLocation(null, "The clustersingleton endpoint is not exposed over HTTP: "
					+ "add it to management.endpoints.web.exposure.include.");
		}
		return new EndpointLocation(prefix(servletPath.getIfAvailable()) + path, null);
	}

	private static String prefix(@Nullable DispatcherServletPath servletPath) {
		return (servletPath != null) ? servletPath.getPrefix() : "";
	}

	/**
	 * Return the page's path as routes use it: {@code ""} for the root, else starting
	 * with {@code /} and without a trailing {@code /}.
	 * @param path the configured path
	 * @return the normalized path
	 */
	static String pagePath(@Nullable String path) {
		String trimmed = (path != null) ? path.trim() : "";
		if (!trimmed.startsWith("/") || trimmed.contains("*") || trimmed.contains("{") || trimmed.contains("?")
				|| trimmed.contains("//")) {
			throw new IllegalArgumentException("Invalid cluster-singleton.dashboard.path '" + path
					+ "': it must start with '/', and hold no '*', '?', '{' or '//'");
		}
		while (trimmed.endsWith("/")) {
			trimmed = trimmed.substring(0, trimmed.length() - 1);
		}
		return trimmed;
	}

	/**
	 * The page and its assets, for a native image.
	 */
	static final class DashboardResourcesHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			hints.resources().registerPattern(DashboardPage.LOCATION + "*");
			hints.resources().registerPattern(DashboardPage.LOCATION + "assets/*");
		}

	}

}
