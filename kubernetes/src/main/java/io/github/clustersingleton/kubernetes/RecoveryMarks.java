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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.SlotRun;

/**
 * The recovery marks this node has seen, by Lease name, with when it first saw each
 * (monotonic): the recovery grace is measured locally, as the Lease's expiry is, so that
 * no two clocks are compared.
 *
 * @author cluster-singleton contributors
 */
final class RecoveryMarks {

	private final Map<String, SeenMark> marksSeen = new ConcurrentHashMap<>();

	private final LongSupplier nanoTime;

	RecoveryMarks(LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
	}

	/**
	 * Whether a claim must not take the Lease's run over yet: it is still recorded as
	 * running and the policy would run it again (it may have ended without its completion
	 * reaching the Lease), and this node has not seen a recovery mark on it for the
	 * recovery grace. Measured with this node's monotonic clock since it first saw the
	 * mark, as the Lease's expiry is, so that no two clocks are compared.
	 */
	boolean awaitsGrace(String name, Lease current, ClaimPolicy policy, LeaseRequest request) {
		SlotRun run = LeaseCodec.run(current);
		if (run == null || !policy.needsRecoveryGrace(run)) {
			return false;
		}
		String mark = LeaseCodec.annotation(current, LeaseAnnotations.RECOVER_MARK);
		if (mark == null) {
			return true;
		}
		long now = this.nanoTime.getAsLong();
		SeenMark seen = this.marksSeen.compute(name,
				(key, known) -> (known != null && known.mark().equals(mark)) ? known : new SeenMark(mark, now));
		return now - seen.firstSeen() < request.recoveryGrace().toNanos();
	}

	/**
	 * Remember a mark this node has just written: the grace counts from after the write,
	 * never from before it.
	 */
	void written(String name, String mark) {
		this.marksSeen.put(name, new SeenMark(mark, this.nanoTime.getAsLong()));
	}

	/**
	 * A recovery mark, and when (monotonic) this node first saw it.
	 */
	private record SeenMark(String mark, long firstSeen) {
	}

}
