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
import java.lang.reflect.Proxy;
import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.ClusterSingletonControlEvent;
import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.autoconfigure.LeaseBackendDecorator;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
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
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.Assert;

/**
 * Controls for the endpoint's web tests: a lease store's controls kept in memory next to
 * the real store, operations over them, a filter that authenticates the caller named in
 * the {@code X-Test-User} header, and a record of the control events.
 *
 * @author cluster-singleton contributors
 */
@TestConfiguration(proxyBeanMethods = false)
class ControlsTestConfiguration {

	@Bean
	MapJobControls mapJobControls() {
		return new MapJobControls();
	}

	@Bean
	LeaseBackendDecorator controlsDecorator(MapJobControls controls) {
		return (backend) -> (LeaseBackend) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("controls") && method.getParameterCount() == 0) {
						return Optional.of(controls);
					}
					try {
						return method.invoke(backend, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	@Bean
	MapOperations mapOperations(MapJobControls controls, JobRegistry registry) {
		return new MapOperations(controls, registry, "web-node", null);
	}

	@Bean
	Filter testUserFilter() {
		return new TestUserFilter();
	}

	@Bean
	ControlEvents controlEvents() {
		return new ControlEvents();
	}

	/**
	 * Controls kept in a map, as a store keeps them; {@link #failWith} makes every call
	 * fail as an unreachable store does.
	 */
	static class MapJobControls implements JobControls {

		private final Map<String, JobControl> controls = new ConcurrentHashMap<>();

		private final Map<String, List<ManualRun>> runs = new ConcurrentHashMap<>();

		private volatile @Nullable RuntimeException failure;

		void failWith(@Nullable RuntimeException failure) {
			this.failure = failure;
		}

		void clear() {
			this.controls.clear();
			this.runs.clear();
			this.failure = null;
		}

		private void check() {
			RuntimeException failure = this.failure;
			if (failure != null) {
				throw failure;
			}
		}

		@Override
		public Map<String, JobControl> read(Collection<String> jobNames) {
			check();
			Map<String, JobControl> read = new LinkedHashMap<>();
			for (String name : jobNames) {
				JobControl control = this.controls.getOrDefault(name, JobControl.none(name));
				List<ManualRun> pending = this.runs.getOrDefault(name, List.of())
					.stream()
					.filter((run) -> run.state() == ManualRun.State.PENDING)
					.toList();
				read.put(name, new JobControl(name, control.paused(), control.pausedBy(), control.pausedAt(),
						control.pauseReason(), control.cronOverride(), pending));
			}
			return read;
		}

		@Override
		public synchronized void pause(@Nullable String jobName, String pausedBy, @Nullable String reason) {
			check();
			Assert.notNull(jobName, "every job is paused one by one here");
			JobControl control = this.controls.getOrDefault(jobName, JobControl.none(jobName));
			this.controls.put(jobName,
					new JobControl(jobName, true, pausedBy, Instant.now(), reason, control.cronOverride(), List.of()));
		}

		@Override
		public synchronized void resume(@Nullable String jobName, boolean catchUp) {
			check();
			Assert.notNull(jobName, "every job is resumed one by one here");
			JobControl control = this.controls.getOrDefault(jobName, JobControl.none(jobName));
			this.controls.put(jobName,
					new JobControl(jobName, false, null, null, null, control.cronOverride(), List.of()));
		}

		@Override
		public synchronized void reschedule(String jobName, @Nullable String cron) {
			check();
			JobControl control = this.controls.getOrDefault(jobName, JobControl.none(jobName));
			this.controls.put(jobName, new JobControl(jobName, control.paused(), control.pausedBy(), control.pausedAt(),
					control.pauseReason(), cron, List.of()));
		}

		@Override
		public ManualRun requestRun(String jobName, String requestedBy) {
			check();
			ManualRun run = new ManualRun(UUID.randomUUID().toString(), jobName, requestedBy, Instant.now(),
					ManualRun.State.PENDING, null, 0, null, null);
			this.runs.computeIfAbsent(jobName, (name) -> new CopyOnWriteArrayList<>()).add(run);
			return run;
		}

		@Override
		public boolean startManualRun(String jobName, String requestId, String owner, long fencingToken) {
			throw new UnsupportedOperationException("not used by the endpoint");
		}

		@Override
		public void finishManualRun(String jobName, String requestId, ManualRun.State state, @Nullable String error) {
			throw new UnsupportedOperationException("not used by the endpoint");
		}

		@Override
		public Optional<ManualRun> manualRun(String jobName, String requestId) {
			check();
			return this.runs.getOrDefault(jobName, List.of())
				.stream()
				.filter((run) -> run.id().equals(requestId))
				.findFirst();
		}

		@Override
		public List<ManualRun> manualRuns(String jobName, int limit) {
			check();
			List<ManualRun> runs = new ArrayList<>(this.runs.getOrDefault(jobName, List.of()));
			runs.sort(Comparator.comparing(ManualRun::requestedAt).reversed());
			return runs.stream().limit(limit).toList();
		}

	}

	/**
	 * Operations over {@link MapJobControls}, checking their input as the contract of
	 * {@link ClusterSingletonOperations} asks; {@link #unsupported} makes them refuse as
	 * a store without controls does.
	 */
	static final class MapOperations implements ClusterSingletonOperations {

		private final MapJobControls controls;

		private final JobRegistry registry;

		private final String node;

		private final @Nullable String principal;

		private volatile boolean unsupported;

		MapOperations(MapJobControls controls, JobRegistry registry, String node, @Nullable String principal) {
			this.controls = controls;
			this.registry = registry;
			this.node = node;
			this.principal = principal;
		}

		void unsupported(boolean unsupported) {
			this.unsupported = unsupported;
		}

		private String who() {
			return (this.principal != null) ? this.principal : this.node;
		}

		private JobDefinition job(String job) {
			if (this.unsupported) {
				throw new UnsupportedOperationException("The test store keeps no controls");
			}
			return this.registry.forName(job)
				.orElseThrow(() -> new IllegalArgumentException("No cluster-singleton job named '" + job + "'"));
		}

		@Override
		public ClusterSingletonOperations withPrincipal(@Nullable String principal) {
			MapOperations operations = new MapOperations(this.controls, this.registry, this.node, principal);
			operations.unsupported = this.unsupported;
			return operations;
		}

		@Override
		public void pause(String job, @Nullable String reason) {
			job(job);
			this.controls.pause(job, who(), reason);
		}

		@Override
		public void resume(String job, boolean catchUp) {
			job(job);
			this.controls.resume(job, catchUp);
		}

		@Override
		public void pauseAll(@Nullable String reason) {
			// check the store first: nothing half-applied
			this.controls.read(this.registry.names());
			for (String job : this.registry.names()) {
				pause(job, reason);
			}
		}

		@Override
		public void resumeAll(boolean catchUp) {
			this.controls.read(this.registry.names());
			for (String job : this.registry.names()) {
				resume(job, catchUp);
			}
		}

		@Override
		public String runNow(String job) {
			job(job);
			return this.controls.requestRun(job, who()).id();
		}

		@Override
		public Optional<ManualRun> manualRun(String job, String requestId) {
			job(job);
			return this.controls.manualRun(job, requestId);
		}

		@Override
		public void reschedule(String job, String cron) {
			JobDefinition definition = job(job);
			if (definition.schedule() == null) {
				throw new IllegalArgumentException(
						"Cannot reschedule job '" + job + "': it is not scheduled by a cron expression");
			}
			try {
				CronExpression.parse(cron);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						"Invalid cron expression '" + cron + "' for job '" + job + "': " + ex.getMessage(), ex);
			}
			this.controls.reschedule(job, cron);
		}

		@Override
		public void clearSchedule(String job) {
			job(job);
			this.controls.reschedule(job, null);
		}

		@Override
		public JobControl controls(String job) {
			job(job);
			return this.controls.read(List.of(job)).get(job);
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
