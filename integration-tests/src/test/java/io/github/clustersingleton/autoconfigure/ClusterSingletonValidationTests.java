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

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.JobRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.causeOf;
import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the startup validation of {@code @ClusterSingleton} methods and
 * {@code cluster-singleton.*} properties done by
 * {@link ClusterSingletonAutoConfiguration}: every bad setting fails startup with a
 * message that names the job and the property or attribute at fault.
 *
 * @author cluster-singleton contributors
 */
class ClusterSingletonValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class))
		.with(h2());

	@Test
	void runWithValidJobShouldStart() {
		// the baseline of every failure below: the same setup with sane settings starts
		this.contextRunner.withBean(ValidJob.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWithUnparseableLockAtMostForShouldFail() {
		this.contextRunner.withBean(UnparseableLockAtMostForJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'unparseable'")
				.hasMessageContaining("@ClusterSingleton(lockAtMostFor)")
				.hasMessageContaining("\"abc\"")
				.hasMessageContaining("is not a duration"));
	}

	@Test
	void runWithLockAtLeastForLongerThanLockAtMostForShouldFail() {
		this.contextRunner.withBean(LockAtLeastForTooLongJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'atLeastTooLong'")
				.hasMessageContaining("@ClusterSingleton(lockAtLeastFor)")
				.hasMessageContaining("@ClusterSingleton(lockAtMostFor)")
				.hasMessageContaining("must not be longer than lockAtMostFor"));
	}

	@Test
	void runWithJobPropertyLockAtLeastForLongerThanLockAtMostForShouldFail() {
		this.contextRunner.withBean(ReportsJob.class)
			.withPropertyValues("cluster-singleton.jobs.reports.lock-at-least-for=1h")
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'reports'")
				.hasMessageContaining("cluster-singleton.jobs.reports.lock-at-least-for")
				.hasMessageContaining("must not be longer than lockAtMostFor"));
	}

	@Test
	void runWithJobPropertyThatIsNotADurationShouldFailNamingTheProperty() {
		this.contextRunner.withBean(ReportsJob.class)
			.withPropertyValues("cluster-singleton.jobs.reports.lock-at-most-for=soon")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), BindException.class))
					.hasMessageContaining("cluster-singleton.jobs.reports.lock-at-most-for");
			});
	}

	@Test
	void runWithAnUnknownMisfirePropertyShouldFailNamingTheProperty() {
		this.contextRunner.withBean(CronJob.class)
			.withPropertyValues("cluster-singleton.jobs.billing.misfire=sometimes")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOf(context.getStartupFailure(), BindException.class))
					.hasMessageContaining("cluster-singleton.jobs.billing.misfire");
			});
	}

	@Test
	void runWithAnUnknownRecoveryAttributeShouldFailNamingTheJobAndTheAttribute() {
		this.contextRunner.withBean(BadRecoveryJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'bad-recovery'")
				.hasMessageContaining("@ClusterSingleton(recovery) = \"lose\"")
				.hasMessageContaining("none, lost or failed"));
	}

	@Test
	void runWithZeroMaxAttemptsShouldFailNamingTheJobAndTheProperty() {
		this.contextRunner.withBean(CronJob.class)
			.withPropertyValues("cluster-singleton.jobs.billing.max-attempts=0")
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'billing'")
				.hasMessageContaining("cluster-singleton.jobs.billing.max-attempts")
				.hasMessageContaining("at least 1"));
	}

	@Test
	void runWithANegativeRetryDelayShouldFailNamingTheJobAndTheProperty() {
		this.contextRunner.withBean(CronJob.class)
			.withPropertyValues("cluster-singleton.jobs.billing.retry-delay=-1s")
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'billing'")
				.hasMessageContaining("cluster-singleton.jobs.billing.retry-delay"));
	}

	@Test
	void runWithARecoveryPolicyOnAJobWithoutCronShouldFailNamingTheJob() {
		this.contextRunner.withBean(FixedRateJob.class)
			.withPropertyValues("cluster-singleton.jobs.rate.recovery=lost")
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'rate'")
				.hasMessageContaining("cluster-singleton.jobs.rate.recovery")
				.hasMessageContaining("needs a @Scheduled(cron = ...) trigger"));
	}

	@Test
	void runWithDefaultPoliciesAppliesThemToCronJobsOnly() {
		this.contextRunner.withBean(CronJob.class)
			.withBean(FixedRateJob.class)
			.withPropertyValues("cluster-singleton.default-recovery=failed",
					"cluster-singleton.default-misfire=run-all", "cluster-singleton.jobs.billing.misfire-limit=4")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JobRegistry registry = context.getBean(JobRegistry.class);
				JobPolicies billing = registry.forName("billing").orElseThrow().policies();
				assertThat(billing.recovery()).isEqualTo(RecoveryPolicy.FAILED);
				assertThat(billing.misfire()).isEqualTo(MisfirePolicy.RUN_ALL);
				assertThat(billing.misfireLimit()).isEqualTo(4);
				assertThat(billing.alertAfter()).as("two periods of an hourly cron").isEqualTo(Duration.ofHours(2));
				JobPolicies rate = registry.forName("rate").orElseThrow().policies();
				assertThat(rate.recovery()).isEqualTo(RecoveryPolicy.NONE);
				assertThat(rate.misfire()).isEqualTo(MisfirePolicy.SKIP);
				assertThat(rate.alertAfter()).as("two periods of a fixed rate").isEqualTo(Duration.ofMinutes(10));
			});
	}

	@Test
	void runWithANonPositiveDefaultAlertAfterShouldFail() {
		this.contextRunner.withPropertyValues("cluster-singleton.default-alert-after=0s")
			.run((context) -> assertThat(configurationFailure(context))
				.hasMessageContaining("cluster-singleton.default-alert-after"));
	}

	@Test
	void runWithLeaseTtlBelowOneSecondShouldFail() {
		this.contextRunner.withBean(ValidJob.class)
			.withPropertyValues("cluster-singleton.lease-ttl=500ms")
			.run((context) -> assertThat(configurationFailure(context))
				.hasMessageContaining("cluster-singleton.lease-ttl")
				.hasMessageContaining("PT0.5S"));
	}

	@Test
	void runWithLeaseTtlNotBelowLockAtMostForOfAJobShouldFail() {
		this.contextRunner.withBean(ReportsJob.class)
			.withPropertyValues("cluster-singleton.lease-ttl=10m")
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'reports'")
				.hasMessageContaining("cluster-singleton.lease-ttl")
				.hasMessageContaining("@ClusterSingleton(lockAtMostFor)"));
	}

	@Test
	void runWithLeaseTtlEqualToLockAtMostForOfAJobShouldFail() {
		this.contextRunner.withBean(ReportsJob.class)
			.withPropertyValues("cluster-singleton.lease-ttl=5m")
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'reports'")
				.hasMessageContaining("cluster-singleton.lease-ttl"));
	}

	@Test
	void runWithLeaseTtlNotBelowDefaultLockAtMostForShouldFail() {
		this.contextRunner.withPropertyValues("cluster-singleton.lease-ttl=1h")
			.run((context) -> assertThat(configurationFailure(context))
				.hasMessageContaining("cluster-singleton.default-lock-at-most-for")
				.hasMessageContaining("cluster-singleton.lease-ttl"));
	}

	@Test
	void runWithUnparseableLeaseTtlShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("cluster-singleton.lease-ttl=xyz").run((context) -> {
			assertThat(context).hasFailed();
			BindException ex = causeOf(context.getStartupFailure(), BindException.class);
			assertThat(ex.getName()).hasToString("cluster-singleton.lease-ttl");
			assertThat(ex.getProperty()).isNotNull();
			assertThat(ex.getProperty().getName()).hasToString("cluster-singleton.lease-ttl");
			assertThat(ex.getProperty().getValue()).isEqualTo("xyz");
		});
	}

	@Test
	void runWithTwoMethodsSharingAJobNameShouldFail() {
		this.contextRunner.withBean(SharedNameJobA.class)
			.withBean(SharedNameJobB.class)
			.run((context) -> assertThat(configurationFailure(context))
				.hasMessageContaining("Duplicate cluster-singleton job name 'shared'")
				.hasMessageContaining(SharedNameJobA.class.getName() + ".run()")
				.hasMessageContaining(SharedNameJobB.class.getName() + ".execute()"));
	}

	@Test
	void runWithTwoBeansOfOneJobClassShouldStart() {
		// one method, two beans: one job, not a duplicate
		this.contextRunner.withBean("first", ValidJob.class)
			.withBean("second", ValidJob.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWithPrivateMethodShouldFail() {
		this.contextRunner.withBean(PrivateMethodJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'privateJob'")
				.hasMessageContaining(PrivateMethodJob.class.getName() + ".run()")
				.hasMessageContaining("the method is private"));
	}

	@Test
	void runWithFinalMethodShouldFail() {
		this.contextRunner.withBean(FinalMethodJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'finalJob'")
				.hasMessageContaining("the method is final"));
	}

	@Test
	void runWithStaticMethodShouldFail() {
		this.contextRunner.withBean(StaticMethodJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'staticJob'")
				.hasMessageContaining("the method is static"));
	}

	@Test
	void runWithMethodReturningAValueShouldFail() {
		this.contextRunner.withBean(ValueReturningJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'valueJob'")
				.hasMessageContaining("returns java.lang.String")
				.hasMessageContaining("Make it return void"));
	}

	@Test
	void runWithMethodOfFinalClassShouldFail() {
		this.contextRunner.withBean(FinalClassJob.class)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'finalClassJob'")
				.hasMessageContaining("the class " + FinalClassJob.class.getName() + " is final"));
	}

	@Test
	void runWithJobNameLongerThanTheJdbcColumnShouldFail() {
		String name = "n".repeat(JdbcLeaseBackend.MAX_JOB_NAME_LENGTH + 1);
		this.contextRunner.withBean(PlaceholderNameJob.class)
			.withPropertyValues("test.job-name=" + name)
			.run((context) -> assertThat(configurationFailure(context)).hasMessageContaining("'" + name + "'")
				.hasMessageContaining("jdbc lease store cannot hold this name")
				.hasMessageContaining(String.valueOf(JdbcLeaseBackend.MAX_JOB_NAME_LENGTH)));
	}

	@Test
	void runWithJobNameOfTheJdbcColumnLengthShouldStart() {
		this.contextRunner.withBean(PlaceholderNameJob.class)
			.withPropertyValues("test.job-name=" + "n".repeat(JdbcLeaseBackend.MAX_JOB_NAME_LENGTH))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWithUnresolvableNamePlaceholderShouldFail() {
		this.contextRunner.withBean(PlaceholderNameJob.class)
			.run((context) -> assertThat(configurationFailure(context))
				.hasMessageContaining(PlaceholderNameJob.class.getName() + ".run()")
				.hasMessageContaining("${test.job-name}"));
	}

	@Test
	void runWithInvalidJdbcTableNameShouldFail() {
		this.contextRunner.withPropertyValues("cluster-singleton.jdbc.table-name=bad-name;drop")
			.run((context) -> assertThat(configurationFailure(context))
				.hasMessageContaining("cluster-singleton.jdbc.table-name")
				.hasMessageContaining("'bad-name;drop'"));
	}

	private static ClusterSingletonConfigurationException configurationFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		return causeOf(context.getStartupFailure(), ClusterSingletonConfigurationException.class);
	}

	static class ValidJob {

		@ClusterSingleton(name = "valid", lockAtMostFor = "5m", lockAtLeastFor = "1m")
		public void run() {
		}

	}

	static class UnparseableLockAtMostForJob {

		@ClusterSingleton(name = "unparseable", lockAtMostFor = "abc")
		public void run() {
		}

	}

	static class LockAtLeastForTooLongJob {

		@ClusterSingleton(name = "atLeastTooLong", lockAtMostFor = "5m", lockAtLeastFor = "10m")
		public void run() {
		}

	}

	static class CronJob {

		@Scheduled(cron = "0 0 * * * *", zone = "UTC")
		@ClusterSingleton(name = "billing", lockAtMostFor = "5m")
		public void run() {
		}

	}

	static class FixedRateJob {

		@Scheduled(fixedRate = 5, timeUnit = TimeUnit.MINUTES)
		@ClusterSingleton(name = "rate", lockAtMostFor = "5m")
		public void run() {
		}

	}

	static class BadRecoveryJob {

		@Scheduled(cron = "0 0 * * * *", zone = "UTC")
		@ClusterSingleton(name = "bad-recovery", lockAtMostFor = "5m", recovery = "lose")
		public void run() {
		}

	}

	static class ReportsJob {

		@ClusterSingleton(name = "reports", lockAtMostFor = "5m")
		public void run() {
		}

	}

	static class SharedNameJobA {

		@ClusterSingleton(name = "shared")
		public void run() {
		}

	}

	static class SharedNameJobB {

		@ClusterSingleton(name = "shared")
		public void execute() {
		}

	}

	static class PrivateMethodJob {

		@ClusterSingleton(name = "privateJob")
		private void run() {
		}

	}

	static class FinalMethodJob {

		@ClusterSingleton(name = "finalJob")
		public final void run() {
		}

	}

	static class StaticMethodJob {

		@ClusterSingleton(name = "staticJob")
		public static void run() {
		}

	}

	static class ValueReturningJob {

		@ClusterSingleton(name = "valueJob")
		public String run() {
			return "done";
		}

	}

	static final class FinalClassJob {

		@ClusterSingleton(name = "finalClassJob")
		public void run() {
		}

	}

	static class PlaceholderNameJob {

		@ClusterSingleton(name = "${test.job-name}")
		public void run() {
		}

	}

}
