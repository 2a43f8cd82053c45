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

package io.github.clustersingleton.autoconfigure;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.ScheduledFireTime;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.scheduling.support.SimpleTriggerContext;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for the interception of {@code @ClusterSingleton} methods set up by
 * {@link ClusterSingletonAutoConfiguration}, on the JDBC backend over an in-memory H2
 * database. The methods are called directly, as application code would.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonInterceptionTests {

	private static final long TIMEOUT_SECONDS = 10;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
		.with(h2());

	@Test
	void guardedRunShouldSeeItsContext() {
		this.contextRunner.withBean(ContextJob.class).run((context) -> {
			ContextJob job = context.getBean(ContextJob.class);
			job.run();
			Seen first = job.seen();
			assertThat(first).isNotNull();
			assertThat(first.jobName()).isEqualTo("context");
			assertThat(first.fencingToken()).isGreaterThanOrEqualTo(1);
			// a direct call owns no cron slot, even on a cron-scheduled method
			assertThat(first.slot()).isEmpty();
			assertThat(first.leaseValid()).isTrue();
			job.run();
			assertThat(job.seen().fencingToken()).isGreaterThan(first.fencingToken());
			// nothing leaks onto the caller's thread after the run
			assertThat(ClusterSingletonContext.find()).isEmpty();
		});
	}

	@Test
	void currentOutsideAGuardedRunShouldThrow() {
		assertThatIllegalStateException().isThrownBy(ClusterSingletonContext::current)
			.withMessageContaining("No cluster-singleton run on thread '" + Thread.currentThread().getName() + "'")
			.withMessageContaining("only available inside a method annotated with @ClusterSingleton");
	}

	@Test
	void callWhileAnotherThreadRunsTheJobShouldBeSkipped() {
		this.contextRunner.withBean(BlockingJob.class).run((context) -> {
			BlockingJob job = context.getBean(BlockingJob.class);
			ExecutorService threads = Executors.newSingleThreadExecutor();
			try {
				Future<?> holder = threads.submit(job::run);
				assertThat(job.entered().await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
				// skipped: returns at once, without entering the body
				job.run();
				assertThat(job.entries()).isEqualTo(1);
				job.proceed().countDown();
				holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
				// the lease was released: the next call runs
				job.run();
				assertThat(job.entries()).isEqualTo(2);
			}
			finally {
				job.proceed().countDown();
				threads.shutdownNow();
			}
		});
	}

	@Test
	void defaultJobNameShouldBeSimpleClassNameAndMethodName() {
		this.contextRunner.withBean(DefaultNameJob.class).run((context) -> {
			JobRegistry registry = context.getBean(JobRegistry.class);
			assertThat(registry.names()).containsExactly("DefaultNameJob.refresh");
			DefaultNameJob job = context.getBean(DefaultNameJob.class);
			job.refresh();
			assertThat(job.jobName()).isEqualTo("DefaultNameJob.refresh");
		});
	}

	@Test
	void placeholdersInNameAndDurationsShouldBeResolved() {
		this.contextRunner.withBean(PlaceholderJob.class)
			.withPropertyValues("test.job.name=resolved-job", "test.job.at-most=7m", "test.job.at-least=2s")
			.run((context) -> {
				JobDefinition job = context.getBean(JobRegistry.class).forName("resolved-job").orElseThrow();
				assertThat(job.lockAtMostFor()).isEqualTo(Duration.ofMinutes(7));
				assertThat(job.lockAtLeastFor()).isEqualTo(Duration.ofSeconds(2));
				PlaceholderJob bean = context.getBean(PlaceholderJob.class);
				bean.run();
				assertThat(bean.jobName()).isEqualTo("resolved-job");
			});
	}

	@Test
	void jobDisabledByPropertyShouldBeSkipped() {
		this.contextRunner.withBean(DisabledJob.class)
			.withPropertyValues("cluster-singleton.jobs.disabled.enabled=false")
			.run((context) -> {
				assertThat(context.getBean(JobRegistry.class).forName("disabled").orElseThrow().enabled()).isFalse();
				DisabledJob job = context.getBean(DisabledJob.class);
				job.run();
				assertThat(job.runs()).isZero();
			});
	}

	@Test
	void jobEnabledByDefaultShouldRun() {
		// the counterpart of jobDisabledByPropertyShouldBeSkipped
		this.contextRunner.withBean(DisabledJob.class).run((context) -> {
			DisabledJob job = context.getBean(DisabledJob.class);
			job.run();
			assertThat(job.runs()).isOne();
		});
	}

	@Test
	void jobPropertiesShouldWinOverAnnotation() {
		this.contextRunner.withBean(OverriddenJob.class)
			.withPropertyValues("cluster-singleton.jobs.overridden.lock-at-most-for=45m",
					"cluster-singleton.jobs.overridden.lock-at-least-for=3s")
			.run((context) -> {
				JobDefinition job = context.getBean(JobRegistry.class).forName("overridden").orElseThrow();
				assertThat(job.lockAtMostFor()).isEqualTo(Duration.ofMinutes(45));
				assertThat(job.lockAtLeastFor()).isEqualTo(Duration.ofSeconds(3));
			});
	}

	@Test
	void annotationShouldWinOverDefaults() {
		this.contextRunner.withBean(OverriddenJob.class)
			.withPropertyValues("cluster-singleton.default-lock-at-most-for=50m",
					"cluster-singleton.default-lock-at-least-for=4s")
			.run((context) -> {
				JobDefinition job = context.getBean(JobRegistry.class).forName("overridden").orElseThrow();
				assertThat(job.lockAtMostFor()).isEqualTo(Duration.ofMinutes(10));
				assertThat(job.lockAtLeastFor()).isEqualTo(Duration.ofSeconds(1));
			});
	}

	@Test
	void jobPropertiesWithBracketsShouldApplyToDottedDefaultName() {
		this.contextRunner.withBean(DefaultNameJob.class)
			.withPropertyValues("cluster-singleton.jobs[DefaultNameJob.refresh].lock-at-most-for=25m")
			.run((context) -> {
				JobDefinition job = context.getBean(JobRegistry.class).forName("DefaultNameJob.refresh").orElseThrow();
				assertThat(job.lockAtMostFor()).isEqualTo(Duration.ofMinutes(25));
			});
	}

	@Test
	void lockAtLeastForShouldKeepTheLeaseAfterTheRun() {
		this.contextRunner.withBean(AtLeastJob.class).run((context) -> {
			AtLeastJob job = context.getBean(AtLeastJob.class);
			job.kept();
			job.kept();
			assertThat(job.keptRuns()).isOne();
			// without lockAtLeastFor the lease is released at once
			job.released();
			job.released();
			assertThat(job.releasedRuns()).isEqualTo(2);
		});
	}

	@Test
	void exceptionOfTheJobShouldPropagateUnchanged() {
		this.contextRunner.withBean(FailingJob.class).run((context) -> {
			FailingJob job = context.getBean(FailingJob.class);
			IllegalStateException failure = new IllegalStateException("job failed");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> job.fail(failure))
				.isSameAs(failure);
			IOException checked = new IOException("disk full");
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> job.failChecked(checked)).isSameAs(checked);
			// the failed runs released their leases
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> job.fail(failure));
			assertThat(job.runs()).isEqualTo(3);
		});
	}

	@Test
	void nestedGuardedRunsShouldEachSeeTheirOwnContext() {
		this.contextRunner.withBean(InnerJob.class).withBean(OuterJob.class).run((context) -> {
			OuterJob outer = context.getBean(OuterJob.class);
			outer.run();
			assertThat(outer.seen()).containsExactly("outer", "inner", "outer");
			assertThat(ClusterSingletonContext.find()).isEmpty();
		});
	}

	@Test
	void scheduledRunsShouldBeGuarded() {
		this.contextRunner.withUserConfiguration(SchedulingConfiguration.class)
			.withBean(ScheduledJobs.class)
			.run((context) -> {
				ScheduledJobs jobs = context.getBean(ScheduledJobs.class);
				Awaitility.await()
					.atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
					.untilAsserted(() -> assertThat(jobs.fixedDelay()).isNotNull());
				assertThat(jobs.fixedDelay().jobName()).isEqualTo("fixedDelay");
				// fixed-delay triggers own no slot
				assertThat(jobs.fixedDelay().slot()).isEmpty();
				Awaitility.await()
					.atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
					.untilAsserted(() -> assertThat(jobs.cron()).isNotNull());
				assertThat(jobs.cron().jobName()).isEqualTo("cron");
				// a cron trigger owns its fire time: a whole second for this expression
				assertThat(jobs.cron().slot()).hasValueSatisfying((slot) -> assertThat(slot.getNano()).isZero());
			});
	}

	@Test
	void guardedCronMethodCalledFromAnotherScheduledMethodShouldOwnNoSlot() {
		this.contextRunner.withUserConfiguration(SchedulingConfiguration.class)
			.withBean(ContextJob.class)
			.withBean(CallingJob.class)
			.run((context) -> {
				CallingJob caller = context.getBean(CallingJob.class);
				Awaitility.await()
					.atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
					.untilAsserted(() -> assertThat(caller.seen()).isNotNull());
				// the scheduler invoked the caller, not the guarded method: a direct call
				assertThat(caller.seen().jobName()).isEqualTo("context");
				assertThat(caller.seen().slot()).isEmpty();
			});
	}

	@Test
	void callMarkedAsItsJobsCronTriggerShouldOwnTheFireTimeWithoutTheSchedulersRunnableOnTheStack() {
		this.contextRunner.withBean(ContextJob.class).run((context) -> {
			ContextJob job = context.getBean(ContextJob.class);
			ScheduledFireTime.CronSwitch namesTheJob = new ScheduledFireTime.CronSwitch() {

				@Override
				public @Nullable String jobOf(Runnable task, Trigger trigger) {
					return "context";
				}

				@Override
				public @Nullable Trigger triggerOf(String jobName) {
					return null;
				}

				@Override
				public void addListener(Consumer<String> listener) {
				}

			};
			List<Runnable> armed = new CopyOnWriteArrayList<>();
			List<Instant> fireTimes = new CopyOnWriteArrayList<>();
			TaskScheduler capturing = new ConcurrentTaskScheduler() {

				@Override
				public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
					// a fire time of a second or two ago
					fireTimes.add(trigger.nextExecution(
							new SimpleTriggerContext(Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-2)))));
					armed.add(task);
					return super.schedule(() -> {
					}, Instant.now().plusSeconds(3600));
				}

			};
			// the task is this test's lambda, not Spring's runnable of a scheduled
			// method: only the scheduler's mark tells the interceptor that the call is
			// the trigger's own
			new ScheduledFireTime(capturing, namesTheJob).schedule(job::run, new CronTrigger("* * * * * *"));
			armed.get(0).run();
			assertThat(job.seen().slot()).contains(fireTimes.get(0));
			// the same call outside the trigger's task is a direct call
			job.run();
			assertThat(job.seen().slot()).isEmpty();
		});
	}

	@Test
	void asyncCronMethodRunOnTheSchedulersThreadShouldStayADirectCall() {
		// @Async's advice comes before ours: with an executor that runs the call on the
		// calling thread, the guarded call still runs inside the scheduler's task, but
		// behind a task of @Async's own, as when it runs on another thread
		this.contextRunner.withUserConfiguration(DecoratedSchedulingConfiguration.class, AsyncConfiguration.class)
			.withBean(AsyncCronJob.class)
			.withBean(ScheduledJobs.class)
			.run((context) -> {
				assertThat(context.getBean(TaskScheduler.class)).isInstanceOf(ThreadPoolTaskScheduler.class);
				AsyncCronJob async = context.getBean(AsyncCronJob.class);
				ScheduledJobs plain = context.getBean(ScheduledJobs.class);
				Awaitility.await()
					.atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
					.untilAsserted(() -> assertThat(async.seen()).isNotNull());
				assertThat(async.thread()).startsWith("decorated-scheduling-");
				assertThat(async.seen().slot()).isEmpty();
				// the same scheduler's cron task of a job without @Async owns its slot
				Awaitility.await()
					.atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
					.untilAsserted(() -> assertThat(plain.cron()).isNotNull());
				assertThat(plain.cron().slot()).isPresent();
			});
	}

	@Test
	void callFromTheSchedulersRunnableWithoutTheMarkShouldOwnItsSlot() {
		this.contextRunner.withBean(EverySecondJob.class).run((context) -> {
			EverySecondJob job = context.getBean(EverySecondJob.class);
			// Spring's runnable of a scheduled method, on a thread no decorated scheduler
			// marked: the walk up the stack finds it
			new ScheduledMethodRunnable(job, EverySecondJob.class.getMethod("run")).run();
			assertThat(job.seen().slot()).isPresent();
			job.run();
			assertThat(job.seen().slot()).isEmpty();
		});
	}

	record Seen(String jobName, long fencingToken, Optional<Instant> slot, boolean leaseValid) {

		static Seen current() {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			return new Seen(context.jobName(), context.fencingToken(), context.slot(), context.isLeaseValid());
		}

	}

	static class ContextJob {

		private final AtomicReference<Seen> seen = new AtomicReference<>();

		// no @EnableScheduling here: the cron expression only makes the job slot-aware
		@Scheduled(cron = "0 0 0 1 1 *")
		@ClusterSingleton(name = "context")
		public void run() {
			this.seen.set(Seen.current());
		}

		public Seen seen() {
			return this.seen.get();
		}

	}

	static class BlockingJob {

		private final AtomicInteger entries = new AtomicInteger();

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch proceed = new CountDownLatch(1);

		@ClusterSingleton(name = "blocking")
		public void run() {
			this.entries.incrementAndGet();
			this.entered.countDown();
			try {
				this.proceed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		public int entries() {
			return this.entries.get();
		}

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch proceed() {
			return this.proceed;
		}

	}

	static class DefaultNameJob {

		private final AtomicReference<String> jobName = new AtomicReference<>();

		@ClusterSingleton
		public void refresh() {
			this.jobName.set(ClusterSingletonContext.current().jobName());
		}

		public String jobName() {
			return this.jobName.get();
		}

	}

	static class PlaceholderJob {

		private final AtomicReference<String> jobName = new AtomicReference<>();

		@ClusterSingleton(name = "${test.job.name}", lockAtMostFor = "${test.job.at-most}",
				lockAtLeastFor = "${test.job.at-least}")
		public void run() {
			this.jobName.set(ClusterSingletonContext.current().jobName());
		}

		public String jobName() {
			return this.jobName.get();
		}

	}

	static class DisabledJob {

		private final AtomicInteger runs = new AtomicInteger();

		@ClusterSingleton(name = "disabled")
		public void run() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

	static class OverriddenJob {

		@ClusterSingleton(name = "overridden", lockAtMostFor = "10m", lockAtLeastFor = "1s")
		public void run() {
		}

	}

	static class AtLeastJob {

		private final AtomicInteger keptRuns = new AtomicInteger();

		private final AtomicInteger releasedRuns = new AtomicInteger();

		@ClusterSingleton(name = "kept", lockAtLeastFor = "1m")
		public void kept() {
			this.keptRuns.incrementAndGet();
		}

		@ClusterSingleton(name = "released")
		public void released() {
			this.releasedRuns.incrementAndGet();
		}

		public int keptRuns() {
			return this.keptRuns.get();
		}

		public int releasedRuns() {
			return this.releasedRuns.get();
		}

	}

	static class FailingJob {

		private final AtomicInteger runs = new AtomicInteger();

		@ClusterSingleton(name = "failing")
		public void fail(RuntimeException failure) {
			this.runs.incrementAndGet();
			throw failure;
		}

		@ClusterSingleton(name = "failingChecked")
		public void failChecked(IOException failure) throws IOException {
			this.runs.incrementAndGet();
			throw failure;
		}

		public int runs() {
			return this.runs.get();
		}

	}

	static class InnerJob {

		@ClusterSingleton(name = "inner")
		public void run(List<String> seen) {
			seen.add(ClusterSingletonContext.current().jobName());
		}

	}

	static class OuterJob {

		private final InnerJob inner;

		private final List<String> seen = new CopyOnWriteArrayList<>();

		OuterJob(InnerJob inner) {
			this.inner = inner;
		}

		@ClusterSingleton(name = "outer")
		public void run() {
			this.seen.add(ClusterSingletonContext.current().jobName());
			this.inner.run(this.seen);
			this.seen.add(ClusterSingletonContext.current().jobName());
		}

		public List<String> seen() {
			return this.seen;
		}

	}

	/**
	 * An unguarded scheduled method that calls a guarded cron method directly.
	 */
	static class CallingJob {

		private final ContextJob job;

		private final AtomicReference<Seen> seen = new AtomicReference<>();

		CallingJob(ContextJob job) {
			this.job = job;
		}

		@Scheduled(fixedDelay = 50)
		public void callGuardedJob() {
			if (this.seen.get() == null) {
				this.job.run();
				this.seen.compareAndSet(null, this.job.seen());
			}
		}

		Seen seen() {
			return this.seen.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class DecoratedSchedulingConfiguration {

		@Bean
		ThreadPoolTaskScheduler taskScheduler() {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setThreadNamePrefix("decorated-scheduling-");
			return scheduler;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

		@Bean
		TaskExecutor taskExecutor() {
			return new SyncTaskExecutor();
		}

	}

	static class EverySecondJob {

		private final AtomicReference<Seen> seen = new AtomicReference<>();

		@Scheduled(cron = "* * * * * *")
		@ClusterSingleton(name = "everySecond")
		public void run() {
			this.seen.set(Seen.current());
		}

		Seen seen() {
			return this.seen.get();
		}

	}

	static class AsyncCronJob {

		private final AtomicReference<Seen> seen = new AtomicReference<>();

		private final AtomicReference<String> thread = new AtomicReference<>();

		@Async
		@Scheduled(cron = "* * * * * *")
		@ClusterSingleton(name = "asyncCron")
		public void run() {
			if (this.seen.compareAndSet(null, Seen.current())) {
				this.thread.set(Thread.currentThread().getName());
			}
		}

		Seen seen() {
			return this.seen.get();
		}

		String thread() {
			return this.thread.get();
		}

	}

	static class ScheduledJobs {

		private final AtomicReference<Seen> fixedDelay = new AtomicReference<>();

		private final AtomicReference<Seen> cron = new AtomicReference<>();

		@Scheduled(fixedDelay = 50)
		@ClusterSingleton(name = "fixedDelay")
		public void onFixedDelay() {
			this.fixedDelay.compareAndSet(null, Seen.current());
		}

		@Scheduled(cron = "* * * * * *")
		@ClusterSingleton(name = "cron")
		public void onCron() {
			this.cron.compareAndSet(null, Seen.current());
		}

		public Seen fixedDelay() {
			return this.fixedDelay.get();
		}

		public Seen cron() {
			return this.cron.get();
		}

	}

}
