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
package io.github.clustersingleton.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.test.TestStores;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two nodes with {@code spring.threads.virtual.enabled=true} share one PostgreSQL
 * database: Boot's {@link SimpleAsyncTaskScheduler} runs every trigger on a new virtual
 * thread, and the lease engine must behave as it does on platform threads: one node runs
 * each cron slot, the watchdog keeps the lease of a long run, a run that reaches its
 * {@code lockAtMostFor} is interrupted, and shutdown waits for a run and releases its
 * lease. A JFR recording of {@code jdk.VirtualThreadPinned} events checks that no virtual
 * thread was pinned with our code on its stack.
 * <p>
 * Needs JDK 21 or later. The build runs it in an execution of its own on JDK 25 when
 * {@code /usr/lib/jvm/temurin-25-jdk-amd64} exists (profile {@code virtual-threads} of
 * this module), where an older JDK fails it; elsewhere it is skipped on an older JDK.
 * With another JDK 21+: {@code ./mvnw -pl autoconfigure -am verify -Pvirtual-threads
 * -Djava25.home=<its home> -Dtest=VirtualThreadSchedulingTests
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 *
 * @author cluster-singleton contributors
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VirtualThreadSchedulingTests {

	/**
	 * Set by the build's virtual-threads execution: there, a JDK older than 21 fails the
	 * test instead of skipping it.
	 */
	static final String REQUIRED_PROPERTY = "cluster-singleton.test.virtual-threads-required";

	private static final String PREFIX = "vt-" + UUID.randomUUID().toString().substring(0, 8);

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	private static final String PINNED_EVENT = "jdk.VirtualThreadPinned";

	/**
	 * JFR's default threshold of {@code jdk.VirtualThreadPinned}.
	 */
	private static final Duration PIN_THRESHOLD = Duration.ofMillis(20);

	static final List<Run> everySecondRuns = new CopyOnWriteArrayList<>();

	private static Recording pinning;

	private static ConfigurableApplicationContext nodeA;

	private static ConfigurableApplicationContext nodeB;

	@BeforeAll
	static void startTwoNodesOnVirtualThreads() {
		if (Runtime.version().feature() < 21) {
			// in the build's virtual-threads execution an old JDK is a broken setup, not
			// a
			// reason to skip
			assertThat(Boolean.getBoolean(REQUIRED_PROPERTY))
				.as("virtual threads need JDK 21+, but this runs on " + Runtime.version() + ": check java25.home")
				.isFalse();
			Assumptions.abort("virtual threads need JDK 21+, this is " + Runtime.version()
					+ "; the build's virtual-threads execution runs this test on JDK 25");
		}
		pinning = new Recording();
		pinning.enable(PINNED_EVENT).withStackTrace().withThreshold(Duration.ZERO);
		pinning.start();
		nodeA = start("node-a");
		nodeB = start("node-b");
	}

	@AfterAll
	static void closeNodes() {
		for (ConfigurableApplicationContext node : new ConfigurableApplicationContext[] { nodeA, nodeB }) {
			if (node != null) {
				node.close();
			}
		}
		if (pinning != null) {
			pinning.close();
		}
	}

	@Test
	@Order(1)
	void bootSchedulesOnVirtualThreadsAndEachCronSlotRunsOnOneNode() {
		assertThat(nodeA.getBean(TaskScheduler.class)).isInstanceOf(SimpleAsyncTaskScheduler.class);
		await().atMost(TIMEOUT).until(() -> everySecondRuns.size() >= 6);
		List<Run> runs = List.copyOf(everySecondRuns);
		assertThat(runs).allSatisfy((run) -> assertThat(run.virtual()).as("run on a virtual thread").isTrue());
		Map<Instant, List<Run>> bySlot = runs.stream().collect(Collectors.groupingBy(Run::slot));
		assertThat(bySlot).allSatisfy((slot, inSlot) -> assertThat(inSlot).as("runs of slot %s", slot).hasSize(1));
		assertThat(runs).extracting(Run::fencingToken).doesNotHaveDuplicates();
	}

	@Test
	@Order(2)
	void watchdogKeepsTheLeaseOfAVirtualThreadRunLongerThanTheTtl() throws Exception {
		Jobs a = nodeA.getBean(Jobs.class);
		Jobs b = nodeB.getBean(Jobs.class);
		Future<?> run = onVirtualThread(nodeA, a::longRun);
		assertThat(a.longEntered().await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		// three lease TTLs later the lease is still node A's: the other node skips
		Thread.sleep(3000);
		b.longRun();
		assertThat(b.longRuns().get()).isZero();
		run.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		Outcome outcome = a.longOutcome().get();
		assertThat(outcome.virtual()).isTrue();
		assertThat(outcome.interrupted()).isFalse();
		assertThat(outcome.leaseValid()).as("lease still held at the end of a 4 s run with a 1 s TTL").isTrue();
		assertThat(a.longRuns().get()).isOne();
	}

	@Test
	@Order(3)
	void reachingLockAtMostForInterruptsTheVirtualThreadOfTheRun() throws Exception {
		Jobs a = nodeA.getBean(Jobs.class);
		long started = System.nanoTime();
		Future<?> run = onVirtualThread(nodeA, a::capped);
		run.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		Outcome outcome = a.cappedOutcome().get();
		assertThat(outcome.virtual()).isTrue();
		assertThat(outcome.interrupted()).as("run interrupted when its lease was lost").isTrue();
		assertThat(outcome.leaseValid()).isFalse();
		// lockAtMostFor is 2 s; the run would otherwise sleep 30 s
		assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(2)).isLessThan(Duration.ofSeconds(10));
	}

	@Test
	@Order(4)
	void reachingLockAtMostForStopsAQueryOfTheRunOnAVirtualThread() throws Exception {
		Jobs a = nodeA.getBean(Jobs.class);
		long started = System.nanoTime();
		onVirtualThread(nodeA, a::cappedInQuery).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		Outcome outcome = a.queryOutcome().get();
		assertThat(outcome.virtual()).isTrue();
		assertThat(outcome.interrupted()).as("query ended by the interrupt").isTrue();
		assertThat(outcome.leaseValid()).isFalse();
		// the query would otherwise take 30 s
		assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(2)).isLessThan(Duration.ofSeconds(10));
		// the engine gave the lease back on a fresh connection: the other node gets it
		assertThat(tryAcquire(nodeB.getBean(LeaseBackend.class), PREFIX + "-query").isAcquired()).isTrue();
	}

	@Test
	@Order(5)
	void shutdownWaitsForTheVirtualThreadRunAndReleasesItsLease() throws Exception {
		Jobs b = nodeB.getBean(Jobs.class);
		LeaseBackend backendOfA = nodeA.getBean(LeaseBackend.class);
		Future<?> run = onVirtualThread(nodeB, b::held);
		assertThat(b.heldEntered().await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(nodeB::close);
		Thread.sleep(500);
		assertThat(closing).as("close() waits for the run").isNotDone();
		assertThat(tryAcquire(backendOfA, PREFIX + "-held").isAcquired()).as("lease kept while the run goes on")
			.isFalse();
		b.heldProceed().countDown();
		run.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		closing.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		assertThat(b.heldOutcome().get().virtual()).isTrue();
		assertThat(b.heldOutcome().get().leaseValid()).isTrue();
		assertThat(tryAcquire(backendOfA, PREFIX + "-held").isAcquired()).as("lease released at shutdown").isTrue();
	}

	@Test
	@Order(6)
	void noVirtualThreadIsPinnedWithOurCodeOnItsStack(@TempDir Path dir) throws Exception {
		// a pin on purpose, to show the recording sees pins: a virtual thread that blocks
		// in a class initializer stays on its carrier on every JDK
		onVirtualThread(nodeA, PinningCanary::touch).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		nodeA.close();
		assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
			.as("threads left after both nodes closed")
			.noneMatch((name) -> name.startsWith("cluster-singleton-watchdog")
					|| name.startsWith("cluster-singleton-renewal"));
		pinning.stop();
		Path file = dir.resolve("pinning.jfr");
		pinning.dump(file);
		List<RecordedEvent> events = RecordingFile.readAllEvents(file)
			.stream()
			.filter((event) -> event.getEventType().getName().equals(PINNED_EVENT))
			.toList();
		List<RecordedEvent> ours = events.stream().filter(VirtualThreadSchedulingTests::hasOurFrame).toList();
		System.out.println("jdk.VirtualThreadPinned events: " + events.size() + ", with a frame of ours: " + ours.size()
				+ " (on JDK " + Runtime.version() + ")");
		events.forEach((event) -> System.out
			.println("  " + event.getDuration().toNanos() / 1000 + " us, " + describe(event, "blockingOperation") + ", "
					+ describe(event, "pinnedReason") + ": " + topFrames(event)));
		assertThat(ours).as("the canary's pin").anyMatch(VirtualThreadSchedulingTests::isCanary);
		// Shorter pins are one-off waits for another thread's class initialization when
		// the first triggers of two nodes touch a class at once (seen: WhileOps of the
		// stream API, Micrometer's ObservationRegistry; microseconds to a millisecond). A
		// pin that matters holds the carrier for as long as the virtual thread waits (a
		// store round trip, a job's sleep): at least JFR's default threshold for the
		// event.
		// Waits for another thread's class initialization are left out whatever their
		// length: they happen once per class and JVM, and on a loaded machine they last
		// as long as the other thread is kept off the CPU (seen: 20-30 ms for
		// sun.nio.ch.Poller and for a class of ours, during the first triggers).
		assertThat(ours.stream()
			.filter((event) -> !isCanary(event) && !isClassInitializationWait(event)
					&& event.getDuration().compareTo(PIN_THRESHOLD) >= 0)
			.map(RecordedEvent::toString))
			.as("virtual threads pinned for %s or longer with our code on the stack", PIN_THRESHOLD)
			.isEmpty();
		Files.deleteIfExists(file);
	}

	private static boolean isClassInitializationWait(RecordedEvent event) {
		return describe(event, "pinnedReason").startsWith("Waited for initialization of ");
	}

	private static boolean hasOurFrame(RecordedEvent event) {
		return event.getStackTrace() != null && event.getStackTrace()
			.getFrames()
			.stream()
			.anyMatch((frame) -> typeName(frame).startsWith("io.github.clustersingleton."));
	}

	private static String describe(RecordedEvent event, String field) {
		return event.hasField(field) ? String.valueOf((Object) event.getValue(field)) : "-";
	}

	private static String topFrames(RecordedEvent event) {
		if (event.getStackTrace() == null) {
			return "(no stack trace)";
		}
		return event.getStackTrace()
			.getFrames()
			.stream()
			.limit(5)
			.map((frame) -> typeName(frame) + "." + ((frame.getMethod() != null) ? frame.getMethod().getName() : "?"))
			.collect(Collectors.joining(" < "));
	}

	private static boolean isCanary(RecordedEvent event) {
		return event.getStackTrace()
			.getFrames()
			.stream()
			.anyMatch((frame) -> typeName(frame).endsWith("PinningCanary"));
	}

	private static String typeName(RecordedFrame frame) {
		return (frame.getMethod() != null) ? frame.getMethod().getType().getName() : "";
	}

	private static Future<?> onVirtualThread(ConfigurableApplicationContext node, ThrowingRunnable task) {
		SimpleAsyncTaskScheduler scheduler = node.getBean(SimpleAsyncTaskScheduler.class);
		return scheduler.submit(() -> {
			task.run();
			return null;
		});
	}

	private static AcquireResult tryAcquire(LeaseBackend backend, String jobName) {
		LeaseRequest request = new LeaseRequest(jobName, "probe", UUID.randomUUID().toString().replace("-", ""),
				Duration.ofSeconds(30), null);
		AcquireResult result = backend.tryAcquire(request);
		if (result.isAcquired()) {
			backend.release(HeldLease.of(request, result.fencingToken()), Duration.ZERO);
		}
		return result;
	}

	static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			return false;
		}
	}

	private static ConfigurableApplicationContext start(String node) {
		return new SpringApplicationBuilder(NodeConfiguration.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + TestStores.postgresUrl(), "spring.threads.virtual.enabled=true",
					"cluster-singleton.lease-ttl=1s", "cluster-singleton.jdbc.initialize-schema=always",
					"cluster-singleton.owner-id=" + node, "test.prefix=" + PREFIX, "test.node=" + node,
					"spring.main.banner-mode=off")
			.run();
	}

	@FunctionalInterface
	interface ThrowingRunnable {

		void run() throws Exception;

	}

	record Run(String node, Instant slot, long fencingToken, boolean virtual) {

	}

	record Outcome(boolean virtual, boolean interrupted, boolean leaseValid) {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, TaskSchedulingAutoConfiguration.class,
			ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class })
	static class NodeConfiguration {

		@Bean
		Jobs jobs(@Value("${test.node}") String node, DataSource dataSource) {
			return new Jobs(node, dataSource);
		}

	}

	static class Jobs {

		private final String node;

		private final DataSource dataSource;

		private final AtomicInteger longRuns = new AtomicInteger();

		private final CountDownLatch longEntered = new CountDownLatch(1);

		private final AtomicReference<Outcome> longOutcome = new AtomicReference<>();

		private final AtomicReference<Outcome> cappedOutcome = new AtomicReference<>();

		private final AtomicReference<Outcome> queryOutcome = new AtomicReference<>();

		private final CountDownLatch heldEntered = new CountDownLatch(1);

		private final CountDownLatch heldProceed = new CountDownLatch(1);

		private final AtomicReference<Outcome> heldOutcome = new AtomicReference<>();

		Jobs(String node, DataSource dataSource) {
			this.node = node;
			this.dataSource = dataSource;
		}

		// accessors, not fields: the test holds the bean's proxy

		public AtomicInteger longRuns() {
			return this.longRuns;
		}

		public CountDownLatch longEntered() {
			return this.longEntered;
		}

		public AtomicReference<Outcome> longOutcome() {
			return this.longOutcome;
		}

		public AtomicReference<Outcome> cappedOutcome() {
			return this.cappedOutcome;
		}

		public AtomicReference<Outcome> queryOutcome() {
			return this.queryOutcome;
		}

		public CountDownLatch heldEntered() {
			return this.heldEntered;
		}

		public CountDownLatch heldProceed() {
			return this.heldProceed;
		}

		public AtomicReference<Outcome> heldOutcome() {
			return this.heldOutcome;
		}

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@ClusterSingleton(name = "${test.prefix}-every-second", lockAtMostFor = "10s")
		public void everySecond() throws InterruptedException {
			ClusterSingletonContext run = ClusterSingletonContext.current();
			everySecondRuns.add(new Run(this.node, run.slot().orElseThrow(), run.fencingToken(),
					isVirtual(Thread.currentThread())));
			Thread.sleep(20);
		}

		@ClusterSingleton(name = "${test.prefix}-long", lockAtMostFor = "1m")
		public void longRun() {
			this.longRuns.incrementAndGet();
			this.longEntered.countDown();
			this.longOutcome.set(sleep(Duration.ofSeconds(4)));
		}

		@ClusterSingleton(name = "${test.prefix}-capped", lockAtMostFor = "2s")
		public void capped() {
			this.cappedOutcome.set(sleep(Duration.ofSeconds(30)));
		}

		/**
		 * Blocks in a database query: on a virtual thread, socket I/O is interruptible
		 * (the interrupt closes the socket), so the lease loss stops the query too.
		 */
		@ClusterSingleton(name = "${test.prefix}-query", lockAtMostFor = "2s")
		public void cappedInQuery() {
			boolean interrupted = false;
			try (Connection connection = this.dataSource.getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("select pg_sleep(30)");
			}
			catch (SQLException ex) {
				interrupted = true;
			}
			this.queryOutcome.set(new Outcome(isVirtual(Thread.currentThread()), interrupted,
					ClusterSingletonContext.current().isLeaseValid()));
		}

		@ClusterSingleton(name = "${test.prefix}-held", lockAtMostFor = "1m")
		public void held() throws InterruptedException {
			this.heldEntered.countDown();
			boolean proceeded = this.heldProceed.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			this.heldOutcome.set(new Outcome(isVirtual(Thread.currentThread()), !proceeded,
					ClusterSingletonContext.current().isLeaseValid()));
		}

		private static Outcome sleep(Duration duration) {
			boolean interrupted = false;
			try {
				Thread.sleep(duration.toMillis());
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			return new Outcome(isVirtual(Thread.currentThread()), interrupted,
					ClusterSingletonContext.current().isLeaseValid());
		}

	}

	/**
	 * Blocks in its class initializer, which pins the virtual thread that initializes it.
	 */
	static final class PinningCanary {

		static {
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		private PinningCanary() {
		}

		static void touch() {
		}

	}

}
