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

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.aop.JobDefaults;
import io.github.clustersingleton.aop.JobDefinitionFactory;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ReactiveRun;
import io.github.clustersingleton.lease.ClusterSingletonListener;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.PreparedInvocation;

import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodIntrospector.MetadataLookup;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.ReflectionUtils;

/**
 * Retained heap per registered job and per held lease. Jobs are the methods of one
 * generated class, each annotated {@code @ClusterSingleton @Scheduled(cron = ..., zone =
 * "UTC")}; they are registered as the bean post-processor and the startup do it
 * ({@code MethodIntrospector} with the merged annotation, {@link JobDefinitionFactory},
 * {@link JobRegistry#register}, {@link JobRegistry#registerTarget} and
 * {@link ClusterSingletonExecutor#registerJob}). Leases are held through
 * {@link ClusterSingletonExecutor#startReactive}, which keeps a lease renewed without a
 * thread per run, against a store that keeps nothing (so only the engine's objects are
 * counted). The heap is read with {@code MemoryMXBean} after forced full collections
 * until two readings agree; {@code jcmd <pid> GC.class_histogram} diffs name the classes.
 *
 * @author cluster-singleton contributors
 */
public final class HeapCost {

	private static final int JOBS = 10_000;

	private static final String CRON = "0 */5 * * * *";

	private HeapCost() {
	}

	/**
	 * Measure and write {@code heap.txt} into a directory.
	 * @param args the directory, default {@code docs/benchmarks}
	 * @throws Exception on failure
	 */
	public static void main(String[] args) throws Exception {
		Path directory = Path.of((args.length > 0) ? args[0] : "docs/benchmarks");
		String report = measure();
		System.out.println(report);
		Files.createDirectories(directory);
		Files.writeString(directory.resolve("heap.txt"), report, StandardCharsets.UTF_8);
	}

