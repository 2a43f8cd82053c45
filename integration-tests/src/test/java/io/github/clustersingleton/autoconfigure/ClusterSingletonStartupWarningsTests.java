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

import java.nio.file.Path;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.scheduling.annotation.Scheduled;

import static io.github.clustersingleton.autoconfigure.ClusterSingletonTestSupport.h2;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup warnings about setups that look fine on one node and do not exclude
 * anything across nodes: a lease table in an H2 database only this JVM can open, and a
 * cron trigger whose slots depend on each node's default time zone.
 *
 * @author cluster-singleton contributors
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterSingletonStartupWarningsTests {

	private static final String PRIVATE_DATABASE = "which only this JVM can open";

	private static final String NO_ZONE = "has a cron trigger without a zone";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ClusterSingletonAutoConfiguration.class, JdbcLeaseAutoConfiguration.class));

	@Test
	void leasesInAnInMemoryH2DatabaseAreWarnedAbout(CapturedOutput output) {
		this.contextRunner.with(h2()).withBean(ZonedJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains(PRIVATE_DATABASE).contains("jdbc:h2:mem:");
		});
	}

	@Test
	void leasesInAnH2FileOtherJvmsCanOpenAreNotWarnedAbout(CapturedOutput output, @TempDir Path directory) {
		String url = "jdbc:h2:file:" + directory.resolve("leases").toAbsolutePath() + ";AUTO_SERVER=TRUE";
		this.contextRunner.with(h2(url)).withBean(ZonedJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain(PRIVATE_DATABASE);
		});
	}

	@Test
	void aCronTriggerWithoutAZoneIsWarnedAboutOnceNamingTheJob(CapturedOutput output) {
		this.contextRunner.with(h2()).withBean(ZonelessJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(ZonelessJob.class).run();
			context.getBean(ZonelessJob.class).run();
			assertThat(output.toString().split(NO_ZONE, -1)).hasSize(2);
			assertThat(output)
				.contains("cluster-singleton job 'zoneless' (" + ZonelessJob.class.getName()
						+ ".run()) has a cron trigger without a zone")
				.doesNotContain("cluster-singleton cluster-singleton");
		});
	}

	@Test
	void aCronTriggerWithAZoneIsNotWarnedAbout(CapturedOutput output) {
		this.contextRunner.with(h2()).withBean(ZonedJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(ZonedJob.class).run();
			assertThat(output).doesNotContain(NO_ZONE);
		});
	}

	static class ZonelessJob {

		@Scheduled(cron = "0 0 0 1 1 *")
		@ClusterSingleton(name = "zoneless")
		public void run() {
		}

	}

	static class ZonedJob {

		@Scheduled(cron = "0 0 0 1 1 *", zone = "UTC")
		@ClusterSingleton(name = "zoned")
		public void run() {
		}

	}

}
