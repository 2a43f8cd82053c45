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
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of cluster-singleton. Backend-specific keys live in their
 * backends' property classes ({@code cluster-singleton.jdbc.*}, ...).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@ConfigurationProperties("cluster-singleton")
public class ClusterSingletonProperties {

	/**
	 * Whether to guard @ClusterSingleton methods. When disabled, the methods run
	 * unguarded on every node.
	 */
	private boolean enabled = true;

	/**
	 * Lease store to use. 'auto' picks the one store whose client bean exists.
	 */
	private Backend backend = Backend.AUTO;

	/**
	 * Identity of this node in the lease store. Defaults to 'hostname:pid:random'.
	 */
	private @Nullable String ownerId;

	/**
	 * Time to live of a lease between two renewals; the watchdog renews every third of
	 * it. A crashed node's job is taken over after at most this long. If a duration
	 * suffix is not specified, milliseconds will be used.
	 */
	private Duration leaseTtl = Duration.ofSeconds(30);

	/**
	 * Hard cap of one run's lease for jobs that set no lockAtMostFor: the watchdog stops
	 * renewing after it and the run is interrupted. If a duration suffix is not
	 * specified, milliseconds will be used.
	 */
	private Duration defaultLockAtMostFor = Duration.ofMinutes(30);

	/**
	 * Minimum time a lease is kept after its acquisition, for jobs that set no
	 * lockAtLeastFor. If a duration suffix is not specified, milliseconds will be used.
	 */
	private Duration defaultLockAtLeastFor = Duration.ZERO;

	/**
	 * How early a cron trigger may fire and still own the next cron fire time as its
	 * slot. If a duration suffix is not specified, milliseconds will be used.
	 */
	private Duration slotTolerance = Duration.ofSeconds(1);

	/**
	 * Whether to interrupt the thread of a run that lost its lease.
	 */
	private boolean interruptOnLeaseLoss = true;

	/**
	 * Per-job settings, by job name, winning over the @ClusterSingleton attributes. Use
	 * brackets for names with dots, as in 'cluster-singleton.jobs[Billing.bill].enabled'.
	 */
	private Map<String, JobProperties> jobs = new LinkedHashMap<>();

	/**
	 * What happens to cron slots that no node claimed, for jobs that set no misfire
	 * policy: 'skip' leaves them, 'run-once' runs one catch-up for all of them, 'run-all'
	 * runs each (up to the misfire limit).
	 */
	private MisfirePolicy defaultMisfire = MisfirePolicy.SKIP;

	/**
	 * How many missed slots 'run-all' runs at most (the newest), for jobs that set no
	 * limit.
	 */
	private int defaultMisfireLimit = 10;

	/**
	 * Whether a slot whose run did not end well runs again, for jobs that set no recovery
	 * policy: 'none', 'lost' (the run died with its node or lost its lease) or 'failed'
	 * (also when it threw).
	 */
	private RecoveryPolicy defaultRecovery = RecoveryPolicy.NONE;

	/**
	 * How many attempts a slot gets at most under recovery, the first included, for jobs
	 * that set no limit.
	 */
	private int defaultMaxAttempts = 3;

	/**
	 * How long after a failed attempt the next one may start, for jobs that set no retry
	 * delay. If a duration suffix is not specified, milliseconds will be used.
	 */
	private Duration defaultRetryDelay = Duration.ofSeconds(10);

	/**
	 * How long without a successful run anywhere in the cluster makes a job overdue, for
	 * jobs that set none. Unset: two periods of a cron or fixed-rate trigger, never for
	 * other jobs. If a duration suffix is not specified, milliseconds will be used.
	 */
	private @Nullable Duration defaultAlertAfter;

	private final History history = new History();

	private final Leader leader = new Leader();

	private final PreferredNode preferredNode = new PreferredNode();

	private final Shedlock shedlock = new Shedlock();

	public MisfirePolicy getDefaultMisfire() {
		return this.defaultMisfire;
	}

	public void setDefaultMisfire(MisfirePolicy defaultMisfire) {
		this.defaultMisfire = defaultMisfire;
	}

	public int getDefaultMisfireLimit() {
		return this.defaultMisfireLimit;
	}

	public void setDefaultMisfireLimit(int defaultMisfireLimit) {
		this.defaultMisfireLimit = defaultMisfireLimit;
	}

	public RecoveryPolicy getDefaultRecovery() {
		return this.defaultRecovery;
	}

	public void setDefaultRecovery(RecoveryPolicy defaultRecovery) {
		this.defaultRecovery = defaultRecovery;
	}

	public int getDefaultMaxAttempts() {
		return this.defaultMaxAttempts;
	}

	public void setDefaultMaxAttempts(int defaultMaxAttempts) {
		this.defaultMaxAttempts = defaultMaxAttempts;
	}

	public Duration getDefaultRetryDelay() {
		return this.defaultRetryDelay;
	}

	public void setDefaultRetryDelay(Duration defaultRetryDelay) {
		this.defaultRetryDelay = defaultRetryDelay;
	}

	public @Nullable Duration getDefaultAlertAfter() {
		return this.defaultAlertAfter;
	}

	public void setDefaultAlertAfter(@Nullable Duration defaultAlertAfter) {
		this.defaultAlertAfter = defaultAlertAfter;
	}

