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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.LeaseLostException;
import io.github.clustersingleton.RunTrigger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The three demo jobs. Each one runs on every node's scheduler, but
 * {@link ClusterSingleton @ClusterSingleton} lets only the node holding the job's lease
 * into the method body; the others skip that trigger.
 * <ul>
 * <li>{@code report}: a cron job; each cron slot runs once in the cluster.</li>
 * <li>{@code cleanup}: a fixed-delay job, with no slot; {@code lockAtLeastFor} keeps two
 * nodes from running it back to back.</li>
 * <li>{@code long-export}: runs longer than the lease TTL, so it only survives because
 * the watchdog renews the lease while it runs.</li>
 * <li>{@code billing}: a cron job with {@code recovery: lost} (set in
 * {@code application.yaml}): kill the copy that runs it ({@code kill -9}) and another
 * copy runs the same slot again, with {@code attempt=2 trigger=RECOVERY} in its log.</li>
 * </ul>
 * {@code report} has {@code misfire: run-once}: stop every copy for a while, start one,
 * and it runs one catch-up for the slots nobody ran.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class DemoJobs {

	private static final Log logger = LogFactory.getLog(DemoJobs.class);

	/**
	 * How often long-export logs its progress, in steps.
	 */
	private static final int PROGRESS_EVERY = 5;

	private final DemoProperties properties;

	private final RunLog runLog;

	private final Clock clock;

	public DemoJobs(DemoProperties properties, RunLog runLog, ObjectProvider<Clock> clock) {
		this.properties = properties;
		this.runLog = runLog;
		// the same clock the library reads, skewed when demo.clock-offset is set
		this.clock = clock.getIfUnique(Clock::systemUTC);
	}

	/**
	 * Log that this copy is up, with the port of its actuator endpoints and its clock
	 * offset when it has one.
	 * @param event the event
	 */
	@EventListener(ApplicationReadyEvent.class)
	public void ready(ApplicationReadyEvent event) {
		Duration offset = this.properties.getClockOffset();
		String port = event.getApplicationContext().getEnvironment().getProperty("local.server.port");
		logger.info("[" + node() + "] ready" + ((port != null) ? " on http://localhost:" + port + "/actuator" : "")
				+ (offset.isZero() ? "" : ", clock offset " + offset));
	}

	/**
	 * A short cron job: one run per cron slot, on one node.
	 */
	@Scheduled(cron = "${demo.report-cron:*/5 * * * * *}", zone = "UTC")
	@ClusterSingleton(name = "report")
	public void report() {
		ClusterSingletonContext run = ClusterSingletonContext.current();
		Instant startedAt = this.clock.instant();
		logger.info(describe(run));
		record(run, startedAt);
	}

	/**
	 * A billing run that takes a while and must not be lost: with {@code recovery: lost},
	 * a slot whose run dies with its node runs again on another node, with the same slot
	 * (use it as the idempotency key of what the run writes) and a higher fencing token.
	 */
	@Scheduled(cron = "${demo.billing-cron:*/30 * * * * *}", zone = "UTC")
	@ClusterSingleton(name = "billing")
	public void billing() {
		ClusterSingletonContext run = ClusterSingletonContext.current();
		Instant startedAt = this.clock.instant();
		Duration duration = this.properties.getBillingDuration();
		logger.info(describe(run) + "  billing started, takes " + format(duration));
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			logger.warn("[" + node() + "] billing interrupted, leaseValid=" + run.isLeaseValid());
			return;
		}
		logger.info(describe(run) + "  billing done");
		record(run, startedAt);
	}

	/**
	 * A fixed-delay job: no slot, only the lease and {@code lockAtLeastFor}.
	 */
	@Scheduled(fixedDelayString = "${demo.cleanup-delay:3s}")
	@ClusterSingleton(name = "cleanup", lockAtLeastFor = "2s")
	public void cleanup() {
		ClusterSingletonContext run = ClusterSingletonContext.current();
		Instant startedAt = this.clock.instant();
		logger.info(describe(run));
		record(run, startedAt);
	}

	/**
	 * A job that runs longer than the lease TTL, in small steps. It checks its lease
	 * between steps so that it would stop early if the lease were lost (store
	 * unreachable, lockAtMostFor reached).
	 */
	@Scheduled(cron = "${demo.export-cron:0 * * * * *}", zone = "UTC")
	@ClusterSingleton(name = "long-export", lockAtMostFor = "5m")
	public void longExport() {
		ClusterSingletonContext run = ClusterSingletonContext.current();
		Instant startedAt = this.clock.instant();
		long started = System.nanoTime();
		int steps = this.properties.getExportSteps();
		Duration step = this.properties.getExportStep();
		logger.info(describe(run) + "  started: " + steps + " steps of " + format(step));
		for (int i = 1; i <= steps; i++) {
			try {
				run.checkLease();
				Thread.sleep(step.toMillis());
			}
			catch (LeaseLostException ex) {
				logger.warn("[" + node() + "] long-export stopped before step " + i + ": " + ex.getMessage());
				return;
			}
			catch (InterruptedException ex) {
				// the lease was lost and the library interrupted us, or the application
				// stops
				Thread.currentThread().interrupt();
				logger.warn(
						"[" + node() + "] long-export interrupted in step " + i + ", leaseValid=" + run.isLeaseValid());
				return;
			}
			if (i % PROGRESS_EVERY == 0 && i < steps) {
				logger.info("[" + node() + "] long-export step " + i + "/" + steps + " elapsed="
						+ format(Duration.ofNanos(System.nanoTime() - started)) + " leaseValid=" + run.isLeaseValid());
			}
		}
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		logger.info("[" + node() + "] long-export done after " + format(took) + " token=" + run.fencingToken()
				+ " leaseValid=" + run.isLeaseValid());
		this.runLog.add(new RunLog.Run(run.jobName(), node(), run.slot().orElse(null), run.fencingToken(), startedAt,
				took, run.isLeaseValid()));
	}

	private void record(ClusterSingletonContext run, Instant startedAt) {
		this.runLog.add(new RunLog.Run(run.jobName(), node(), run.slot().orElse(null), run.fencingToken(), startedAt,
				Duration.between(startedAt, this.clock.instant()), run.isLeaseValid()));
	}

	private String describe(ClusterSingletonContext run) {
		String slot = run.slot().map(Instant::toString).orElse("-");
		String recovery = (run.trigger() == RunTrigger.SCHEDULED && run.attempt() == 1) ? ""
				: " attempt=" + run.attempt() + " trigger=" + run.trigger()
						+ (run.missedSlots().isEmpty() ? "" : " missedSlots=" + run.missedSlots());
		return String.format(Locale.ROOT, "[%s] %-11s slot=%-20s token=%d%s", node(), run.jobName(), slot,
				run.fencingToken(), recovery);
	}

	private String node() {
		return this.properties.getNode();
	}

	private static String format(Duration duration) {
		return String.format(Locale.ROOT, "%.1fs", duration.toMillis() / 1000.0);
	}

}
