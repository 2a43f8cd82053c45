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

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;

/**
 * Which Lease of the namespace belongs to which job: the names, the check that a job's
 * Lease was created for that job by cluster-singleton, and the list of this backend's
 * Leases.
 *
 * @author cluster-singleton contributors
 */
final class JobLeases {

	private final LeaseApi api;

	private final String namespace;

	private final String leasePrefix;

	/** Lease names of the jobs checked at startup, to reject two jobs sharing one. */
	private final Map<String, String> jobsByLeaseName = new ConcurrentHashMap<>();

	JobLeases(LeaseApi api, String namespace, String leasePrefix) {
		this.api = api;
		this.namespace = namespace;
		this.leasePrefix = leasePrefix;
	}

	String leaseName(String jobName) {
		return KubernetesLeaseNames.leaseName(this.leasePrefix, jobName);
	}

	/**
	 * Check that the job's Lease name does not collide with another job's.
	 */
	void validateJobName(String jobName) {
		String leaseName = leaseName(jobName);
		String other = this.jobsByLeaseName.putIfAbsent(leaseName, jobName);
		if (other != null && !other.equals(jobName)) {
			throw new IllegalArgumentException("Job names '" + other + "' and '" + jobName + "' both map to the "
					+ "Kubernetes Lease '" + leaseName + "' (a Lease name is a DNS label: lower-case letters, digits "
					+ "and '-'); give one of them another name");
		}
	}

	void checkJob(Lease lease, String jobName) {
		String owner = LeaseCodec.annotation(lease, LeaseAnnotations.JOB_NAME);
		if (owner == null) {
			throw new IllegalStateException("The Kubernetes Lease '" + lease.getMetadata().getName()
					+ "' in namespace '" + this.namespace + "' was not created by cluster-singleton (it has no "
					+ LeaseAnnotations.JOB_NAME + " annotation), so job '" + jobName + "' does not use it: it may be "
					+ "another component's leader election. Choose another cluster-singleton.kubernetes.lease-prefix");
		}
		if (!owner.equals(jobName)) {
			throw new IllegalStateException("The Kubernetes Lease '" + lease.getMetadata().getName()
					+ "' in namespace '" + this.namespace + "' belongs to job '" + owner + "', not to job '" + jobName
					+ "': both names map to one Lease name. Rename one of the jobs, or give the applications "
					+ "different cluster-singleton.kubernetes.lease-prefix values");
		}
	}

	/**
	 * Whether the Lease is the one of the job (a Lease of another job may share its
	 * name).
	 */
	static boolean isOf(Lease lease, String jobName) {
		return jobName.equals(LeaseCodec.annotation(lease, LeaseAnnotations.JOB_NAME));
	}

	/**
	 * List this backend's Leases of the namespace in one request, by name.
	 */
	Map<String, Lease> list() {
		Map<String, Lease> leases = new LinkedHashMap<>();
		for (Lease lease : this.api.list(LeaseAnnotations.MANAGED_BY_LABEL, LeaseAnnotations.MANAGED_BY)) {
			leases.put(lease.getMetadata().getName(), lease);
		}
		return leases;
	}

	/**
	 * Return a Lease for a job that nobody holds, to create for its run ledger when the
	 * job never had a lease.
	 */
	Lease newLease(String jobName) {
		return LeaseCodec.unheld(leaseName(jobName), this.namespace, jobName);
	}

}
