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

package io.github.clustersingleton;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What a job's policies ask of the store when a lease is claimed: which unfinished work
 * on the job's row counts as pending, so that the store can decide in the same atomic
 * step as the claim whether the new holder takes that work over.
 * <p>
 * Work is <em>pending</em> on a row whose lease has expired when
 * <ul>
 * <li>{@code recoverLost} and the row's run is still {@link RunState#RUNNING running}
 * (its holder died or lost the lease before the run ended) with fewer than
 * {@code maxAttempts} attempts;</li>
 * <li>{@code recoverFailed} and the row's run {@link RunState#FAILED failed}, with fewer
 * than {@code maxAttempts} attempts: for a recovery claim (and
 * {@link LeaseBackend#findPending}) once its retry time has come (store clock); a first
 * claim of a later slot takes it over at once, so that the new slot cannot overwrite a
 * failed one that still has attempts left;</li>
 * <li>{@code recoverLost} or {@code recoverFailed}, and the row's run slot is earlier
 * than its last claimed slot (a holder died between the runs of a catch-up);</li>
 * <li>{@code catchUp}, on a first claim only, and the row's last claimed slot is earlier
 * than the request's {@link LeaseRequest#previousSlot() previous slot} (cron slots that
 * no node claimed).</li>
 * </ul>
 * Under a policy that is not {@link #isActive() active} nothing is ever pending: a first
 * claim of a slot under it records the slot's first attempt as the current run, exactly
 * as a claim under an active policy with nothing pending does (see {@link LeaseBackend}).
 *
 * @param recoverLost whether a run that died or lost its lease is run again
 * @param recoverFailed whether a run that threw is run again (implies nothing about
 * {@code recoverLost}; the engine sets both for {@code recovery=failed})
 * @param maxAttempts how many attempts a slot gets at most, the first included
 * @param catchUp whether cron slots that no node claimed are caught up
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record ClaimPolicy(boolean recoverLost, boolean recoverFailed, int maxAttempts, boolean catchUp) {

	/**
	 * No recovery and no catch-up: a claim never takes over pending work (the defaults,
	 * {@code recovery=none} and {@code misfire=skip}).
	 */
	public static final ClaimPolicy NONE = new ClaimPolicy(false, false, 1, false);

	public ClaimPolicy {
		Assert.isTrue(maxAttempts >= 1, "'maxAttempts' must be at least 1");
	}

	/**
	 * Return whether this policy ever makes work pending.
	 * @return {@code true} unless this policy is equivalent to {@link #NONE}
	 */
	public boolean isActive() {
		return this.recoverLost || this.recoverFailed || this.catchUp;
	}

	/**
	 * Evaluate the pending predicate on a row as it was before a claim: the one
	 * definition that every backend evaluating it in Java shares.
	 * @param run the row's current run
	 * @param lastSlot the row's last claimed slot, if any
	 * @param retryDue whether a failed run may be taken up now (its retry time has come,
	 * or the claim is a first claim of a later slot)
	 * @param previousSlot for a first claim, the cron slot before the claimed one;
	 * {@code null} otherwise
	 * @return whether the row has work pending under this policy
	 */
	public boolean isPending(SlotRun run, @Nullable Instant lastSlot, boolean retryDue,
			@Nullable Instant previousSlot) {
		boolean recoverable = run.attempt() < this.maxAttempts && ((this.recoverLost && run.state() == RunState.RUNNING)
				|| (this.recoverFailed && run.state() == RunState.FAILED && retryDue));
		// slots a claim took and no run served: its holder died between the runs of a
		// sequence, or gave a late claim back before the first
		boolean gap = (this.recoverLost || this.recoverFailed || this.catchUp) && lastSlot != null
				&& run.slot().isBefore(lastSlot);
		boolean unclaimed = this.catchUp && previousSlot != null && lastSlot != null && lastSlot.isBefore(previousSlot);
		return recoverable || gap || unclaimed;
	}

	/**
	 * Return whether taking over a row's run would run it again although it may in fact
	 * have ended: a run still recorded as {@link RunState#RUNNING running}, which this
	 * policy recovers. A claim takes such a run over only once a recovery claim has
	 * marked it and the {@link LeaseRequest#recoveryGrace() grace} has passed since (see
	 * {@link LeaseBackend#completeRun}).
	 * @param run the row's current run
	 * @return whether the run needs the mark and the grace before a takeover
	 * @since 0.1.0
	 */
	public boolean needsRecoveryGrace(SlotRun run) {
		return this.recoverLost && run.state() == RunState.RUNNING && run.attempt() < this.maxAttempts;
	}

	/**
	 * Return whether a run in the given state, after the given number of attempts, is to
	 * be run again (the retry time of a failed run aside).
	 * @param state the stored state of the run
	 * @param attempt the attempts it had
	 * @return {@code true} when another attempt is due
	 */
	public boolean recovers(RunState state, int attempt) {
		if (attempt >= this.maxAttempts) {
			return false;
		}
		return switch (state) {
			case RUNNING, LOST -> this.recoverLost;
			case FAILED -> this.recoverFailed;
			case SUCCEEDED, PAUSED -> false;
		};
	}

}
