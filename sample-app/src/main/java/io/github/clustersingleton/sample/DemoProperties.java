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

package io.github.clustersingleton.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the demo, under {@code demo.*}. The schedules of the jobs are placeholders
 * on their {@code @Scheduled} annotations ({@code demo.report-cron},
 * {@code demo.cleanup-delay}, {@code demo.export-cron}).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@ConfigurationProperties("demo")
public class DemoProperties {

	/**
	 * Name of this copy in the log lines. Defaults to 'node-' followed by the process id.
	 */
	private String node = "node-" + ProcessHandle.current().pid();

	/**
	 * How far this copy's clock (the Clock bean and the scheduler's clock) runs ahead of
	 * UTC; negative values run behind. Zero keeps the system clock.
	 */
	private Duration clockOffset = Duration.ZERO;

	/**
	 * Number of steps of one long-export run.
	 */
	private int exportSteps = 25;

	/**
	 * Duration of one long-export step.
	 */
	private Duration exportStep = Duration.ofSeconds(1);

	/**
	 * How long one billing run takes: long enough to kill the copy that runs it.
	 */
	private Duration billingDuration = Duration.ofSeconds(8);

	public Duration getBillingDuration() {
		return this.billingDuration;
	}

	public void setBillingDuration(Duration billingDuration) {
		this.billingDuration = billingDuration;
	}

	public String getNode() {
		return this.node;
	}

	public void setNode(String node) {
		this.node = node;
	}

	public Duration getClockOffset() {
		return this.clockOffset;
	}

	public void setClockOffset(Duration clockOffset) {
		this.clockOffset = clockOffset;
	}

	public int getExportSteps() {
		return this.exportSteps;
	}

	public void setExportSteps(int exportSteps) {
		this.exportSteps = exportSteps;
	}

	public Duration getExportStep() {
		return this.exportStep;
	}

	public void setExportStep(Duration exportStep) {
		this.exportStep = exportStep;
	}

}