	/**
	 * Measure the heap per job and per held lease.
	 * @return the report, as text
	 * @throws Exception on failure
	 */
	static String measure() throws Exception {
		Class<?> jobsClass = generateJobsClass(JOBS);
		Object bean = jobsClass.getDeclaredConstructor().newInstance();
		// what the application's classes cost anyway: the Method objects and their
		// parsed annotations, cached by the JDK on the class
		for (Method method : jobsClass.getDeclaredMethods()) {
			AnnotatedElementUtils.findMergedAnnotation(method, ClusterSingleton.class);
			AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class, Schedules.class);
		}
		clearSpringCaches();
		Duration ttl = Duration.ofSeconds(30);
		ClusterSingletonExecutor executor = new ClusterSingletonExecutor(new NoStore(),
				new ClusterSingletonExecutor.Settings("cost-node", ttl, Duration.ofSeconds(1), true), Clock.systemUTC(),
				new ClusterSingletonListener() {
				});
		JobRegistry registry = new JobRegistry();
		JobDefinitionFactory factory = new JobDefinitionFactory((value) -> value,
				new JobDefaults(Duration.ofMinutes(10), Duration.ZERO, ttl, (name) -> null));
		// warm the code paths once on a class of its own, so that first-use caches and
		// static state are in the baseline
		Class<?> warmUpClass = generateJobsClass(2);
		Object warmUpBean = warmUpClass.getDeclaredConstructor().newInstance();
		JobRegistry warmUpRegistry = new JobRegistry();
		register(warmUpClass, warmUpBean, factory, warmUpRegistry, executor, 0, 2);
		for (JobDefinition job : warmUpRegistry.jobs()) {
			ReactiveRun run = executor.startReactive(job, null, RunTrigger.SCHEDULED);
			if (run != null) {
				run.finish(null);
			}
		}
		StringBuilder report = new StringBuilder();
		report.append(String.format(Locale.ROOT,
				"Heap per registered job and per held lease, %,d of each (JDK %s, %s, max heap %d MiB).%n"
						+ "Method: MemoryMXBean heap used after System.gc() repeated until two readings 100 ms apart "
						+ "differ by < 8 KiB; classes from jcmd GC.class_histogram diffs (live objects).%n%n",
				JOBS, System.getProperty("java.version"), ManagementFactory.getRuntimeMXBean().getVmName(),
				Runtime.getRuntime().maxMemory() >> 20));
		long base = settledHeap();
		Map<String, long[]> histogramBase = histogram();
		register(jobsClass, bean, factory, registry, executor, 0, JOBS / 2);
		clearSpringCaches();
		long halfJobs = settledHeap();
		register(jobsClass, bean, factory, registry, executor, JOBS / 2, JOBS);
		clearSpringCaches();
		long allJobs = settledHeap();
		Map<String, long[]> histogramJobs = histogram();
		if (registry.jobs().size() != JOBS || executor.registeredJobs().size() != JOBS + 2) {
			throw new IllegalStateException("Registered " + registry.jobs().size() + " jobs, the executor "
					+ executor.registeredJobs().size() + ", expected " + JOBS);
		}
		List<JobDefinition> jobs = registry.jobs();
		List<ReactiveRun> runs = new ArrayList<>(JOBS);
		hold(executor, jobs.subList(0, JOBS / 2), runs);
		long halfLeases = settledHeap();
		hold(executor, jobs.subList(JOBS / 2, JOBS), runs);
		long allLeases = settledHeap();
		Map<String, long[]> histogramLeases = histogram();
		if (executor.heldLeases() != JOBS) {
			throw new IllegalStateException("Holding " + executor.heldLeases() + " leases, expected " + JOBS);
		}
		report.append("| what | heap before | heap after | bytes per item (all 10,000) | "
				+ "bytes per item (second 5,000 only) |\n|---|---:|---:|---:|---:|\n");
		report.append(row("registered job", base, halfJobs, allJobs));
		report.append(row("held lease", allJobs, halfLeases, allLeases));
		report.append(String.format(Locale.ROOT, "%nTarget <= 2 KB (2,048 B) per registered job: %s.%n",
				((allJobs - base) / (double) JOBS <= 2048) ? "met" : "missed"));
		report.append("\nA held lease was measured within the first TTL of its run: the watchdog then still has "
				+ "two timer tasks for it (the local-deadline check and the lockAtMostFor cap); after one TTL "
				+ "only the cap remains. The runner's own list of the runs adds about 4 B per lease.\n");
		report.append("\nTop classes, registered jobs (histogram diff, 10,000 jobs):\n\n");
		report.append(diff(histogramBase, histogramJobs, JOBS));
		report.append("\nTop classes, held leases (histogram diff, 10,000 leases):\n\n");
		report.append(diff(histogramJobs, histogramLeases, JOBS));
		for (ReactiveRun run : runs) {
			run.finish(null);
		}
		executor.close();
		return report.toString();
	}

	private static String row(String what, long before, long half, long after) {
		return String.format(Locale.ROOT, "| %s | %,d | %,d | %.0f | %.0f |%n", what, before, after,
				(after - before) / (double) JOBS, (after - half) / (double) (JOBS - JOBS / 2));
	}

	/**
	 * Register jobs of a class as the bean post-processor and the startup do.
	 */
	private static void register(Class<?> userClass, Object bean, JobDefinitionFactory factory, JobRegistry registry,
			ClusterSingletonExecutor executor, int from, int to) {
		Map<Method, ClusterSingleton> methods = MethodIntrospector.selectMethods(userClass,
				(MetadataLookup<ClusterSingleton>) (method) -> {
					int index = Integer.parseInt(method.getName().substring(3));
					return (index >= from && index < to)
							? AnnotatedElementUtils.findMergedAnnotation(method, ClusterSingleton.class) : null;
				});
		methods.forEach((method, annotation) -> {
			JobDefinition job = registry.register(method, factory.create(userClass, method, annotation));
			registry.registerTarget(method, bean);
			registry.target(job.name())
				.ifPresent((target) -> executor.registerJob(job,
						PreparedInvocation.of(job.name(), target.bean(), target.method())));
		});
	}

	private static void hold(ClusterSingletonExecutor executor, List<JobDefinition> jobs, List<ReactiveRun> runs) {
		for (JobDefinition job : jobs) {
			ReactiveRun run = executor.startReactive(job, null, RunTrigger.SCHEDULED);
			if (run == null) {
				throw new IllegalStateException("No lease for " + job.name());
			}
			runs.add(run);
		}
	}

	private static void clearSpringCaches() {
		// as the application context does at the end of its refresh
		ReflectionUtils.clearCache();
		AnnotationUtils.clearCache();
	}

	/**
	 * Return the heap in use once full collections stop freeing anything.
	 */
	static long settledHeap() throws InterruptedException {
		long previous = Long.MIN_VALUE;
		long used = 0;
		for (int i = 0; i < 20; i++) {
			System.gc();
			Thread.sleep(100);
			used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
			if (Math.abs(used - previous) < 8 * 1024) {
				return used;
			}
			previous = used;
		}
		return used;
	}

	private static final Pattern HISTOGRAM_LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+).*$");

	/**
	 * Return the live objects by class, from {@code jcmd GC.class_histogram} on this JVM:
	 * instances and bytes.
	 */
	private static Map<String, long[]> histogram() throws Exception {
		Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
		ProcessBuilder builder = new ProcessBuilder(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd",
				Long.toString(ProcessHandle.current().pid()), "GC.class_histogram");
		builder.redirectErrorStream(true);
		Process process = builder.start();
		Map<String, long[]> classes = new HashMap<>();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				Matcher matcher = HISTOGRAM_LINE.matcher(line);
				if (matcher.matches()) {
					classes.put(matcher.group(3),
							new long[] { Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)) });
				}
			}
		}
		process.waitFor();
		return classes;
	}

	private static String diff(Map<String, long[]> before, Map<String, long[]> after, int items) {
		if (before.isEmpty() || after.isEmpty()) {
			return "(no histogram: jcmd did not answer)\n";
		}
		Set<String> names = new HashSet<>(before.keySet());
		names.addAll(after.keySet());
		long totalBytes = 0;
		long totalInstances = 0;
		List<Map.Entry<String, long[]>> deltas = new ArrayList<>();
		for (String name : names) {
			long[] b = before.getOrDefault(name, new long[2]);
			long[] a = after.getOrDefault(name, new long[2]);
			long[] delta = { a[0] - b[0], a[1] - b[1] };
			totalInstances += delta[0];
			totalBytes += delta[1];
			deltas.add(Map.entry(name, delta));
		}
		deltas.sort(Comparator.comparingLong((Map.Entry<String, long[]> entry) -> -Math.abs(entry.getValue()[1])));
		StringBuilder table = new StringBuilder(
				"| class | instances | bytes | instances per item | bytes per item |\n|---|---:|---:|---:|---:|\n");
		for (Map.Entry<String, long[]> entry : deltas.subList(0, Math.min(15, deltas.size()))) {
			long[] delta = entry.getValue();
			table.append(String.format(Locale.ROOT, "| `%s` | %,d | %,d | %.2f | %.1f |%n", entry.getKey(), delta[0],
					delta[1], delta[0] / (double) items, delta[1] / (double) items));
		}
		table.append(String.format(Locale.ROOT, "| **all classes** | %,d | %,d | %.2f | %.1f |%n", totalInstances,
				totalBytes, totalInstances / (double) items, totalBytes / (double) items));
		return table.toString();
	}

	/**
	 * Generate a class with {@code count} public methods {@code job0} ... each annotated
	 * {@code @ClusterSingleton @Scheduled(cron = CRON, zone = "UTC")}, in a class loader
	 * of its own.
	 */
	private static Class<?> generateJobsClass(int count) {
		String name = "io/github/clustersingleton/benchmarks/generated/CostJobs" + count;
		ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
		writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, "java/lang/Object", null);
		MethodVisitor constructor = writer.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
		constructor.visitCode();
		constructor.visitVarInsn(Opcodes.ALOAD, 0);
		constructor.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
		constructor.visitInsn(Opcodes.RETURN);
		constructor.visitMaxs(0, 0);
		constructor.visitEnd();
		for (int i = 0; i < count; i++) {
			MethodVisitor method = writer.visitMethod(Opcodes.ACC_PUBLIC, "job" + i, "()V", null, null);
			method.visitAnnotation(Type.getDescriptor(ClusterSingleton.class), true).visitEnd();
			AnnotationVisitor scheduled = method.visitAnnotation(Type.getDescriptor(Scheduled.class), true);
			scheduled.visit("cron", CRON);
			scheduled.visit("zone", "UTC");
			scheduled.visitEnd();
			method.visitCode();
			method.visitInsn(Opcodes.RETURN);
			method.visitMaxs(0, 0);
			method.visitEnd();
		}
		writer.visitEnd();
		byte[] bytes = writer.toByteArray();
		ClassLoader loader = new ClassLoader(HeapCost.class.getClassLoader()) {
			@Override
			protected Class<?> findClass(String className) throws ClassNotFoundException {
				if (className.equals(name.replace('/', '.'))) {
					return defineClass(className, bytes, 0, bytes.length);
				}
				throw new ClassNotFoundException(className);
			}
		};
		try {
			return loader.loadClass(name.replace('/', '.'));
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A store that grants every lease and keeps nothing, so that only the engine's own
	 * objects stay on the heap.
	 */
	private static final class NoStore implements LeaseBackend {

		private final AtomicLong fencingTokens = new AtomicLong();

		@Override
		public String id() {
			return "none";
		}

		@Override
		public void validateJobName(String jobName) {
		}

		@Override
		public AcquireResult tryAcquire(LeaseRequest request) {
			return AcquireResult.acquired(this.fencingTokens.incrementAndGet());
		}

		@Override
		public Set<String> renew(Collection<HeldLease> leases, Duration ttl) {
			Set<String> renewed = new HashSet<>();
			leases.forEach((lease) -> renewed.add(lease.leaseToken()));
			return renewed;
		}

		@Override
		public void release(HeldLease lease, Duration lockAtLeastFor) {
		}

		@Override
		public Optional<LeaseInfo> describe(String jobName) {
			return Optional.empty();
		}

		@Override
		public boolean forceRelease(String jobName) {
			return false;
		}

		@Override
		public void probe() {
		}

	}

}
