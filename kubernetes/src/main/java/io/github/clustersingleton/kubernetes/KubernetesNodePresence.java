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

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.github.clustersingleton.NodePresence;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The {@link NodePresence} of the {@link KubernetesLeaseBackend}: one Lease per node,
 * {@code <prefix>node-<16 hex digits of the owner's SHA-256>}, labelled
 * {@value #NODE_LABEL}, held by the node's owner id and renewed at every heartbeat. A
 * node is live while this node has seen its Lease change within the Lease's duration (as
 * for the jobs' Leases: the API server does not compare times). Leaving gives the Lease
 * up (the backend's role may not delete Leases). Which jobs were claimed for a slot is
 * read from the {@value LeaseAnnotations#LAST_SLOT} annotation of the jobs' Leases, all
 * of them in one LIST.
 *
 * @author cluster-singleton contributors
 */
final class KubernetesNodePresence implements NodePresence {

	/**
	 * The label of the presence Leases, whose value is the same for every node of one
	 * lease prefix.
	 */
	static final String NODE_LABEL = "cluster-singleton.io/node-of";

	private static final String NODE_INFIX = "node-";

	private static final Pattern NODE_SUFFIX = Pattern.compile(NODE_INFIX + "[0-9a-f]{16}");

	private final LeaseApi api;

	private final JobLeases jobLeases;

	private final LeaseExpiryObserver expiry;

	private final String namespace;

	private final String leasePrefix;

	private final String labelValue;

	private final Clock clock;

	KubernetesNodePresence(LeaseApi api, JobLeases jobLeases, LeaseExpiryObserver expiry, String namespace,
			String leasePrefix, Clock clock) {
		this.api = api;
		this.jobLeases = jobLeases;
		this.expiry = expiry;
		this.namespace = namespace;
		this.leasePrefix = leasePrefix;
		this.labelValue = "p" + sha256(leasePrefix).substring(0, 32);
		this.clock = clock;
	}

	/**
	 * Whether a Lease name is the name of a presence Lease of this prefix, which no job's
	 * Lease may take.
	 */
	static boolean isPresenceName(String leasePrefix, String leaseName) {
		return leaseName.startsWith(leasePrefix)
				&& NODE_SUFFIX.matcher(leaseName.substring(leasePrefix.length())).matches();
	}

	String leaseName(String owner) {
		return this.leasePrefix + NODE_INFIX + sha256(owner).substring(0, 16);
	}

	/**
	 * Renew this node's Lease (create it the first time), then LIST the presence Leases
	 * of this prefix: 2 or 3 requests.
	 */
	@Override
	public Set<String> heartbeat(String owner, Duration ttl) {
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
		write(owner, owner, ttl);
		Set<String> live = new HashSet<>();
		for (Lease lease : this.api.list(NODE_LABEL, this.labelValue)) {
			String holder = LeaseCodec.holder(lease);
			String name = lease.getMetadata().getName();
			if (holder != null && name.equals(leaseName(holder)) && this.expiry.isLive(name, lease)) {
				live.add(holder);
			}
		}
		live.add(owner);
		return live;
	}

	@Override
	public void leave(String owner) {
		Assert.hasText(owner, "'owner' must not be empty");
		write(owner, null, Duration.ofSeconds(1));
	}

	/**
	 * One LIST of this backend's Leases; a job counts as claimed when its Lease's last
	 * slot is at or after the slot. Only a successful claim of a slot writes the last
	 * slot (a resourceVersion-conditional PUT), and it never moves back.
	 */
	@Override
	public Set<String> claimedSince(Collection<String> jobNames, Instant slot) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		Assert.notNull(slot, "'slot' must not be null");
		Set<String> claimed = new HashSet<>();
		if (jobNames.isEmpty()) {
			return claimed;
		}
		Map<String, Lease> leases = this.jobLeases.list();
		for (String jobName : jobNames) {
			Lease lease = leases.get(this.jobLeases.leaseName(jobName));
			if (lease != null && JobLeases.isOf(lease, jobName)) {
				Instant lastSlot = LeaseCodec.lastSlot(lease);
				if (lastSlot != null && !lastSlot.isBefore(slot)) {
					claimed.add(jobName);
				}
			}
		}
		return claimed;
	}

	/**
	 * Write this node's Lease, held by {@code holder} (none: given up), again on a
	 * conflict.
	 */
	private void write(String owner, @Nullable String holder, Duration ttl) {
		String name = leaseName(owner);
		for (int attempt = 1;; attempt++) {
			try {
				Lease current = this.api.get(name);
				if (current == null) {
					if (holder != null) {
						this.api.create(newLease(name, holder, ttl));
					}
					return;
				}
				Assert.state(LeaseCodec.annotation(current, LeaseAnnotations.JOB_NAME) == null,
						() -> "Kubernetes Lease '" + name + "' belongs to a job, not to this node's presence");
				this.api.update(new LeaseBuilder(current).editSpec()
					.withHolderIdentity(holder)
					.withLeaseDurationSeconds(LeaseCodec.seconds(ttl))
					.withRenewTime(LeaseCodec.renewTime(current, this.clock))
					.endSpec()
					.build());
				return;
			}
			catch (KubernetesClientException ex) {
				if (attempt >= 3 || (ex.getCode() != 409)) {
					throw ex;
				}
			}
		}
	}

	private Lease newLease(String name, String holder, Duration ttl) {
		return new LeaseBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(this.namespace)
			.addToLabels(LeaseAnnotations.MANAGED_BY_LABEL, LeaseAnnotations.MANAGED_BY)
			.addToLabels(NODE_LABEL, this.labelValue)
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity(holder)
			.withLeaseDurationSeconds(LeaseCodec.seconds(ttl))
			.withRenewTime(LeaseCodec.now(this.clock))
			.endSpec()
			.build();
	}

	private static String sha256(String value) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
			return java.util.HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing", ex);
		}
	}

}
