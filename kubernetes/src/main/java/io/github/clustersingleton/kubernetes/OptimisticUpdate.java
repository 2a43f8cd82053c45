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

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.jspecify.annotations.Nullable;

/**
 * The one read-decide-write loop of the Kubernetes backend: read a Lease, decide what to
 * write, create it or PUT it with the {@code resourceVersion} read, and on
 * {@code 409 Conflict} (another write came in between) read it again and decide again.
 * The API server refuses a PUT whose resourceVersion is no longer current, so each read
 * and its write are one atomic step.
 * <p>
 * What differs between the writes is a parameter: how the Lease is read (and whether the
 * first attempt starts from the copy this node wrote last), the decision, what a
 * {@code 404} on the write means, how often and for how long a conflict is tried again
 * and with which pause ({@link Retry}), and what the write returns or throws when it
 * gives up.
 *
 * @param <S> what a read returns: the Lease, or the Lease with more about the read
 * @param <T> the result of the write
 * @author cluster-singleton contributors
 */
final class OptimisticUpdate<S extends @Nullable Object, T extends @Nullable Object> {

	/**
	 * How often a write that loses to another writer of the same node's lease (not to a
	 * new holder) is tried again. The run ledger writes the same Lease from another
	 * thread (a start and an end per run), so a catch-up sequence of several short runs
	 * can make a release or a run start lose a few times in a row; a completion given up
	 * here keeps the lease held until the engine's retry gets through, so these writes
	 * try as long as the ledger does. A claim is bounded by time instead (a third of the
	 * TTL): given up, it would lose its slot under {@code misfire: skip}; a claim that
	 * lost to another node's claim ends at its next read, which shows the Lease held.
	 */
	static final int CONFLICT_ATTEMPTS = 10;

	/**
	 * How often a renewal that loses to another writer of the Lease is tried again: fewer
	 * than {@link #CONFLICT_ATTEMPTS}, since the watchdog's next tick tries again anyway,
	 * and a renewal round must stay short for the other leases it renews.
	 */
	static final int QUICK_CONFLICT_ATTEMPTS = 3;

	/**
	 * The longest pause, per attempt so far, before a write that lost to another writer
	 * of the same Lease is tried again: a random pause takes it out of step with the
	 * ledger's writes.
	 */
	private static final int CONFLICT_PAUSE_MILLIS_PER_ATTEMPT = 5;

	private final LeaseApi api;

	private final Supplier<S> read;

	private final Retry retry;

	private final Supplier<T> giveUp;

	private @Nullable S first;

	private BooleanSupplier endOnConflict = () -> false;

	private @Nullable T conflictResult;

	private OptimisticUpdate(LeaseApi api, Supplier<S> read, Retry retry, Supplier<T> giveUp) {
		this.api = api;
		this.read = read;
		this.retry = retry;
		this.giveUp = giveUp;
	}

	/**
	 * Prepare a write.
	 * @param api where the write goes
	 * @param read how the Lease is read, at every attempt (or from the second one on, see
	 * {@link #startingFrom})
	 * @param retry whether, and after which pause, a write that met a conflict is tried
	 * again
	 * @param giveUp the result (or exception) once {@code retry} ends the attempts
	 * @param <S> what a read returns
	 * @param <T> the result of the write
	 * @return the write, to {@link #run} with a decision
	 */
	static <S extends @Nullable Object, T extends @Nullable Object> OptimisticUpdate<S, T> of(LeaseApi api,
			Supplier<S> read, Retry retry, Supplier<T> giveUp) {
		return new OptimisticUpdate<>(api, read, retry, giveUp);
	}

	/**
	 * Decide the first attempt on the copy of the Lease this node wrote last, if it has
	 * one, instead of reading it; every attempt after a conflict reads it.
	 * @param known the copy, or {@code null} to read it at once
	 * @return this
	 */
	OptimisticUpdate<S, T> startingFrom(@Nullable S known) {
		this.first = known;
		return this;
	}

	/**
	 * End with the given result, instead of trying again, when a write met a conflict and
	 * the condition holds (asked before the pause).
	 * @param condition the condition
	 * @param result the result
	 * @return this
	 */
	OptimisticUpdate<S, T> endingOnConflict(BooleanSupplier condition, T result) {
		this.endOnConflict = condition;
		this.conflictResult = result;
		return this;
	}

	/**
	 * Run the loop: read (or start from the known copy), decide, write; on a conflict
	 * read and decide again as the {@link Retry} allows.
	 * @param decision what to write for the Lease as read
	 * @return the result of the decision, of the write, or of giving up
	 */
	T run(Decision<S, T> decision) {
		S known = this.first;
		for (int attempt = 1;; attempt++) {
			boolean fromServer = (known == null);
			S current = fromServer ? this.read.get() : known;
			known = null;
			Step<T> step = decision.decide(current, fromServer);
			if (step instanceof Done<T> done) {
				return done.result();
			}
			Write<T> write = (Write<T>) step;
			Lease written;
			try {
				written = write.create() ? this.api.create(write.lease()) : this.api.update(write.lease());
			}
			catch (KubernetesClientException ex) {
				if (ex.getCode() == 404 && write.gone() != null) {
					return write.gone().apply(ex);
				}
				if (ex.getCode() != 409 && ex.getCode() != 404) {
					throw ex;
				}
				// another write came in between: the Lease changed, or is gone
				if (this.endOnConflict.getAsBoolean()) {
					return this.conflictResult;
				}
				if (!this.retry.again(attempt)) {
					return this.giveUp.get();
				}
				continue;
			}
			return write.written().apply(written);
		}
	}

