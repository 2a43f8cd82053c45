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

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The guarded jobs: {@value #MAX_JOBS} distinct every-second cron methods (one job name
 * each, prefixed with the harness's run id so that runs never share a lease). Generated
 * text; {@code node.jobs} decides how many are enabled. Besides them, the policy jobs
 * ({@link #LOST}, {@link #FAILED}, {@link #RUN_ONCE}, {@link #RUN_ALL}, {@link #CHECKED},
 * {@link #OVERRUN}, {@link #TRANSACTIONAL}), disabled unless the harness gives them a
 * cron expression ({@code node.cron.<suffix>}); their misfire and recovery policies come
 * only from {@code cluster-singleton.jobs[<name>].*} properties.
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
	 * The name suffix of the policy job that works in small units and calls
	 * {@link ClusterSingletonContext#checkLease()} between them ({@code recovery: lost}
	 * in the harness). A run takes 5 to 20 units, 1 to 4 s with the default unit, often
	 * longer than the lease TTL: a pause, a kill or a store outage of its node ends it
	 * with {@link io.github.clustersingleton.LeaseLostException}.
	 */
	public static final String CHECKED = "checked";

	/**
	 * The name suffix of the policy job whose first attempt of every other slot overruns
	 * its {@code lockAtMostFor} ({@code recovery: lost} and a short
	 * {@code lock-at-most-for} in the harness): it calls
	 * {@link ClusterSingletonContext#checkLease()} in a loop until that throws. Later
	 * attempts, and the other slots, take 100 ms.
	 */
	public static final String OVERRUN = "overrun";

	/**
	 * The name suffix of the {@code @Transactional} policy job ({@code misfire: run-all}
	 * and {@code recovery: lost} in the harness, so that catch-up and recovery sequences
	 * run it several times under one claim). Each run records whether a transaction was
	 * active and the database's id of it.
	 */
	public static final String TRANSACTIONAL = "transactional";

	/**
	 * How long a run of a policy job takes, except the ones of {@link #LOST},
	 * {@link #CHECKED} and an overrunning {@link #OVERRUN}.
	 */
	private static final long POLICY_RUN_MILLIS = 100;

	/**
	 * How long an overrunning attempt of {@link #OVERRUN} waits for its lease loss at
	 * most: if {@code checkLease()} has not thrown by then, the run returns and the
	 * harness reports it.
	 */
	private static final Duration OVERRUN_GIVE_UP = Duration.ofSeconds(15);

	private final Ledger ledger;

	private final long lostRunMillis;

	private final long unitMillis;

	private final JdbcTemplate transactionJdbc;

	public NodeJobs(Ledger ledger, @Value("${node.lost-run-ms:4000}") long lostRunMillis,
			@Value("${node.checked-unit-ms:200}") long unitMillis,
			@Qualifier(NodeApplication.TRANSACTION_MANAGER) DataSourceTransactionManager transactionManager) {
		this.ledger = ledger;
		this.lostRunMillis = lostRunMillis;
		this.unitMillis = unitMillis;
		this.transactionJdbc = new JdbcTemplate(transactionManager.getDataSource());
	}

	/**
	 * Whether the first attempt of a slot of the {@link #OVERRUN} job overruns its
	 * {@code lockAtMostFor}: for every slot whose epoch second is a multiple of 20, every
	 * other slot of a job that runs every 10 seconds.
	 * @param slot the slot
	 * @return whether its first attempt overruns
	 */
	public static boolean overrunsFirstAttempt(Instant slot) {
		return slot.getEpochSecond() % 20 == 0;
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

	/**
	 * Work in small units, checking the lease between them (the documented pattern for
	 * long runs): a lease lost mid-run ends the run with {@code LeaseLostException}.
	 */
	@Scheduled(cron = "${node.cron.checked:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + CHECKED)
	public void checked() {
		int units = ThreadLocalRandom.current().nextInt(5, 21);
		this.ledger.record((notes) -> {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			for (int unit = 0; unit < units; unit++) {
				context.checkLease();
				unitOfWork(context, this.unitMillis);
			}
			context.checkLease();
		});
	}

	/**
	 * Overrun {@code lockAtMostFor} on attempt 1 of every other slot, checking the lease
	 * all along; otherwise a short run.
	 */
	@Scheduled(cron = "${node.cron.overrun:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + OVERRUN)
	public void overrun() {
		this.ledger.record((notes) -> {
			ClusterSingletonContext context = ClusterSingletonContext.current();
			boolean overrun = context.attempt() == 1
					&& context.slot().map(NodeJobs::overrunsFirstAttempt).orElse(false);
			long until = System.nanoTime() + (overrun ? OVERRUN_GIVE_UP.toNanos() : POLICY_RUN_MILLIS * 1_000_000);
			while (System.nanoTime() < until) {
				context.checkLease();
				unitOfWork(context, Math.min(50, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
			}
			context.checkLease();
		});
	}

	/**
	 * One unit of work: a sleep. The watchdog interrupts a run whose lease it declared
	 * lost; then {@code checkLease()} says so.
	 */
	private static void unitOfWork(ClusterSingletonContext context, long millis) throws InterruptedException {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			context.checkLease();
			throw ex;
		}
	}

	/**
	 * A {@code @Transactional} job: its row says whether a transaction was active and
	 * which one (PostgreSQL's {@code txid_current()} on the transaction's connection).
	 */
	@Scheduled(cron = "${node.cron.transactional:-}", zone = "UTC")
	@ClusterSingleton(name = "${node.run-id}-" + TRANSACTIONAL)
	@Transactional(transactionManager = NodeApplication.TRANSACTION_MANAGER)
	public void transactional() {
		this.ledger.record((notes) -> {
			boolean active = TransactionSynchronizationManager.isActualTransactionActive();
			Long txid = null;
			if (active) {
				try {
					txid = this.transactionJdbc.queryForObject("SELECT txid_current()", Long.class);
				}
				catch (DataAccessException ex) {
					// the database is away (a restart): the row keeps what it knows
				}
			}
			notes.transaction(active, txid);
			Thread.sleep(POLICY_RUN_MILLIS);
		});
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
