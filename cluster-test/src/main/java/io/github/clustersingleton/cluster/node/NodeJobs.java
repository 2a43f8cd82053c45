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

package io.github.clustersingleton.cluster.node;

import java.time.Instant;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The guarded jobs: {@value #MAX_JOBS} distinct every-second cron methods (one job name
 * each, prefixed with the harness's run id so that runs never share a lease). Generated
 * text; {@code node.jobs} decides how many are enabled. Besides them, four policy jobs
 * ({@link #LOST}, {@link #FAILED}, {@link #RUN_ONCE}, {@link #RUN_ALL}), disabled unless
 * the harness gives them a cron expression ({@code node.cron.<suffix>}); their misfire
 * and recovery policies come only from {@code cluster-singleton.jobs[<name>].*}
 * properties.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class NodeJobs {

	/**
	 * How many job methods exist.
	 */
	public static final int MAX_JOBS = 50;

	/**
	 * The name suffix of the policy job whose runs take longer than the lease TTL, so
	 * that its holder can be killed mid-run ({@code recovery: lost} in the harness).
	 */
	public static final String LOST = "lost";

	/**
	 * The name suffix of the policy job that throws on the first attempt of every other
	 * slot ({@code recovery: failed} in the harness).
	 */
	public static final String FAILED = "failed";

	/** The name suffix of the {@code misfire: run-once} policy job. */
	public static final String RUN_ONCE = "run-once";

	/** The name suffix of the {@code misfire: run-all} policy job. */
	public static final String RUN_ALL = "run-all";

	/**
	 * How long a run of a policy job takes, except the one of {@link #LOST}.
	 */
	private static final long POLICY_RUN_MILLIS = 100;

	private final Ledger ledger;

	private final long lostRunMillis;

	public NodeJobs(Ledger ledger, @Value("${node.lost-run-ms:4000}") long lostRunMillis) {
		this.ledger = ledger;
		this.lostRunMillis = lostRunMillis;
	}

	/**
	 * Whether the first attempt of a slot of the {@link #FAILED} job throws: for every
	 * slot whose epoch second is a multiple of 8, every other slot of a job that runs
	 * every 4 seconds. Later attempts succeed.
	 * @param slot the slot
	 * @return whether its first attempt fails
	 */
	public static boolean failsFirstAttempt(Instant slot) {
		return slot.getEpochSecond() % 8 == 0;
	}

	/**
	 * Policies set only through properties:
	 * {@code cluster-singleton.jobs[<run id>-lost]}.
	 */
	@Scheduled(cron = "${node.cron.lost:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + LOST)
	public void lost() {
		this.ledger.run(this.lostRunMillis, false);
	}

	@Scheduled(cron = "${node.cron.failed:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + FAILED)
	public void failed() {
		ClusterSingletonContext context = ClusterSingletonContext.current();
		boolean fail = context.attempt() == 1 && context.slot().map(NodeJobs::failsFirstAttempt).orElse(false);
		this.ledger.run(POLICY_RUN_MILLIS, fail);
	}

	@Scheduled(cron = "${node.cron.run-once:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + RUN_ONCE)
	public void runOnce() {
		this.ledger.run(POLICY_RUN_MILLIS, false);
	}

	@Scheduled(cron = "${node.cron.run-all:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + RUN_ALL)
	public void runAll() {
		this.ledger.run(POLICY_RUN_MILLIS, false);
	}

	@Scheduled(cron = "${node.cron.job00}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job00")
	public void job00() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job01}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job01")
	public void job01() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job02}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job02")
	public void job02() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job03}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job03")
	public void job03() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job04}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job04")
	public void job04() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job05}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job05")
	public void job05() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job06}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job06")
	public void job06() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job07}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job07")
	public void job07() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job08}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job08")
	public void job08() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job09}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job09")
	public void job09() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job10}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job10")
	public void job10() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job11}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job11")
	public void job11() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job12}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job12")
	public void job12() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job13}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job13")
	public void job13() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job14}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job14")
	public void job14() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job15}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job15")
	public void job15() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job16}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job16")
	public void job16() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job17}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job17")
	public void job17() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job18}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job18")
	public void job18() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job19}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job19")
	public void job19() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job20}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job20")
	public void job20() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job21}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job21")
	public void job21() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job22}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job22")
	public void job22() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job23}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job23")
	public void job23() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job24}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job24")
	public void job24() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job25}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job25")
	public void job25() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job26}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job26")
	public void job26() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job27}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job27")
	public void job27() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job28}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job28")
	public void job28() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job29}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job29")
	public void job29() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job30}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job30")
	public void job30() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job31}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job31")
	public void job31() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job32}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job32")
	public void job32() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job33}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job33")
	public void job33() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job34}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job34")
	public void job34() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job35}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job35")
	public void job35() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job36}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job36")
	public void job36() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job37}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job37")
	public void job37() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job38}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job38")
	public void job38() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job39}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job39")
	public void job39() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job40}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job40")
	public void job40() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job41}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job41")
	public void job41() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job42}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job42")
	public void job42() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job43}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job43")
	public void job43() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job44}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job44")
	public void job44() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job45}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job45")
	public void job45() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job46}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job46")
	public void job46() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job47}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job47")
	public void job47() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job48}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job48")
	public void job48() {
		this.ledger.run();
	}

	@Scheduled(cron = "${node.cron.job49}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-job49")
	public void job49() {
		this.ledger.run();
	}

}
