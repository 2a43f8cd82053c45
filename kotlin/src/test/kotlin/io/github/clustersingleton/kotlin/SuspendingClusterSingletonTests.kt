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

package io.github.clustersingleton.kotlin

import io.github.clustersingleton.ClusterSingleton
import io.github.clustersingleton.ClusterSingletonConfigurationException
import io.github.clustersingleton.ClusterSingletonContext
import io.github.clustersingleton.ClusterSingletonOperations
import io.github.clustersingleton.LeaseBackend
import io.github.clustersingleton.LeaseLostException
import io.github.clustersingleton.RunTrigger
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration
import io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.causeOf
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration
import io.github.clustersingleton.autoconfigure.redis.RedisLeaseAutoConfiguration
import io.github.clustersingleton.lease.ClusterSingletonExecutor
import io.github.clustersingleton.test.TcpProxy
import io.github.clustersingleton.test.TestStores
import java.net.URI
import java.time.Duration
import java.time.Instant
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Configuration
import org.springframework.scheduling.annotation.EnableScheduling
import org.springframework.scheduling.annotation.Scheduled

/**
 * Tests for `@ClusterSingleton` on `@Scheduled` Kotlin `suspend` functions, on the real
 * stores.
 */
class SuspendingClusterSingletonTests {

	/**
	 * A lease store the tests run on.
	 */
	enum class Store {

