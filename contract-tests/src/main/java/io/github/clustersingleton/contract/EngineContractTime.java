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

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The time the engine half of the contract runs in, and every wait of its cases: each
 * case lets time pass with {@link #advance(Duration)} and waits with
 * {@link #awaitUntil(Callable)}, {@link #holdsFor(Duration, Duration, Callable)} and
 * their siblings, never with a sleep or a poll of its own, so that it runs unchanged in
 * real time (sleeps and Awaitility) and in virtual time (steps of a manual clock), as
 * {@link #engineTime()} says.
 *
 * @author cluster-singleton contributors
 */
abstract class EngineContractTime {

	/**
	 * How long a case waits for what it expects, at most.
	 */
	static final Duration PATIENCE = Duration.ofSeconds(15);

	/**
	 * How far virtual time moves between two looks at an awaited condition: short, so
	 * that a run on another thread sees a deadline close to when it fell due.
	 */
	private static final Duration STEP = Duration.ofMillis(10);

	/**
	 * How far virtual time moves between two looks at a condition that must hold for a
	 * while: Awaitility's poll interval in real time.
	 */
	private static final Duration HOLD_STEP = Duration.ofMillis(100);

	/**
	 * How long, in real time, a step waits at most for the runs on other threads to
	 * settle.
	 */
	private static final Duration SETTLE = Duration.ofSeconds(2);

	/**
	 * How long, in real time, a step pauses between two looks at the run threads.
	 */
	private static final Duration SETTLE_POLL = Duration.ofNanos(200_000);

	private final List<Thread> runThreads = new CopyOnWriteArrayList<>();

	/**
	 * The threads a case runs jobs on besides its own.
	 */
	final ExecutorService threads = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = Executors.defaultThreadFactory().newThread(runnable);
		this.runThreads.add(thread);
		return thread;
	});

	/**
	 * Return the time the engine cases run in: {@link EngineTime#real() real time} unless
	 * the store's test class runs them in virtual time, which needs a store whose expiry
	 * reads the virtual clock. Called for each case; return the same instance throughout
	 * one case.
	 * @return the time
	 */
	protected EngineTime engineTime() {
		return EngineTime.real();
	}

	/**
	 * The nodes' wall clock.
	 */
	Clock clock() {
		return engineTime().clock();
	}

	/**
	 * The monotonic time the engine measures its deadlines on.
	 */
	long nanoTime() {
		return engineTime().nanoTime();
	}

	/**
	 * Let {@code duration} pass, in the time the cases run in.
	 */
	void advance(Duration duration) throws InterruptedException {
		engineTime().advance(duration);
	}

	/**
	 * Wait up to {@link #PATIENCE} until {@code condition} holds.
	 */
	void awaitUntil(Callable<Boolean> condition) {
		awaitUntil(PATIENCE, condition);
	}

	/**
	 * Wait up to {@code atMost} until {@code condition} holds: poll in real time; in
	 * virtual time, move time in small steps until it holds.
	 */
	void awaitUntil(Duration atMost, Callable<Boolean> condition) {
		EngineTime time = engineTime();
		if (!time.isVirtual()) {
			await().atMost(atMost).until(condition);
			return;
		}
		long deadline = time.nanoTime() + atMost.toNanos();
		while (!test(condition)) {
			assertThat(time.nanoTime() - deadline).as("condition not met within %s of virtual time", atMost)
				.isNegative();
			step(STEP);
		}
	}

	/**
	 * Wait up to {@code atMost} until {@code condition} has held for {@code during} on
	 * end.
	 */
	void holdsFor(Duration during, Duration atMost, Callable<Boolean> condition) {
		EngineTime time = engineTime();
		if (!time.isVirtual()) {
			await().during(during).atMost(atMost).until(condition);
			return;
		}
		long deadline = time.nanoTime() + atMost.toNanos();
		Long heldSince = null;
		while (true) {
			long now = time.nanoTime();
			if (!test(condition)) {
				heldSince = null;
			}
			else if (heldSince == null) {
				heldSince = now;
			}
			if (heldSince != null && now - heldSince >= during.toNanos()) {
				return;
			}
			assertThat(now - deadline).as("condition did not hold for %s within %s of virtual time", during, atMost)
				.isNegative();
			step(HOLD_STEP);
		}
	}

	/**
	 * Wait up to {@link #PATIENCE} until {@code assertion} passes.
	 */
	void awaitAsserted(ThrowingRunnable assertion) {
		EngineTime time = engineTime();
		if (!time.isVirtual()) {
			await().atMost(PATIENCE).untilAsserted(assertion::run);
			return;
		}
		long deadline = time.nanoTime() + PATIENCE.toNanos();
		while (true) {
			try {
				assertion.run();
				return;
			}
			catch (AssertionError ex) {
				if (time.nanoTime() - deadline >= 0) {
					throw ex;
				}
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
			step(STEP);
		}
	}

	/**
	 * Wait until {@code latch} is open, for at most {@code atMost}.
	 */
	boolean awaitOpen(CountDownLatch latch, Duration atMost) throws InterruptedException {
		if (!engineTime().isVirtual()) {
			return latch.await(atMost.toMillis(), TimeUnit.MILLISECONDS);
		}
		awaitUntil(atMost, () -> latch.getCount() == 0);
		return true;
	}

	/**
	 * Wait up to {@code atMost} for the result of a run on another thread.
	 */
	<T> T result(Future<T> future, Duration atMost) throws Exception {
		if (engineTime().isVirtual()) {
			awaitUntil(atMost, future::isDone);
		}
		return future.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * Move virtual time one step, then let the runs on other threads settle: wait, in
	 * real time, until none of them is running (each waits, sleeps or has ended), so that
	 * a run sees a deadline or an interrupt in the step it fell due, however slowly its
	 * thread is scheduled.
	 */
	private void step(Duration step) {
		try {
			engineTime().advance(step);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		long giveUp = System.nanoTime() + SETTLE.toNanos();
		while (!settled() && System.nanoTime() - giveUp < 0) {
			LockSupport.parkNanos(SETTLE_POLL.toNanos());
		}
	}

	/**
	 * Whether no run thread is running, twice in a row, a short pause apart: a thread
	 * that was just unparked (a latch opened, a lock freed) still shows as waiting until
	 * the OS schedules it, so one look can come too early.
	 */
	private boolean settled() {
		if (this.runThreads.stream().anyMatch(EngineContractTime::isRunning)) {
			return false;
		}
		if (this.runThreads.stream().allMatch((thread) -> thread.getState() == Thread.State.TERMINATED)) {
			return true;
		}
		LockSupport.parkNanos(SETTLE_POLL.toNanos());
		return this.runThreads.stream().noneMatch(EngineContractTime::isRunning);
	}

	/**
	 * Whether a thread runs or is about to: new, runnable, or interrupted and not yet
	 * awake to it (an interrupt sets the flag before the thread leaves its wait).
	 */
	private static boolean isRunning(Thread thread) {
		Thread.State state = thread.getState();
		return state == Thread.State.NEW || state == Thread.State.RUNNABLE
				|| (state != Thread.State.TERMINATED && thread.isInterrupted());
	}

	private static boolean test(Callable<Boolean> condition) {
		try {
			return Boolean.TRUE.equals(condition.call());
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@FunctionalInterface
	interface ThrowingRunnable {

		void run() throws Throwable;

	}

}
