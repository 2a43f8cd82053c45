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

package io.github.clustersingleton.kubernetes;

/**
 * The names cluster-singleton writes on a Lease: its {@code cluster-singleton.io/*}
 * annotations and its label. Other versions of the library read them, so a name never
 * changes. {@link KubernetesLeaseBackend} publishes them as its constants.
 *
 * @author cluster-singleton contributors
 */
final class LeaseAnnotations {

	/**
	 * Annotation holding the job's last fencing token.
	 */
	static final String FENCING_TOKEN = "cluster-singleton.io/fencing-token";

	/**
	 * Annotation holding the job's last claimed cron slot, an ISO-8601 instant.
	 */
	static final String LAST_SLOT = "cluster-singleton.io/last-slot";

	/**
	 * Annotation holding the random token of the current acquisition.
	 */
	static final String LEASE_TOKEN = "cluster-singleton.io/lease-token";

	/**
	 * Annotation holding the cron slot of the job's current run, an ISO-8601 instant.
	 */
	static final String RUN_SLOT = "cluster-singleton.io/run-slot";

	/**
	 * Annotation holding the attempt of the job's current run (1 for a slot's first run).
	 */
	static final String ATTEMPT = "cluster-singleton.io/attempt";

	/**
	 * Annotation holding the state of the job's current run: {@code running},
	 * {@code succeeded} or {@code failed}.
	 */
	static final String RUN_STATE = "cluster-singleton.io/run-state";

	/**
	 * Annotation holding, for a failed run, from when another attempt may be claimed: an
	 * ISO-8601 instant of the releasing node's clock.
	 */
	static final String RETRY_AT = "cluster-singleton.io/retry-at";

	/**
	 * Annotation holding the job's run ledger: a JSON array of its newest runs.
	 */
	static final String RUNS = "cluster-singleton.io/runs";

	/**
	 * The annotation with the lease token of the claim that took the job last, which a
	 * run's completion must carry to be recorded; unlike {@link #LEASE_TOKEN} it stays
	 * when the lease is released or expires.
	 */
	static final String RUN_TOKEN = "cluster-singleton.io/run-token";

	/**
	 * The annotation with which the first recovery claim marks a run still recorded as
	 * running on an expired Lease (its value is that claim's lease token): a claim takes
	 * the run over only once it has seen this mark for the recovery grace.
	 */
	static final String RECOVER_MARK = "cluster-singleton.io/recover-mark";

	/**
	 * Annotation holding the job name the Lease belongs to (its name is sanitized).
	 */
	static final String JOB_NAME = "cluster-singleton.io/job-name";

	/**
	 * Annotation holding when the job was paused, an ISO-8601 instant of the pausing
	 * node's clock; the job's claims are refused while it is present.
	 */
	static final String PAUSED_AT = "cluster-singleton.io/paused-at";

	/**
	 * Annotation holding who paused the job.
	 */
	static final String PAUSED_BY = "cluster-singleton.io/paused-by";

	/**
	 * Annotation holding why the job was paused.
	 */
	static final String PAUSE_REASON = "cluster-singleton.io/pause-reason";

	/**
	 * Annotation with which a pause of every job marks each job's Lease, an ISO-8601
	 * instant; the job's claims are refused while it is present.
	 */
	static final String ALL_PAUSED_AT = "cluster-singleton.io/all-paused-at";

	/**
	 * Annotation on every job Lease when it is created, until a claim that read the Lease
	 * of the pause of every job after the creation takes it away: a claim of a Lease that
	 * carries it reads that pause first, so that a Lease created after a pause of every
	 * job listed the Leases to mark them is refused all the same. Its value is
	 * {@code true}.
	 */
	static final String PAUSE_ALL_UNCHECKED = "cluster-singleton.io/pause-all-unchecked";

	/**
	 * Annotation holding the job's cron override, as given.
	 */
	static final String CRON_OVERRIDE = "cluster-singleton.io/cron-override";

	/**
	 * Annotation holding the job's run-now requests: a JSON array, oldest first.
	 */
	static final String MANUAL_RUNS = "cluster-singleton.io/manual-runs";

	/**
	 * Annotation that tells the Lease holding the pause of every job (value
	 * {@code pause-all}) from the Leases of jobs.
	 */
	static final String CONTROLS = "cluster-singleton.io/controls";

	/**
	 * Label on every Lease this backend creates.
	 */
	static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

	/**
	 * The value of {@link #MANAGED_BY_LABEL}.
	 */
	static final String MANAGED_BY = "cluster-singleton";

	/**
	 * The most runs the ledger keeps per job, whatever is asked: annotations are limited
	 * in size (256 KiB for all of an object's annotations).
	 */
	static final int MAX_LEDGER_RUNS = 20;

	private LeaseAnnotations() {
	}

}