		POSTGRES {
			override fun configure(runner: ApplicationContextRunner, redisPort: Int?): ApplicationContextRunner =
				runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration::class.java))
					.withPropertyValues(
						"spring.datasource.url=" + TestStores.postgresUrl(),
						"cluster-singleton.jdbc.initialize-schema=always",
					)
		},

		REDIS {
			override fun configure(runner: ApplicationContextRunner, redisPort: Int?): ApplicationContextRunner {
				val url = URI.create(TestStores.redisUrl())
				return runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java))
					.withPropertyValues(
						"spring.data.redis.host=" + url.host,
						"spring.data.redis.port=" + (redisPort ?: url.port),
						"spring.data.redis.timeout=500ms",
					)
			}
		};

		abstract fun configure(runner: ApplicationContextRunner, redisPort: Int? = null): ApplicationContextRunner

	}

	private val job = "kotlin-" + UUID.randomUUID().toString().substring(0, 8)

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(
			AutoConfigurations.of(
				ClusterSingletonAutoConfiguration::class.java,
				JdbcLeaseAutoConfiguration::class.java,
				RedisLeaseAutoConfiguration::class.java,
			),
		)
		.withUserConfiguration(SchedulingConfiguration::class.java)
		.withPropertyValues("cluster-singleton.lease-ttl=1s", "test.job=" + this.job)

	@ParameterizedTest
	@EnumSource(Store::class)
	fun suspendedJobOutlivesSeveralRenewals(store: Store) {
		store.configure(this.contextRunner).withBean(LongJob::class.java).run { context ->
			assertThat(context).hasNotFailed()
			val job = context.getBean(LongJob::class.java)
			assertThat(job.done.await(20, TimeUnit.SECONDS)).isTrue()
			assertThat(job.failure.get()).isNull()
			val seen = job.contexts
			// before the first suspension, on the IO dispatcher, and after 3.5 lease TTLs
			assertThat(seen).hasSize(4)
			assertThat(seen).allSatisfy { assertThat(it).isSameAs(seen[0]) }
			assertThat(job.validAtEnd.get()).isTrue()
			assertThat(job.threadContextOnIo.get()).isSameAs(seen[0])
			assertThat(seen[0].trigger()).isEqualTo(RunTrigger.SCHEDULED)
			awaitReleased(context, this.job)
		}
	}

	@ParameterizedTest
	@EnumSource(Store::class)
	fun lockAtMostForCancelsTheCoroutineWithTheLostLeaseAsCause(store: Store) {
		store.configure(this.contextRunner)
			.withBean(NeverEndingJob::class.java)
			.withPropertyValues("cluster-singleton.jobs.${this.job}.lock-at-most-for=2s")
			.run { context ->
				assertThat(context).hasNotFailed()
				val job = context.getBean(NeverEndingJob::class.java)
				assertThat(job.cancelled.await(15, TimeUnit.SECONDS)).isTrue()
				assertCancelledByLostLease(job.cancellation.get())
				awaitReleased(context, this.job)
			}
	}

	@Test
	fun redisOutageMidSuspensionCancelsTheCoroutine() {
		val url = URI.create(TestStores.redisUrl())
		TcpProxy.start(url.host, url.port).use { proxy ->
			Store.REDIS.configure(this.contextRunner, proxy.port).withBean(NeverEndingJob::class.java).run { context ->
				assertThat(context).hasNotFailed()
				val job = context.getBean(NeverEndingJob::class.java)
				assertThat(job.started.await(10, TimeUnit.SECONDS)).isTrue()
				proxy.cut()
				assertThat(job.cancelled.await(15, TimeUnit.SECONDS)).isTrue()
				assertCancelledByLostLease(job.cancellation.get())
				proxy.restore()
			}
		}
	}

	@ParameterizedTest
	@EnumSource(Store::class)
	fun heldLeaseSkipsWithoutStartingTheCoroutine(store: Store) {
		val runner = store.configure(this.contextRunner)
		runner.withBean(NeverEndingJob::class.java).withPropertyValues("cluster-singleton.owner-id=node-a")
			.run { nodeA ->
				assertThat(nodeA).hasNotFailed()
				assertThat(nodeA.getBean(NeverEndingJob::class.java).started.await(10, TimeUnit.SECONDS)).isTrue()
				runner.withBean(DirectJob::class.java).withPropertyValues("cluster-singleton.owner-id=node-b")
					.run { nodeB ->
						assertThat(nodeB).hasNotFailed()
						val job = nodeB.getBean(DirectJob::class.java)
						runBlocking { job.run() }
						assertThat(job.calls.get()).isZero()
						// the template skips the same way
						val template = nodeB.getBean(io.github.clustersingleton.ClusterSingletonTemplate::class.java)
						val ran = runBlocking { template.runIfAcquiredAndAwait(this@SuspendingClusterSingletonTests.job) { job.calls.incrementAndGet() } }
						assertThat(ran).isFalse()
						assertThat(job.calls.get()).isZero()
					}
			}
	}

	@ParameterizedTest
	@EnumSource(Store::class)
	fun twoNodesNeverRunOneSlot(store: Store) {
		val runs = Runs()
		val runner = store.configure(this.contextRunner).withBean(Runs::class.java, { runs }).withBean(SlowJob::class.java)
		runner.withPropertyValues("cluster-singleton.owner-id=node-a").run { nodeA ->
			assertThat(nodeA).hasNotFailed()
			runner.withPropertyValues("cluster-singleton.owner-id=node-b").run { nodeB ->
				assertThat(nodeB).hasNotFailed()
				await().atMost(Duration.ofSeconds(20)).until { runs.finished.size >= 4 }
			}
		}
		val finished = runs.finished.sortedBy { it.start }
		assertThat(finished.map { it.slot }).doesNotHaveDuplicates().doesNotContainNull()
		for (i in 1 until finished.size) {
			assertThat(finished[i].start).isAfterOrEqualTo(finished[i - 1].end)
			assertThat(finished[i].fencingToken).isGreaterThan(finished[i - 1].fencingToken)
		}
	}

	@Test
	fun cronOverrideReschedulesASuspendFunction() {
		Store.POSTGRES.configure(this.contextRunner).withBean(EverySecondJob::class.java).run { context ->
			assertThat(context).hasNotFailed()
			val job = context.getBean(EverySecondJob::class.java)
			await().atMost(Duration.ofSeconds(10)).until { job.runs.get() >= 1 }
			context.getBean(ClusterSingletonOperations::class.java).reschedule(this.job, "0 0 0 1 1 *")
			context.getBean(ClusterSingletonExecutor::class.java).pollControls()
			// the trigger already scheduled may fire once more; then none until January
			val seen = AtomicInteger(-1)
			await().atMost(Duration.ofSeconds(10))
				.during(Duration.ofMillis(2500))
				.until { seen.getAndSet(job.runs.get()) == job.runs.get() }
		}
	}

	@Test
	fun templateRunsSuspendingBlocksUnderTheLease() {
		Store.POSTGRES.configure(this.contextRunner).run { context ->
			assertThat(context).hasNotFailed()
			val template = context.getBean(io.github.clustersingleton.ClusterSingletonTemplate::class.java)
			val token = runBlocking {
				template.callIfAcquiredAndAwait(this@SuspendingClusterSingletonTests.job) {
					val before = clusterSingletonContext()
					delay(1500)
					withContext(Dispatchers.IO) {
						assertThat(clusterSingletonContext()).isSameAs(before)
						assertThat(ClusterSingletonContext.current()).isSameAs(before)
					}
					before.checkLease()
					before.fencingToken()
				}
			}
			assertThat(token).isNotNull().isPositive()
			assertThat(runBlocking { clusterSingletonContextOrNull() }).isNull()
			awaitReleased(context, this.job)
		}
	}

	@Test
	fun misfirePolicyOnASuspendFunctionIsRefusedAtStartup() {
		Store.POSTGRES.configure(this.contextRunner)
			.withBean(DirectJob::class.java)
			.withPropertyValues("cluster-singleton.jobs.${this.job}.misfire=run-once")
			.run { context ->
				assertThat(context).hasFailed()
				assertThat(causeOf(context.startupFailure, ClusterSingletonConfigurationException::class.java))
					.hasMessageContaining(this.job)
					.hasMessageContaining("cluster-singleton.jobs.${this.job}.misfire")
					.hasMessageContaining("suspend function")
			}
	}

	@Test
	fun suspendFunctionReturningAValueIsRefusedAtStartup() {
		Store.POSTGRES.configure(this.contextRunner).withBean(ValueJob::class.java).run { context ->
			assertThat(context).hasFailed()
			assertThat(causeOf(context.startupFailure, ClusterSingletonConfigurationException::class.java))
				.hasMessageContaining(this.job)
				.hasMessageContaining("suspend function returns a value")
		}
	}

	private fun assertCancelledByLostLease(cancellation: Throwable?) {
		assertThat(cancellation).isInstanceOf(CancellationException::class.java)
		// the cause, or the cause's cause where kotlinx.coroutines recovers stack traces
		// (assertions enabled, as in tests) by copying the exception
		assertThat(causeOf(cancellation, LeaseLostException::class.java)).hasMessageContaining(this.job)
	}

	private fun awaitReleased(context: AssertableApplicationContext, name: String) {
		val backend = context.getBean(LeaseBackend::class.java)
		await().atMost(Duration.ofSeconds(10))
			.until { backend.describe(name).map { !it.live() }.orElse(true) }
	}

	// open properties: the proxy of the bean passes their getters on to the target
	open class LongJob {

		open val contexts = CopyOnWriteArrayList<ClusterSingletonContext>()

		open val threadContextOnIo = AtomicReference<ClusterSingletonContext?>()

		open val validAtEnd = AtomicReference<Boolean>()

		open val failure = AtomicReference<Throwable?>()

		open val done = CountDownLatch(1)

		@Scheduled(fixedDelay = 60_000)
		@ClusterSingleton(name = "\${test.job}")
		open suspend fun run() {
			try {
				this.contexts.add(clusterSingletonContext())
				withContext(Dispatchers.IO) {
					this@LongJob.contexts.add(clusterSingletonContext())
					this@LongJob.threadContextOnIo.set(ClusterSingletonContext.current())
				}
				this.contexts.add(clusterSingletonContext())
				delay(3500)
				val context = clusterSingletonContext()
				this.contexts.add(context)
				context.checkLease()
				this.validAtEnd.set(context.isLeaseValid)
			}
			catch (ex: Throwable) {
				this.failure.set(ex)
				throw ex
			}
			finally {
				this.done.countDown()
			}
		}

	}

	open class NeverEndingJob {

		open val started = CountDownLatch(1)

		open val cancelled = CountDownLatch(1)

		open val cancellation = AtomicReference<Throwable?>()

		@Scheduled(fixedDelay = 60_000)
		@ClusterSingleton(name = "\${test.job}")
		open suspend fun run() {
			this.started.countDown()
			try {
				awaitCancellation()
			}
			catch (ex: CancellationException) {
				this.cancellation.set(ex)
				this.cancelled.countDown()
				throw ex
			}
		}

	}

	open class DirectJob {

		open val calls = AtomicInteger()

		@ClusterSingleton(name = "\${test.job}")
		open suspend fun run() {
			this.calls.incrementAndGet()
		}

	}

	open class ValueJob {

		@ClusterSingleton(name = "\${test.job}")
		open suspend fun run(): Int = 42

	}

	open class EverySecondJob {

		open val runs = AtomicInteger()

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@ClusterSingleton(name = "\${test.job}")
		open suspend fun run() {
			this.runs.incrementAndGet()
		}

	}

	class Run(val start: Instant, val end: Instant, val slot: Instant?, val fencingToken: Long)

	class Runs {

		val finished = CopyOnWriteArrayList<Run>()

	}

	open class SlowJob(private val runs: Runs) {

		@Scheduled(cron = "* * * * * *", zone = "UTC")
		@ClusterSingleton(name = "\${test.job}")
		open suspend fun run() {
			val context = clusterSingletonContext()
			val start = Instant.now()
			delay(1200)
			this.runs.finished.add(Run(start, Instant.now(), context.slot().orElse(null), context.fencingToken()))
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	open class SchedulingConfiguration

}
