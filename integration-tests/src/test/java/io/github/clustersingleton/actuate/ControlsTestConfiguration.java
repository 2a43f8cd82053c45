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

package io.github.clustersingleton.actuate;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.security.Principal;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.ClusterSingletonControlEvent;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.autoconfigure.LeaseBackendDecorator;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

/**
 * For the endpoint's control tests: faults of the lease store's controls (unreachable, or
 * no controls at all) injected around the real store, a filter that authenticates the
 * caller named in the {@code X-Test-User} header, and a record of the control events.
 *
 * @author cluster-singleton contributors
 */
@TestConfiguration(proxyBeanMethods = false)
class ControlsTestConfiguration {

	@Bean
	ControlFaults controlFaults() {
		return new ControlFaults();
	}

	@Bean
	LeaseBackendDecorator controlFaultsDecorator(ControlFaults faults) {
		return (backend) -> proxy(LeaseBackend.class, backend, (method) -> {
			if (method.getName().equals("controls") && method.getParameterCount() == 0) {
				if (faults.unsupported) {
					return Optional.empty();
				}
				Optional<JobControls> controls = backend.controls();
				return controls.map((real) -> proxy(JobControls.class, real, (controlsMethod) -> {
					RuntimeException failure = faults.failure;
					if (failure != null) {
						throw failure;
					}
					return null;
				}));
			}
			return null;
		});
	}

	/**
	 * A proxy that forwards every call to {@code target} unless {@code interception}
	 * returns a value for it.
	 */
	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, T target, Interception interception) {
		return (T) Proxy.newProxyInstance(ControlsTestConfiguration.class.getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> {
					Object result = interception.call(method);
					if (result != null) {
						return result;
					}
					try {
						return method.invoke(target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	@Bean
	Filter testUserFilter() {
		return new TestUserFilter();
	}

	@Bean
	ControlEvents controlEvents() {
		return new ControlEvents();
	}

	@FunctionalInterface
	private interface Interception {

		@Nullable Object call(Method method);

	}

	/**
	 * The faults to inject: every call to the controls fails with {@link #failure} as an
	 * unreachable store's does, or the store keeps no controls ({@link #unsupported}).
	 */
	static final class ControlFaults {

		volatile @Nullable RuntimeException failure;

		volatile boolean unsupported;

		void clear() {
			this.failure = null;
			this.unsupported = false;
		}

	}

	/**
	 * Authenticates the caller named in the {@code X-Test-User} header, as a security
	 * filter would.
	 */
	static final class TestUserFilter implements Filter {

		@Override
		public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
				throws IOException, ServletException {
			HttpServletRequest http = (HttpServletRequest) request;
			String user = http.getHeader("X-Test-User");
			if (user == null) {
				chain.doFilter(request, response);
				return;
			}
			Principal principal = () -> user;
			chain.doFilter(new HttpServletRequestWrapper(http) {

				@Override
				public Principal getUserPrincipal() {
					return principal;
				}

				@Override
				public String getRemoteUser() {
					return user;
				}

			}, response);
		}

	}

	/**
	 * The control events published, in order.
	 */
	static final class ControlEvents implements ApplicationListener<ClusterSingletonControlEvent> {

		private final List<ClusterSingletonControlEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(ClusterSingletonControlEvent event) {
			this.events.add(event);
		}

		List<ClusterSingletonControlEvent> events() {
			return this.events;
		}

	}

}
