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
	private Map<String, Job> jobs = new LinkedHashMap<>();

	private final Leader leader = new Leader();

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

	public Map<String, Job> getJobs() {
		return this.jobs;
	}

	public void setJobs(Map<String, Job> jobs) {
		this.jobs = jobs;
	}

	public Leader getLeader() {
		return this.leader;
	}

	/**
	 * Leader mode: one node of the cluster, elected with one lease, runs every guarded
	 * job.
	 */
	public static class Leader {

		/**
		 * Whether guarded jobs run only on the leader: one node, elected with one lease
		 * that the watchdog renews with the job leases. The other nodes skip every
		 * trigger without asking the store (outcome 'not-leader'). The leader still takes
		 * each job's lease, so slots and fencing tokens stay exact across leader changes.
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

	/**
	 * Settings of one job.
	 */
	public static class Job {

		/**
		 * Hard cap of one run's lease. If a duration suffix is not specified,
		 * milliseconds will be used.
		 */
		private @Nullable Duration lockAtMostFor;

		/**
		 * Minimum time the lease is kept after its acquisition. If a duration suffix is
		 * not specified, milliseconds will be used.
		 */
		private @Nullable Duration lockAtLeastFor;

		/**
		 * Whether the job runs on this node. A disabled job is skipped at every trigger.
		 */
		private boolean enabled = true;

		public @Nullable Duration getLockAtMostFor() {
			return this.lockAtMostFor;
		}

		public void setLockAtMostFor(@Nullable Duration lockAtMostFor) {
			this.lockAtMostFor = lockAtMostFor;
		}

		public @Nullable Duration getLockAtLeastFor() {
			return this.lockAtLeastFor;
		}

		public void setLockAtLeastFor(@Nullable Duration lockAtLeastFor) {
			this.lockAtLeastFor = lockAtLeastFor;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
