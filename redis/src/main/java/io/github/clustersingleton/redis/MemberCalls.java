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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The calls of a {@link RedisQuorumLeaseBackend} to its members: in parallel, one thread
 * per member, each waited for until a deadline.
 *
 * @author cluster-singleton contributors
 */
final class MemberCalls {

	private final List<RedisScriptExecutor> executors;

	private final int majority;

	/**
	 * One thread per member: the calls to a member run in the order they were made, so a
	 * release or commit never overtakes the grant it follows, also when a round stopped
	 * waiting for that member.
	 */
	private final List<ExecutorService> pools;

	/**
	 * How long, at least, the members that have not answered get once enough have.
	 */
	private volatile long minimumGraceNanos = TimeUnit.MILLISECONDS.toNanos(2);

	MemberCalls(List<RedisScriptExecutor> executors, int majority) {
		this.executors = executors;
		this.majority = majority;
		AtomicInteger threads = new AtomicInteger();
		ThreadFactory factory = (runnable) -> {
			Thread thread = new Thread(runnable, "cluster-singleton-quorum-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
		List<ExecutorService> pools = new ArrayList<>();
		for (int i = 0; i < executors.size(); i++) {
			pools.add(Executors.newSingleThreadExecutor(factory));
		}
		this.pools = List.copyOf(pools);
	}

	/**
	 * Set how long, at least, the members that have not answered get once enough have (2
	 * ms by default; the rest of the grace is as long as those took).
	 * @param minimumGrace the least grace
	 */
	void setMinimumGrace(Duration minimumGrace) {
		this.minimumGraceNanos = minimumGrace.toNanos();
	}

	/**
	 * Call every member; once a majority answered, the others get a grace period.
	 * @param <T> the type of an answer
	 * @param call the call of a member, by its index
	 * @param deadlineNanos the deadline ({@link System#nanoTime()})
	 * @return the answers, by member
	 */
	<T> List<Answer<T>> onAll(Function<Integer, T> call, long deadlineNanos) {
		List<Integer> all = new ArrayList<>();
		for (int i = 0; i < this.executors.size(); i++) {
			all.add(i);
		}
		return onMembers(all, call, deadlineNanos, this.majority);
	}

	/**
	 * Call the given members, and wait for all of them until the deadline.
	 * @param <T> the type of an answer
	 * @param targets the indexes of the members
	 * @param call the call of a member, by its index
	 * @param deadlineNanos the deadline ({@link System#nanoTime()})
	 * @return the answers, by member
	 */
	<T> List<Answer<T>> onMembers(List<Integer> targets, Function<Integer, T> call, long deadlineNanos) {
		return onMembers(targets, call, deadlineNanos, targets.size());
	}

	/**
	 * Call the given members in parallel and wait for their answers until the deadline
	 * ({@link System#nanoTime()}). Once {@code enough} members have answered without
	 * failure, the others get as long again as those took (at least 2ms) and then count
	 * as failed: a member that is down, whose client waits for its timeout, does not slow
	 * down every call of a quorum that can decide without it.
	 */
	private <T> List<Answer<T>> onMembers(List<Integer> targets, Function<Integer, T> call, long deadlineNanos,
			int enough) {
		long started = System.nanoTime();
		List<CompletableFuture<T>> futures = new ArrayList<>();
		BlockingQueue<CompletableFuture<T>> completed = new LinkedBlockingQueue<>();
		for (Integer member : targets) {
			CompletableFuture<T> future = CompletableFuture.supplyAsync(() -> call.apply(member),
					this.pools.get(member));
			futures.add(future);
			future.whenComplete((value, failure) -> completed.add(future));
		}
		int done = 0;
		int succeeded = 0;
		long graceEnd = 0;
		boolean graceStarted = false;
		try {
			while (done < futures.size()) {
				long now = System.nanoTime();
				long until = graceStarted && graceEnd - deadlineNanos < 0 ? graceEnd : deadlineNanos;
				long wait = until - now;
				if (wait <= 0) {
					break;
				}
				CompletableFuture<T> next = completed.poll(wait, TimeUnit.NANOSECONDS);
				if (next == null) {
					break;
				}
				done++;
				if (!next.isCompletedExceptionally()) {
					succeeded++;
				}
				if (!graceStarted && succeeded >= enough) {
					long now2 = System.nanoTime();
					graceEnd = now2 + Math.max(this.minimumGraceNanos, now2 - started);
					graceStarted = true;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		List<Answer<T>> answers = new ArrayList<>();
		for (int k = 0; k < targets.size(); k++) {
			int member = targets.get(k);
			CompletableFuture<T> future = futures.get(k);
			if (!future.isDone()) {
				// not cancelled: a call still queued for the member must still be made,
				// in order, so that what follows it (a release) finds what it did
				answers.add(new Answer<>(member, null, new TimeoutException(
						"Redis quorum member " + this.executors.get(member) + " did not answer within the round")));
				continue;
			}
			try {
				answers.add(new Answer<>(member, future.getNow(null), null));
			}
			catch (CompletionException | CancellationException ex) {
				Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
				answers.add(new Answer<>(member, null, cause));
			}
		}
		return answers;
	}

	/**
	 * Throw unless a majority of the members answered without failure.
	 * @param what what the call was to do, for the message
	 * @param answers the answers
	 * @throws RedisQuorumException when fewer than a majority answered
	 */
	void requireMajority(String what, List<? extends Answer<?>> answers) {
		int answered = (int) answers.stream().filter((answer) -> answer.failure() == null).count();
		if (answered < this.majority) {
			throw unavailable(what, answered, answers);
		}
	}

	/**
	 * Return the exception of a call that fewer than a majority answered.
	 * @param what what the call was to do, for the message
	 * @param answered how many members answered
	 * @param answers the answers, whose failures are added as suppressed
	 * @return the exception
	 */
	RedisQuorumException unavailable(String what, int answered, List<? extends Answer<?>> answers) {
		RedisQuorumException ex = new RedisQuorumException("cluster-singleton could not " + what + ": only " + answered
				+ " of " + this.executors.size() + " Redis quorum members answered, " + this.majority + " needed");
		for (Answer<?> answer : answers) {
			if (answer.failure() != null) {
				ex.addSuppressed(answer.failure());
			}
		}
		return ex;
	}

	/**
	 * Wait until every call sent to a member so far has ended, also those that a call
	 * answered by a majority did not wait for.
	 * @param timeout how long to wait for each member
	 * @throws Exception when a member's calls did not end in time
	 */
	void awaitPendingCalls(Duration timeout) throws Exception {
		for (ExecutorService pool : this.pools) {
			// one thread per member: this runs after everything sent to it before
			pool.submit(() -> {
			}).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * Stop the threads that call the members.
	 */
	void shutdownNow() {
		this.pools.forEach(ExecutorService::shutdownNow);
	}

	/**
	 * The answer of one member.
	 *
	 * @param <T> the type of the answer
	 * @param member the index of the member
	 * @param value the answer, {@code null} on failure
	 * @param failure why the member did not answer
	 */
	record Answer<T>(int member, @Nullable T value, @Nullable Throwable failure) {

	}

}
