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

package io.github.clustersingleton.lease;

import java.time.Duration;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterLeadership;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Leader mode: one lease for the whole cluster, taken by whichever node asks first once
 * it is free, renewed by the {@link LeaseWatchdog} in the same round trip as the job
 * leases. A node that is not the leader asks for the lease once per watchdog tick.
 * Leadership ends when the store no longer holds the lease, when no renewal succeeded
 * within one TTL of the last successful one (the local deadline, on the monotonic clock),
 * or at shutdown, when the lease is given back so another node takes over at once.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class LeaderElection implements ClusterLeadership {

	private static final Log logger = LogFactory.getLog(LeaderElection.class);

	private final LeaseBackend backend;

	private final String owner;

	private final String leaseName;

	private final Duration ttl;

	private final Listener listener;

	private volatile @Nullable HeldLease lease;

	private volatile long deadlineNanos;

	private volatile boolean closed;

	/**
	 * Until when (ticker time) this node does not ask for the leader lease after it
	 * stepped down, or 0.
	 */
	private volatile long standAsideUntilNanos;

	private final Ticker ticker;

	LeaderElection(LeaseBackend backend, String owner, String leaseName, Duration ttl, Listener listener) {
		this(backend, owner, leaseName, ttl, listener, Ticker.SYSTEM);
	}

	LeaderElection(LeaseBackend backend, String owner, String leaseName, Duration ttl, Listener listener,
			Ticker ticker) {
		this.ticker = ticker;
		this.backend = backend;
		this.owner = owner;
		this.leaseName = leaseName;
		this.ttl = ttl;
		this.listener = listener;
	}

	/**
	 * Return the name of the leader lease in the store.
	 * @return the lease name
	 */
	public String getLeaseName() {
		return this.leaseName;
	}

	@Override
	public boolean isLeader() {
		return this.lease != null && this.ticker.nanoTime() - this.deadlineNanos < 0;
	}

	@Override
	public long term() {
		HeldLease lease = this.lease;
		return (lease != null) ? lease.fencingToken() : 0;
	}

	/**
	 * Return the leader lease this node holds, for the watchdog to renew.
	 */
	@Nullable HeldLease currentLease() {
		return this.lease;
	}

	long deadlineNanos() {
		return this.deadlineNanos;
	}

	/**
	 * Ask for the leader lease, unless this node holds it. Called on the watchdog's
	 * renewal thread.
	 */
	void attempt() {
		if (this.lease != null || this.closed) {
			return;
		}
		long standAsideUntil = this.standAsideUntilNanos;
		if (standAsideUntil != 0 && this.ticker.nanoTime() - standAsideUntil < 0) {
			return;
		}
		// a pause of every job pauses the leader lease's row too: leadership keeps moving
		LeaseRequest request = LeaseRequest.overridingPause(this.leaseName, this.owner, EngineSupport.newLeaseToken(),
				this.ttl);
		long sent = this.ticker.nanoTime();
		AcquireResult result;
		try {
			result = this.backend.tryAcquire(request);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not ask for the leader lease '" + this.leaseName + "'", ex);
			return;
		}
		if (!result.isAcquired()) {
			return;
		}
		HeldLease granted = HeldLease.of(request, result.fencingToken());
		if (this.ticker.nanoTime() - sent >= this.ttl.toNanos() || this.closed) {
			// granted too late to be sure no one else holds it by now, or while closing
			release(granted);
			return;
		}
		synchronized (this) {
			this.deadlineNanos = sent + this.ttl.toNanos();
			this.lease = granted;
		}
		logger.info(
				"cluster-singleton: this node (" + this.owner + ") is the leader now, term " + granted.fencingToken());
		notify(() -> this.listener.granted(granted.fencingToken()));
	}

	/**
	 * Move the local deadline after a renewal whose request left at {@code sentNanos}.
	 */
	void renewed(HeldLease renewed, long sentNanos) {
		synchronized (this) {
			if (renewed.equals(this.lease)) {
				long deadline = sentNanos + this.ttl.toNanos();
				if (deadline - this.deadlineNanos > 0) {
					this.deadlineNanos = deadline;
				}
			}
		}
	}

	/**
	 * End the term of the given lease, if it is still this node's.
	 */
	void revoke(HeldLease lost, String reason) {
		synchronized (this) {
			if (!lost.equals(this.lease)) {
				return;
			}
			this.lease = null;
		}
		logger.warn("cluster-singleton: this node (" + this.owner + ") is no longer the leader (term "
				+ lost.fencingToken() + "): " + reason);
		notify(() -> this.listener.revoked(lost.fencingToken(), reason));
	}

	/**
	 * End the term when its local deadline has passed.
	 */
	void checkDeadline(long nowNanos) {
		HeldLease lease = this.lease;
		if (lease != null && nowNanos - this.deadlineNanos >= 0) {
			revoke(lease, "no renewal succeeded within the lease TTL of " + this.ttl
					+ "; another node may be the leader now");
		}
	}

	/**
	 * Stop asking for the lease and give it back if held, so that another node takes over
	 * at once.
	 */
	void resign() {
		this.closed = true;
		HeldLease lease = this.lease;
		if (lease != null) {
			revoke(lease, "the application is shutting down");
			release(lease);
		}
	}

	/**
	 * Give up the lead because this node cannot run the jobs (the store refuses its
	 * slots), and stay out of the election for three lease TTLs, so that another node
	 * takes over within about one TTL. A node that still cannot run them when it leads
	 * again steps down again.
	 * @param reason why, for the log and the revocation event
	 */
	void stepDown(String reason) {
		HeldLease lease = this.lease;
		if (lease == null || this.closed) {
			return;
		}
		this.standAsideUntilNanos = this.ticker.nanoTime() + this.ttl.multipliedBy(3).toNanos();
		revoke(lease, reason);
		release(lease);
	}

	private void release(HeldLease lease) {
		boolean interrupted = Thread.interrupted();
		try {
			this.backend.release(lease, Duration.ZERO);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not give back the leader lease; it expires within " + this.ttl, ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static void notify(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("cluster-singleton leadership listener failed", ex);
		}
	}

	@Override
	public String toString() {
		return "LeaderElection[lease=" + this.leaseName + ", leader=" + isLeader() + ", term=" + term() + "]";
	}

	/**
	 * Told when this node's leadership begins and ends.
	 */
	public interface Listener {

		/**
		 * A listener that ignores everything.
		 */
		Listener NONE = new Listener() {
		};

		/**
		 * This node became the leader.
		 * @param term the term (the leader lease's fencing token)
		 */
		default void granted(long term) {
		}

		/**
		 * This node stopped being the leader.
		 * @param term the term that ended
		 * @param reason why
		 */
		default void revoked(long term, String reason) {
		}

	}

}