	/**
	 * Nothing to write: end with a result.
	 * @param result the result
	 * @param <T> the result type
	 * @return the step
	 */
	static <T extends @Nullable Object> Step<T> done(T result) {
		return new Done<>(result);
	}

	/**
	 * PUT the Lease (carrying the resourceVersion it was read at); a {@code 404} counts
	 * as a conflict unless {@link Write#ifGone} says otherwise.
	 * @param next the Lease to write
	 * @param written the result for the Lease as written
	 * @param <T> the result type
	 * @return the step
	 */
	static <T extends @Nullable Object> Write<T> update(Lease next, Function<Lease, T> written) {
		return new Write<>(next, false, written, null);
	}

	/**
	 * Create the Lease; a {@code 409} means another node created it first, and counts as
	 * a conflict.
	 * @param lease the Lease to create
	 * @param created the result for the Lease as created
	 * @param <T> the result type
	 * @return the step
	 */
	static <T extends @Nullable Object> Write<T> create(Lease lease, Function<Lease, T> created) {
		return new Write<>(lease, true, created, null);
	}

	/**
	 * Pause for a random time of up to {@value #CONFLICT_PAUSE_MILLIS_PER_ATTEMPT} ms per
	 * attempt made, before a write that lost to another writer is tried again. An
	 * interrupt ends the pause early and stays set.
	 * @param attempt the attempts made so far
	 */
	static void pauseAfterConflict(int attempt) {
		try {
			Thread.sleep(ThreadLocalRandom.current().nextLong(1, CONFLICT_PAUSE_MILLIS_PER_ATTEMPT * attempt + 1L));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * What to write for the Lease as read.
	 *
	 * @param <S> what a read returns
	 * @param <T> the result of the write
	 */
	@FunctionalInterface
	interface Decision<S extends @Nullable Object, T extends @Nullable Object> {

		/**
		 * Decide.
		 * @param current the Lease as read ({@code null} when it does not exist), or this
		 * node's copy
		 * @param fromServer whether {@code current} was just read, rather than this
		 * node's copy of its last write
		 * @return the step
		 */
		Step<T> decide(S current, boolean fromServer);

	}

	/**
	 * What a decision leads to: {@link #done} or a {@link Write}.
	 *
	 * @param <T> the result type
	 */
	sealed interface Step<T extends @Nullable Object> permits Done, Write {

	}

	private record Done<T extends @Nullable Object>(T result) implements Step<T> {
	}

	/**
	 * A create or a PUT, and what it returns.
	 *
	 * @param lease the Lease to write
	 * @param create whether to create it
	 * @param written the result for the Lease as written
	 * @param gone the result (or exception) for a {@code 404}, or {@code null} when it
	 * counts as a conflict
	 * @param <T> the result type
	 */
	record Write<T extends @Nullable Object>(Lease lease, boolean create, Function<Lease, T> written,
			@Nullable Function<KubernetesClientException, T> gone) implements Step<T> {

		/**
		 * Return this write with the result (or exception) of a {@code 404}.
		 * @param gone what a {@code 404} returns or throws
		 * @return the write
		 */
		Write<T> ifGone(Function<KubernetesClientException, T> gone) {
			return new Write<>(this.lease, this.create, this.written, gone);
		}

	}

	/**
	 * Whether a write that met a conflict is tried again, and after which pause.
	 */
	@FunctionalInterface
	interface Retry {

		/**
		 * Called after a conflict: pause as the write wants, and say whether to try
		 * again.
		 * @param attempt the attempts made so far
		 * @return whether to read, decide and write again
		 */
		boolean again(int attempt);

		/**
		 * Try at most {@code attempts} times, with a {@link #pauseAfterConflict pause}
		 * after each conflict (the last one too).
		 * @param attempts the most attempts
		 * @return the retry
		 */
		static Retry pausing(int attempts) {
			return (attempt) -> {
				pauseAfterConflict(attempt);
				return attempt < attempts;
			};
		}

		/**
		 * Try at most {@code attempts} times, at once.
		 * @param attempts the most attempts
		 * @return the retry
		 */
		static Retry immediately(int attempts) {
			return (attempt) -> attempt < attempts;
		}

		/**
		 * Try again until {@code budgetNanos} have passed since this retry was created or
		 * the thread is interrupted, with a {@link #pauseAfterConflict pause} that grows
		 * with the attempts up to {@value #CONFLICT_ATTEMPTS} of them (none after the
		 * last).
		 * @param budgetNanos how long, from now
		 * @param nanoTime the monotonic clock
		 * @return the retry
		 */
		static Retry within(long budgetNanos, LongSupplier nanoTime) {
			long started = nanoTime.getAsLong();
			return (attempt) -> {
				if (nanoTime.getAsLong() - started >= budgetNanos || Thread.currentThread().isInterrupted()) {
					return false;
				}
				pauseAfterConflict(Math.min(attempt, CONFLICT_ATTEMPTS));
				return true;
			};
		}

	}

}
