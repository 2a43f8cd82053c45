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

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.PartialRenewalException;
import org.jspecify.annotations.Nullable;

/**
 * Renews held leases one PUT each (Kubernetes has no batch update), several at once on at
 * most a given number of threads, created when first needed; a failure is reported with
 * what did succeed.
 *
 * @author cluster-singleton contributors
 */
final class ParallelRenewal {

	private static final AtomicInteger threadCounter = new AtomicInteger();

	private final int concurrency;

	private volatile @Nullable ThreadPoolExecutor renewals;

	ParallelRenewal(int concurrency) {
		this.concurrency = concurrency;
	}

	/**
	 * Renew the leases: one alone in the calling thread, several in parallel.
	 * @param leases the leases
	 * @param renewOne renews one lease; {@code false} when it is lost
	 * @return the tokens of the leases renewed
	 * @throws PartialRenewalException when a renewal failed, with what did succeed
	 */
	Set<String> renew(Collection<HeldLease> leases, Predicate<HeldLease> renewOne) {
		List<HeldLease> distinct = HeldLease.distinctByToken(leases);
		if (distinct.isEmpty()) {
			return Set.of();
		}
		if (distinct.size() == 1) {
			HeldLease lease = distinct.get(0);
			return renewOne.test(lease) ? Set.of(lease.leaseToken()) : Set.of();
		}
		ThreadPoolExecutor executor = renewals();
		List<Future<Boolean>> futures = new ArrayList<>(distinct.size());
		for (HeldLease lease : distinct) {
			futures.add(executor.submit(() -> renewOne.test(lease)));
		}
		// every renewal runs to its end even when another fails, so that the API server
		// keeps those leases; a failure is reported with what did succeed
		Set<String> renewed = new HashSet<>();
		Set<String> lost = new HashSet<>();
		RuntimeException failure = null;
		for (int i = 0; i < futures.size(); i++) {
			String token = distinct.get(i).leaseToken();
			try {
				if (futures.get(i).get()) {
					renewed.add(token);
				}
				else {
					lost.add(token);
				}
			}
			catch (InterruptedException ex) {
				// shutting down: stop waiting, and leave the rest in doubt
				futures.forEach((future) -> future.cancel(true));
				Thread.currentThread().interrupt();
				throw new PartialRenewalException(renewed, lost,
						new IllegalStateException("Interrupted while renewing Kubernetes Leases", ex));
			}
			catch (ExecutionException ex) {
				RuntimeException cause = (ex.getCause() instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException(ex.getCause());
				if (failure == null) {
					failure = cause;
				}
				else {
					failure.addSuppressed(cause);
				}
			}
		}
		if (failure != null) {
			throw new PartialRenewalException(renewed, lost, failure);
		}
		return renewed;
	}

	/**
	 * Stop the renewal threads.
	 */
	void close() {
		ThreadPoolExecutor executor = this.renewals;
		if (executor != null) {
			executor.shutdown();
		}
	}

	private ThreadPoolExecutor renewals() {
		ThreadPoolExecutor executor = this.renewals;
		if (executor == null) {
			synchronized (this) {
				executor = this.renewals;
				if (executor == null) {
					executor = new ThreadPoolExecutor(this.concurrency, this.concurrency, 60, TimeUnit.SECONDS,
							new LinkedBlockingQueue<>(), (task) -> {
								Thread thread = new Thread(task,
										"cluster-singleton-kubernetes-renewal-" + threadCounter.incrementAndGet());
								thread.setDaemon(true);
								return thread;
							});
					executor.allowCoreThreadTimeOut(true);
					this.renewals = executor;
				}
			}
		}
		return executor;
	}

}