	public History getHistory() {
		return this.history;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Backend getBackend() {
		return this.backend;
	}

	public void setBackend(Backend backend) {
		this.backend = backend;
	}

	public @Nullable String getOwnerId() {
		return this.ownerId;
	}

	public void setOwnerId(@Nullable String ownerId) {
		this.ownerId = ownerId;
	}

	public Duration getLeaseTtl() {
		return this.leaseTtl;
	}

	public void setLeaseTtl(Duration leaseTtl) {
		this.leaseTtl = leaseTtl;
	}

	public Duration getDefaultLockAtMostFor() {
		return this.defaultLockAtMostFor;
	}

	public void setDefaultLockAtMostFor(Duration defaultLockAtMostFor) {
		this.defaultLockAtMostFor = defaultLockAtMostFor;
	}

	public Duration getDefaultLockAtLeastFor() {
		return this.defaultLockAtLeastFor;
	}

	public void setDefaultLockAtLeastFor(Duration defaultLockAtLeastFor) {
		this.defaultLockAtLeastFor = defaultLockAtLeastFor;
	}

	public Duration getSlotTolerance() {
		return this.slotTolerance;
	}

	public void setSlotTolerance(Duration slotTolerance) {
		this.slotTolerance = slotTolerance;
	}

	public boolean isInterruptOnLeaseLoss() {
		return this.interruptOnLeaseLoss;
	}

	public void setInterruptOnLeaseLoss(boolean interruptOnLeaseLoss) {
		this.interruptOnLeaseLoss = interruptOnLeaseLoss;
	}

	public Map<String, JobProperties> getJobs() {
		return this.jobs;
	}

	public void setJobs(Map<String, JobProperties> jobs) {
		this.jobs = jobs;
	}

	public Leader getLeader() {
		return this.leader;
	}

	public Shedlock getShedlock() {
		return this.shedlock;
	}

	public PreferredNode getPreferredNode() {
		return this.preferredNode;
	}

	/**
	 * Preferred-node routing of cron triggers, on stores that keep presence entries
	 * (JDBC, Redis without quorum, in-memory).
	 */
	public static class PreferredNode {

		/**
		 * Whether each job's cron slot is claimed at its fire time by one live node, its
		 * preferred node (the jobs are spread evenly over the live nodes), while the
		 * other nodes skip the trigger without asking the store (outcome 'not-preferred')
		 * and claim the slot after the sweep delay only if that node did not. Off, every
		 * node asks the store for every job at every fire time. Ignored in leader mode.
		 */
		private boolean enabled = true;

		/**
		 * How long after a fire time the other nodes look, in one read of the store,
		 * whether the preferred node claimed the slot, and claim it if not: the most a
		 * slot waits when its preferred node is gone or late. The nodes also start the
		 * triggers they leave to others four fifths of it after their fire time. At most
		 * a third of the lease TTL.
		 */
		private Duration sweepDelay = Duration.ofMillis(250);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getSweepDelay() {
			return this.sweepDelay;
		}

		public void setSweepDelay(Duration sweepDelay) {
			this.sweepDelay = sweepDelay;
		}

	}

	/**
	 * Bridge to ShedLock for a rolling upgrade from it.
	 */
	public static class Shedlock {

		/**
		 * ShedLock's lock table in the application's DataSource. When set, every guarded
		 * run also holds ShedLock's lock of its job in this table, so that nodes still on
		 * ShedLock and nodes on cluster-singleton never run a job at the same time. Unset
		 * (the default), the bridge is off.
		 */
		private @Nullable String tableName;

		public @Nullable String getTableName() {
			return this.tableName;
		}

		public void setTableName(@Nullable String tableName) {
			this.tableName = tableName;
		}

	}

	/**
	 * The cluster-wide run ledger in the lease store.
	 */
	public static class History {

		/**
		 * How many runs of each job the ledger keeps (the newest).
		 */
		private int maxRuns = 100;

		public int getMaxRuns() {
			return this.maxRuns;
		}

		public void setMaxRuns(int maxRuns) {
			this.maxRuns = maxRuns;
		}

	}

	/**
	 * Leader mode: one node of the cluster, elected with one lease, runs every guarded
	 * job.
	 */
	public static class Leader {

		/**
		 * Whether guarded jobs run only on the leader: one node, elected with one lease
		 * that the watchdog renews with the job leases. The other nodes skip every
		 * trigger without asking the store (outcome 'not-leader'), starting a cron
		 * trigger one second after its fire time when the job fires again more than three
		 * seconds later (with the default slot tolerance), behind the leader's claims.
		 * The leader still takes each job's lease, so slots and fencing tokens stay exact
		 * across leader changes.
		 */
		private boolean enabled = false;

		/**
		 * Name of the leader lease in the store. Reserved: no job may have this name.
		 */
		private String leaseName = "leader";

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getLeaseName() {
			return this.leaseName;
		}

		public void setLeaseName(String leaseName) {
			this.leaseName = leaseName;
		}

	}

	/**
	 * Lease stores.
	 */
	public enum Backend {

		/**
		 * The one store whose client bean exists.
		 */
		AUTO,

		/**
		 * A table in the application's DataSource.
		 */
		JDBC,

		/**
		 * Redis, through a RedissonClient or a RedisConnectionFactory.
		 */
		REDIS,

		/**
		 * Kubernetes coordination.k8s.io/v1 Lease objects.
		 */
		KUBERNETES,

		/**
		 * The in-memory backend of cluster-singleton-spring-boot-test: leases in this JVM
		 * only, for tests. Never chosen by {@code auto}.
		 */
		IN_MEMORY

	}

}
