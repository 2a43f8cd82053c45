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

package io.github.clustersingleton.contract;

import java.time.Duration;

/**
 * Lets time pass for one job's stored lease without waiting for it, by moving the lease's
 * stored times back in the store itself (backdating). A store's test fixture implements
 * it, and {@link AbstractLeaseBackendContractTests#timeTravel()} returns it.
 * <p>
 * Expiry is judged by the store's clock, which a fake clock in the JVM cannot move. So
 * rather than move the clock forward, an implementation moves every time the store keeps
 * for the job backward by the given amount: the lease's acquisition and expiry (and
 * whatever the store derives its expiry from, such as a Redis key's time to live), a
 * recovery mark's time and a failed run's retry time. Owners, lease tokens, slots, run
 * states, attempts and fencing tokens stay exactly as they are, so that the store's own
 * statements and scripts then judge the lease by its clock as they do in production.
 * <p>
 * Where a store's backend measures a time on the node rather than in the store (the
 * Kubernetes backend measures expiry and the recovery grace with the node's monotonic
 * clock, as Kubernetes leader election does), its fixture moves that clock instead.
 *
 * @author cluster-singleton contributors
 * @see AbstractLeaseBackendContractTests#timeTravel()
 */
@FunctionalInterface
public interface StoreTimeTravel {

	/**
	 * Let {@code duration} pass for the job, as the store's clock judges it: a lease that
	 * would end within {@code duration} has ended afterwards (and one that would end
	 * later has that much less left), a recovery mark's grace and a failed run's retry
	 * delay count {@code duration} as passed, and a lease released with a
	 * {@code lockAtLeastFor} is kept that much less. Does nothing when the store has
	 * nothing for the job.
	 * @param jobName the job whose stored times move back
	 * @param duration how much time passes, positive
	 */
	void elapse(String jobName, Duration duration);

}
