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
package io.github.clustersingleton.cluster.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * An application written as a user would write it, with only the starter's public API and
 * properties ({@code leader-app.properties}): leader mode on, a reactive
 * {@code @Scheduled @ClusterSingleton} job and {@code ClusterSingletonTemplate} calls
 * from an unguarded fixed-rate method ({@link AppJobs}), every run recorded in the
 * {@code leader_app_ledger} table ({@link AppLedger}).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@SpringBootApplication
@EnableScheduling
public class LeaderApp {

	public static void main(String[] args) {
		new SpringApplicationBuilder(LeaderApp.class).properties("spring.config.name=leader-app").run(args);
	}

}
