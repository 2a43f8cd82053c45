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

package io.github.clustersingleton.redis;

import java.time.Duration;

import io.github.clustersingleton.HeldLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The {@code min-replicas} handling of the {@link RedisLeaseBackend}: a script that
 * grants, extends, fences or records a run's end is followed by {@code WAIT} for that
 * many replicas, and a grant too few replicas acknowledged is given back.
 *
 * @author cluster-singleton contributors
 */
final class ReplicaWait {

	/**
	 * The backend's logger: these are its messages.
	 */
	private static final Log logger = LogFactory.getLog(RedisLeaseBackend.class);

	private final RedisScriptExecutor executor;

	private final RedisKeys keys;

	private volatile int minReplicas;

	private volatile Duration maxWait = RedisLeaseBackend.DEFAULT_MAX_REPLICA_WAIT;

	ReplicaWait(RedisScriptExecutor executor, RedisKeys keys) {
		this.executor = executor;
		this.keys = keys;
	}

	/**
	 * Set the replicas to wait for.
	 * @param minReplicas the number of replicas, 0 to wait for none
	 * @param maxWait the longest wait
	 */
	void set(int minReplicas, Duration maxWait) {
		this.minReplicas = minReplicas;
		this.maxWait = maxWait;
	}

	/**
	 * Return the number of replicas every grant waits for.
	 * @return the number of replicas, 0 for none
	 */
	int minReplicas() {
		return this.minReplicas;
	}

	/**
	 * Run a call that grants, extends, fences or records a run's end; with min replicas,
	 * followed by {@code WAIT} for at most a quarter of the TTL.
	 * @param call the call
	 * @param ttl the lease TTL, {@code null} for no bound but the longest wait
	 * @return the decoded reply, and whether enough replicas acknowledged it (always with
	 * none required)
	 */
	<R> Replicated<R> execute(RedisScriptCall<R> call, @Nullable Duration ttl) {
		int replicas = this.minReplicas;
		if (replicas <= 0) {
			return new Replicated<>(call.execute(this.executor, this.keys), -1, true);
		}
		Duration wait = this.maxWait;
		if (ttl != null && ttl.dividedBy(4).compareTo(wait) < 0) {
			wait = ttl.dividedBy(4);
		}
		RedisScriptExecutor.Replicated replicated = this.executor.executeAndWait(call.script(), call.keys(this.keys),
				call.args(), replicas, wait.isZero() ? Duration.ofMillis(1) : wait);
		boolean enough = replicated.acknowledged() >= replicas;
		if (!enough && call instanceof GrantingCall grant && grant.granted(replicated.reply())) {
			// given back before the rest of the reply is read: a reply that cannot be
			// read must not leave a lease only the master knows for a whole TTL
			throw giveBack(grant.jobName(), grant.leaseToken(), grant.grantName(), replicated.acknowledged());
		}
		return new Replicated<>(call.decode(replicated.reply()), replicated.acknowledged(), enough);
	}

	/**
	 * Release a grant that too few replicas acknowledged, best effort: the release is
	 * owner-checked, and a lease left behind expires at the end of its TTL.
	 * @param jobName the job
	 * @param leaseToken the token of the grant
	 * @param what what was granted ("acquisition", "new run")
	 * @param acknowledged how many replicas acknowledged the grant
	 * @return the exception to throw
	 */
	IllegalStateException giveBack(String jobName, String leaseToken, String what, long acknowledged) {
		try {
			ReleaseCall.giveBack(jobName, leaseToken).send(this.executor, this.keys);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not release the unreplicated lease of job '" + jobName
					+ "'; it expires at the end of its TTL", ex);
		}
		return new IllegalStateException("cluster-singleton: only " + acknowledged
				+ " Redis replica(s) acknowledged the " + what + " of job '" + jobName + "' in time, "
				+ "cluster-singleton.redis.min-replicas is " + this.minReplicas + "; released it, not running "
				+ "(a lease only the master knows could be lost in a failover and granted again)");
	}

	/**
	 * A renewal on the master only: a failover now would bring back the previous expiry,
	 * so it must not move the holder's deadline.
	 * @param renewed how many leases the master renewed
	 * @param replicated the renewal's outcome
	 * @return the exception to throw
	 */
	IllegalStateException renewalNotReplicated(int renewed, Replicated<?> replicated) {
		return new IllegalStateException("cluster-singleton: only " + replicated.acknowledged()
				+ " Redis replica(s) acknowledged the renewal of " + renewed
				+ " lease(s) in time, cluster-singleton.redis.min-replicas is " + this.minReplicas);
	}

	/**
	 * A completion recorded on the master only: unknown until a replica has it too.
	 * @param lease the lease of the run
	 * @param replicated the completion's outcome
	 * @return the exception to throw
	 */
	IllegalStateException completionNotReplicated(HeldLease lease, Replicated<?> replicated) {
		return new IllegalStateException("cluster-singleton: only " + replicated.acknowledged()
				+ " Redis replica(s) acknowledged the end of the run of job '" + lease.jobName() + "' (fencingToken="
				+ lease.fencingToken() + ") in time, cluster-singleton.redis.min-replicas is " + this.minReplicas
				+ "; not recorded yet (a failover now would bring the run back as running)");
	}

	/**
	 * The decoded reply of a call, and how many replicas acknowledged it.
	 *
	 * @param <R> the decoded reply
	 * @param reply the decoded reply
	 * @param acknowledged the number of replicas that acknowledged, -1 when none was
	 * waited for
	 * @param enough whether that is enough
	 */
	record Replicated<R>(R reply, long acknowledged, boolean enough) {

	}

}
