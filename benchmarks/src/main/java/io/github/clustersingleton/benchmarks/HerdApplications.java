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

package io.github.clustersingleton.benchmarks;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The herd's nodes as applications: each node is a Spring Boot application context whose
 * jobs are {@code @Scheduled} methods of one bean, guarded with {@code @ClusterSingleton}
 * (or ShedLock's {@code @SchedulerLock}), so that a trigger goes through the same path as
 * in an application: Spring's scheduler and cron trigger, the bean post-processor's
 * interceptor, the auto-configured engine. The bean's class is written and compiled when
 * the benchmark starts, with one method per job.
 *
 * @author cluster-singleton contributors
 */
final class HerdApplications {

	private static final String PACKAGE = HerdApplications.class.getPackageName();

	private static final Map<String, Class<?>> JOB_CLASSES = new ConcurrentHashMap<>();

	private HerdApplications() {
	}

	/**
	 * Start one node.
	 * @param node the node's index
	 * @param jobCount how many jobs the node schedules
	 * @param period the jobs' cron period, whole seconds that divide a minute
	 * @param contender {@code ours}, {@code unrouted}, {@code leader} or {@code shedlock}
	 * @param owner the node's owner id
	 * @param leaderLease the leader lease's name, for leader mode
	 * @param threads the scheduler's threads
	 * @param backend the node's counting lease backend (not for ShedLock)
	 * @param lockProvider the node's counting lock provider (ShedLock only)
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(int node, int jobCount, Duration period, String contender, String owner,
			String leaderLease, int threads, LeaseBackend backend, LockProvider lockProvider) {
		boolean shedlock = "shedlock".equals(contender);
		Class<?> jobs = jobClass(jobCount, period, shedlock);
		List<String> properties = new ArrayList<>(List.of("spring.task.scheduling.pool.size=" + threads,
				"spring.task.scheduling.thread-name-prefix=herd-scheduler-" + node + "-",
				"cluster-singleton.owner-id=" + owner));
		if ("leader".equals(contender)) {
			properties.add("cluster-singleton.leader.enabled=true");
			properties.add("cluster-singleton.leader.lease-name=" + leaderLease);
		}
		if ("unrouted".equals(contender)) {
			properties.add("cluster-singleton.preferred-node.enabled=false");
		}
		// logging stays as the benchmark set it (SLF4J's no-op binding)
		System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
		return new SpringApplicationBuilder(shedlock ? ShedLockNode.class : ClusterSingletonNode.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.registerShutdownHook(false)
			.properties(properties.toArray(String[]::new))
			.initializers((context) -> {
				GenericApplicationContext generic = (GenericApplicationContext) context;
				if (shedlock) {
					generic.registerBean(LockProvider.class, () -> lockProvider);
				}
				else {
					generic.registerBean(LeaseBackend.class, () -> backend);
				}
				generic.registerBean("herdJobs", Object.class, () -> newJobs(jobs, node));
			})
			.run();
	}

	private static Object newJobs(Class<?> jobs, int node) {
		try {
			return jobs.getConstructor(int.class).newInstance(node);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Return the class of a node's jobs: {@code jobCount} methods {@code job0} ..., each
	 * {@code @Scheduled} with the period's cron in UTC and guarded under the name
	 * {@code herd-job-<i>}; each calls {@link HerdRuns#ran} with its node and index.
	 */
	private static Class<?> jobClass(int jobCount, Duration period, boolean shedlock) {
		String name = "HerdJobs" + (shedlock ? "ShedLock" : "") + jobCount + "Every" + period.toSeconds();
		return JOB_CLASSES.computeIfAbsent(name, (key) -> compile(key, source(key, jobCount, period, shedlock)));
	}

	private static String source(String name, int jobCount, Duration period, boolean shedlock) {
		StringBuilder source = new StringBuilder();
		source.append("package ").append(PACKAGE).append(";\n\n");
		source.append("public class ").append(name).append(" {\n\n");
		source.append("\tprivate final int node;\n\n");
		source.append("\tpublic ").append(name).append("(int node) {\n\t\tthis.node = node;\n\t}\n");
		String cron = "*/" + period.toSeconds() + " * * * * *";
		for (int j = 0; j < jobCount; j++) {
			source.append("\n\t@org.springframework.scheduling.annotation.Scheduled(cron = \"")
				.append(cron)
				.append("\", zone = \"UTC\")\n");
			if (shedlock) {
				source.append("\t@net.javacrumbs.shedlock.spring.annotation.SchedulerLock(name = \"herd-job-")
					.append(j)
					.append("\", lockAtMostFor = \"PT30M\", lockAtLeastFor = \"PT5S\")\n");
			}
			else {
				source.append("\t@io.github.clustersingleton.ClusterSingleton(name = \"herd-job-")
					.append(j)
					.append("\")\n");
			}
			source.append("\tpublic void job")
				.append(j)
				.append("() {\n\t\tHerdRuns.ran(this.node, ")
				.append(j)
				.append(");\n\t}\n");
		}
		source.append("\n}\n");
		return source.toString();
	}

	/**
	 * Compile a class of this package and define it with this class's lookup, so that it
	 * lives in the benchmark's class loader like any other bean class.
	 */
	private static Class<?> compile(String name, String source) {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		if (compiler == null) {
			throw new IllegalStateException("The herd compiles its job classes: run it on a JDK, not a JRE");
		}
		try {
			Path directory = Files.createTempDirectory("herd-jobs");
			Path file = directory.resolve(name + ".java");
			Files.writeString(file, source, StandardCharsets.UTF_8);
			int status = compiler.run(null, null, null, "-proc:none", "-nowarn", "-classpath",
					System.getProperty("java.class.path"), "-d", directory.toString(), file.toString());
			if (status != 0) {
				throw new IllegalStateException("Could not compile the herd's job class " + name);
			}
			Path compiled = directory.resolve(PACKAGE.replace('.', '/')).resolve(name + ".class");
			return MethodHandles.lookup().defineClass(Files.readAllBytes(compiled));
		}
		catch (IOException | IllegalAccessException ex) {
			throw new IllegalStateException("Could not compile the herd's job class " + name, ex);
		}
	}

	/**
	 * A lock provider that counts its node's lock attempts and unlocks.
	 */
	static LockProvider counting(LockProvider delegate, AtomicLong acquires, AtomicLong releases) {
		return (configuration) -> {
			acquires.incrementAndGet();
			Optional<SimpleLock> lock = delegate.lock(configuration);
			return lock.map((held) -> new CountingLock(held, releases));
		};
	}

	private record CountingLock(SimpleLock lock, AtomicLong releases) implements SimpleLock {

		@Override
		public void unlock() {
			this.releases.incrementAndGet();
			this.lock.unlock();
		}

		@Override
		public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
			return this.lock.extend(lockAtMostFor, lockAtLeastFor);
		}

	}

	/**
	 * A node guarded by cluster-singleton: Spring's scheduling and the starter's
	 * auto-configuration, with the node's backend as the application's
	 * {@link LeaseBackend} bean.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ TaskSchedulingAutoConfiguration.class, ClusterSingletonAutoConfiguration.class })
	static class ClusterSingletonNode {

	}

	/**
	 * A node guarded by ShedLock: Spring's scheduling and ShedLock's Spring integration,
	 * with the node's lock provider.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "PT30M")
	@ImportAutoConfiguration(TaskSchedulingAutoConfiguration.class)
	static class ShedLockNode {

	}

}
