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

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.LeaseLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Records every run in the {@code cluster_ledger} table through plain JDBC connections,
 * independent of the lease store: a row when the run starts, completed when it ends.
 * <p>
 * The ledger lives on the same PostgreSQL server as the JDBC lease store, so it must
 * survive a restart of that server: no ledger write is ever dropped. Each write is tried
 * once from the run's thread; when that fails, it goes to a backlog that one writer
 * thread retries, in order, until it succeeds (and that is drained when the node shuts
 * down). The database's clock is only used for a write that succeeds on its first try
 * ({@code db_started} / {@code db_ended} = {@code clock_timestamp()}); a delayed write
 * stores the node's clock minus the node's known offset instead (the same host's clock)
 * and sets {@code db_started_derived} / {@code db_ended_derived}. Inserts carry a unique
 * {@code run_key}, so an insert retried after a commit whose answer was lost does not
 * record the run twice.
 * <p>
 * Connections are reused (a few are kept open): opening one per write made PostgreSQL
 * fork a backend for every ledger row, which on a small machine took CPU from the nodes
 * under test. A write that fails on a kept connection closes every kept one (after a
 * server restart they are all dead) and is tried once more on a new connection, so a
 * restart costs no more first-try writes than before.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class Ledger implements DisposableBean {

	private static final Log logger = LogFactory.getLog(Ledger.class);

	private static final Duration RETRY_DELAY = Duration.ofMillis(200);

	private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);

	/**
	 * How many idle connections are kept: about the number of runs of one node that write
	 * at the same moment.
	 */
	private static final int IDLE_CONNECTIONS = 8;

	private static final String INSERT = "INSERT INTO cluster_ledger (run_key, run_id, job, slot, node, fencing_token, "
			+ "started_at, db_started, db_started_derived, fire_time, attempt, run_trigger, missed_slots) "
			+ "VALUES (?, ?, ?, ?, ?, ?, ?, COALESCE(?, clock_timestamp()), ?, ?, ?, ?, ?) "
			+ "ON CONFLICT (run_key) DO UPDATE SET run_key = EXCLUDED.run_key RETURNING id";

	private static final String UPDATE = "UPDATE cluster_ledger SET ended_at = ?, lease_valid_at_end = ?, "
			+ "db_ended = COALESCE(?, clock_timestamp()), db_ended_derived = ?, failed = ?, lease_lost = ?, "
			+ "in_transaction = ?, txid = ? WHERE id = ?";

	private final String url;

	private final String runId;

	private final String nodeId;

	private final Clock clock;

	private final Duration clockOffset;

	private final int minSleepMillis;

	private final int maxSleepMillis;

	private final AtomicLong sequence = new AtomicLong();

	private final BlockingQueue<Runnable> backlog = new LinkedBlockingQueue<>();

	private final AtomicLong delayedWrites = new AtomicLong();

	private final BlockingQueue<Connection> idle = new ArrayBlockingQueue<>(IDLE_CONNECTIONS);

	private final Thread writer;

	private volatile boolean writing;

	public Ledger(@Value("${node.ledger-url}") String url, @Value("${node.run-id}") String runId,
			@Value("${node.id}") String nodeId, @Value("${node.clock-offset-ms:0}") long clockOffsetMillis,
			@Value("${node.min-sleep-ms:50}") int minSleepMillis, @Value("${node.max-sleep-ms:300}") int maxSleepMillis,
			Clock clock) {
		this.url = url;
		this.runId = runId;
		this.nodeId = nodeId;
		this.clock = clock;
		this.clockOffset = Duration.ofMillis(clockOffsetMillis);
		this.minSleepMillis = minSleepMillis;
		this.maxSleepMillis = maxSleepMillis;
		this.writer = new Thread(this::writeBacklog, "ledger-writer");
		this.writer.setDaemon(true);
		this.writer.start();
	}

	/**
	 * Run one guarded job: record the start, sleep a while, record the end with whether
	 * the lease was still valid.
	 */
	void run() {
		run(ThreadLocalRandom.current().nextInt(this.minSleepMillis, this.maxSleepMillis + 1), false);
	}

	/**
	 * Run one guarded job of the policy checks: record the start with what the context
	 * says (slot, attempt, trigger, fencing token, missed slots), sleep for the given
	 * time, record the end, and throw when asked to, after the end is recorded (as a
	 * failed run).
	 * @param sleepMillis how long the run takes
	 * @param fail whether the run throws at its end
	 */
	void run(long sleepMillis, boolean fail) {
		ClusterSingletonContext context = ClusterSingletonContext.current();
		Entry entry = entry(context);
		start(entry);
		try {
			Thread.sleep(sleepMillis);
		}
		catch (InterruptedException ex) {
			// the watchdog declared the lease lost and interrupted the run
			Thread.currentThread().interrupt();
		}
		Instant endedAt = this.clock.instant();
		boolean valid = context.isLeaseValid();
		// the row is completed later: a node paused right here reports its lease as it
		// was before the pause
		end(entry, endedAt, valid, fail, false);
		if (fail) {
			throw new IllegalStateException("planned failure of " + context.jobName() + " at slot "
					+ context.slot().orElse(null) + ", attempt " + context.attempt());
		}
	}

	/**
	 * Run one guarded job whose body is given: record the start, run the body, record the
	 * end with whether the lease was still valid, whether the body threw, and whether it
	 * threw {@link LeaseLostException} (from
	 * {@link ClusterSingletonContext#checkLease()}); then throw what the body threw.
	 * @param work the job's body, which may note what it saw in the row
	 */
	void record(Work work) {
		ClusterSingletonContext context = ClusterSingletonContext.current();
		Entry entry = entry(context);
		start(entry);
		RuntimeException thrown = null;
		boolean leaseLost = false;
		try {
			work.run(entry);
		}
		catch (LeaseLostException ex) {
			leaseLost = true;
			thrown = ex;
		}
		catch (RuntimeException ex) {
			thrown = ex;
		}
		catch (InterruptedException ex) {
			// interrupted without a lease loss (a shutdown): a failure of the run
			Thread.currentThread().interrupt();
			thrown = new IllegalStateException("interrupted", ex);
		}
		Instant endedAt = this.clock.instant();
		boolean valid = context.isLeaseValid();
		end(entry, endedAt, valid, thrown != null, leaseLost);
		if (thrown != null) {
			throw thrown;
		}
	}

	private Entry entry(ClusterSingletonContext context) {
		String missed = context.missedSlots().isEmpty() ? null
				: context.missedSlots().stream().map(Instant::toString).collect(Collectors.joining(","));
		return new Entry(this.runId + "/" + this.nodeId + "/" + this.sequence.incrementAndGet(), context.jobName(),
				context.slot().map(Timestamp::from).orElse(null), context.fencingToken(), this.clock.instant(),
				FireTimeRecordingTaskScheduler.current(), context.attempt(), context.trigger().name(), missed);
	}

	private void start(Entry entry) {
		if (this.backlog.isEmpty() && !this.writing) {
			try {
				insert(entry, null);
				return;
			}
			catch (SQLException ex) {
				logger.warn("Could not record the start of " + entry.job + " (" + entry.key
						+ "); retrying in the background: " + ex);
			}
		}
		// the start on the database's clock would be the moment of the delayed insert:
		// take the node's clock minus its offset instead (same host)
		Timestamp derived = Timestamp.from(entry.startedAt.minus(this.clockOffset));
		entry.delayed = true;
		defer(() -> insert(entry, derived));
	}

	private void end(Entry entry, Instant endedAt, boolean valid, boolean failed, boolean leaseLost) {
		if (!entry.delayed) {
			try {
				update(entry, endedAt, valid, failed, leaseLost, null);
				return;
			}
			catch (SQLException ex) {
				logger.warn("Could not record the end of " + entry.job + " (" + entry.key
						+ "); retrying in the background: " + ex);
			}
		}
		Timestamp derived = Timestamp.from(endedAt.minus(this.clockOffset));
		defer(() -> update(entry, endedAt, valid, failed, leaseLost, derived));
	}

	private void insert(Entry entry, Timestamp dbStarted) throws SQLException {
		withConnection((connection) -> insert(connection, entry, dbStarted));
	}

	private void insert(Connection connection, Entry entry, Timestamp dbStarted) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(INSERT)) {
			statement.setString(1, entry.key);
			statement.setString(2, this.runId);
			statement.setString(3, entry.job);
			statement.setTimestamp(4, entry.slot);
			statement.setString(5, this.nodeId);
			statement.setLong(6, entry.token);
			statement.setTimestamp(7, Timestamp.from(entry.startedAt));
			statement.setTimestamp(8, dbStarted);
			statement.setBoolean(9, dbStarted != null);
			statement.setTimestamp(10, (entry.fireTime != null) ? Timestamp.from(entry.fireTime) : null);
			statement.setInt(11, entry.attempt);
			statement.setString(12, entry.trigger);
			statement.setString(13, entry.missedSlots);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				entry.id = result.getLong(1);
			}
		}
	}

	private void update(Entry entry, Instant endedAt, boolean valid, boolean failed, boolean leaseLost,
			Timestamp dbEnded) throws SQLException {
		withConnection((connection) -> update(connection, entry, endedAt, valid, failed, leaseLost, dbEnded));
	}

	private void update(Connection connection, Entry entry, Instant endedAt, boolean valid, boolean failed,
			boolean leaseLost, Timestamp dbEnded) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(UPDATE)) {
			statement.setTimestamp(1, Timestamp.from(endedAt));
			statement.setBoolean(2, valid);
			statement.setTimestamp(3, dbEnded);
			statement.setBoolean(4, dbEnded != null);
			statement.setBoolean(5, failed);
			statement.setBoolean(6, leaseLost);
			statement.setObject(7, entry.inTransaction, Types.BOOLEAN);
			statement.setObject(8, entry.txid, Types.BIGINT);
			statement.setLong(9, entry.id);
			if (statement.executeUpdate() != 1) {
				throw new SQLException("ledger row " + entry.id + " (" + entry.key + ") not found");
			}
		}
	}

	/**
	 * Run one write on a kept connection, or on a new one. Both writes are safe to
	 * repeat: the insert finds its row by {@code run_key}, the update sets the same
	 * values.
	 */
	private void withConnection(SqlWork work) throws SQLException {
		Connection kept = this.idle.poll();
		if (kept != null) {
			try {
				work.run(kept);
				keep(kept);
				return;
			}
			catch (SQLException ex) {
				// the server may have restarted: no kept connection is to be trusted
				close(kept);
				Connection other;
				while ((other = this.idle.poll()) != null) {
					close(other);
				}
			}
		}
		Connection connection = connect();
		try {
			work.run(connection);
		}
		catch (SQLException | RuntimeException ex) {
			close(connection);
			throw ex;
		}
		keep(connection);
	}

	private void keep(Connection connection) {
		if (!this.idle.offer(connection)) {
			close(connection);
		}
	}

	private static void close(Connection connection) {
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// already broken
		}
	}

	private void defer(LedgerWrite write) {
		this.delayedWrites.incrementAndGet();
		this.backlog.add(() -> {
			boolean warned = false;
			while (true) {
				try {
					write.run();
					return;
				}
				catch (SQLException ex) {
					if (!warned) {
						logger.warn(
								"Ledger write still failing, retrying every " + RETRY_DELAY.toMillis() + " ms: " + ex);
						warned = true;
					}
				}
				try {
					Thread.sleep(RETRY_DELAY.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					logger.error("Ledger writer interrupted: a ledger write is lost");
					return;
				}
			}
		});
	}

	private void writeBacklog() {
		while (!Thread.currentThread().isInterrupted()) {
			try {
				Runnable write = this.backlog.poll(1, TimeUnit.SECONDS);
				if (write != null) {
					this.writing = true;
					try {
						write.run();
					}
					finally {
						this.writing = false;
					}
				}
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/**
	 * Wait until the backlog of delayed ledger writes is written, at most a minute.
	 */
	@Override
	public void destroy() throws InterruptedException {
		long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
		while ((!this.backlog.isEmpty() || this.writing) && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		if (!this.backlog.isEmpty() || this.writing) {
			logger.error(
					"Ledger backlog not written within " + DRAIN_TIMEOUT + ": " + this.backlog.size() + " writes lost");
		}
		else if (this.delayedWrites.get() > 0) {
			logger.info("Ledger: " + this.delayedWrites.get() + " delayed writes, all written");
		}
		this.writer.interrupt();
		Connection connection;
		while ((connection = this.idle.poll()) != null) {
			close(connection);
		}
	}

	private Connection connect() throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		properties.setProperty("ApplicationName", "ledger-" + this.runId);
		// a restarting server must not hang a write: fail it, and it is retried
		properties.setProperty("connectTimeout", "2");
		properties.setProperty("socketTimeout", "10");
		// an interrupt must not break the ledger write of a run that lost its lease
		boolean interrupted = Thread.interrupted();
		try {
			return DriverManager.getConnection(this.url, properties);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A ledger write that may fail.
	 */
	@FunctionalInterface
	private interface LedgerWrite {

		void run() throws SQLException;

	}

	/**
	 * The body of a run recorded by {@link #record}.
	 */
	@FunctionalInterface
	interface Work {

		void run(Notes notes) throws InterruptedException;

	}

	/**
	 * What a run's body saw, stored in its row at its end.
	 */
	interface Notes {

		/**
		 * Note whether the body ran inside a transaction.
		 * @param inTransaction whether it did
		 * @param txid the database's id of the transaction, or {@code null}
		 */
		void transaction(boolean inTransaction, Long txid);

	}

	/**
	 * A ledger statement on a given connection.
	 */
	@FunctionalInterface
	private interface SqlWork {

		void run(Connection connection) throws SQLException;

	}

	/**
	 * One run's ledger row.
	 */
	private static final class Entry implements Notes {

		private final String key;

		private final String job;

		private final Timestamp slot;

		private final long token;

		private final Instant startedAt;

		/** The fire time the scheduler meant the trigger for, on the node's clock. */
		private final Instant fireTime;

		/** The row's id, once inserted. */
		private volatile long id = -1;

		/** Whether the insert went to the backlog: the end must follow it there. */
		private volatile boolean delayed;

		/** What the context said: the attempt, the trigger and the other missed slots. */
		private final int attempt;

		private final String trigger;

		private final String missedSlots;

		/** Whether the body ran in a transaction, if it said. */
		private volatile Boolean inTransaction;

		/** The id of that transaction in the database, if known. */
		private volatile Long txid;

		@Override
		public void transaction(boolean inTransaction, Long txid) {
			this.inTransaction = inTransaction;
			this.txid = txid;
		}

		Entry(String key, String job, Timestamp slot, long token, Instant startedAt, Instant fireTime, int attempt,
				String trigger, String missedSlots) {
			this.attempt = attempt;
			this.trigger = trigger;
			this.missedSlots = missedSlots;
			this.key = key;
			this.job = job;
			this.slot = slot;
			this.token = token;
			this.startedAt = startedAt;
			this.fireTime = fireTime;
		}

	}

}
