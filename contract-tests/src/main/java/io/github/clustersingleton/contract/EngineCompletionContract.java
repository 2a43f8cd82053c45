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
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobDefinition;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The engine contract's cases of a run's completion: a success the store could not record
 * at once is recorded by a retry, a completion that reaches the store late, races a
 * direct call or meets a failed start of the next catch-up run never makes a slot run
 * twice, and a node never takes over the run whose completion it is still sending.
 *
 * @author cluster-singleton contributors
 */
abstract class EngineCompletionContract extends EngineRecoveryContract {

	@Test
	void aSuccessTheStoreCouldNotRecordAtOnceIsRecordedByARetryAndNotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("completion-retry");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		AtomicInteger failedReleases = new AtomicInteger();
		LeaseBackend real = backend();
		// the first release that carries a completion fails, as during a failover
		LeaseBackend flaky = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun") && failedReleases.getAndIncrement() == 0) {
						throw new IllegalStateException("connection reset");
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", flaky, clock(), new RecordingListener());
		node.registerJob(job, () -> seen.add(Seen.of("node-a")));
		assertThat(node.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		awaitUntil(() -> failedReleases.get() == 2 && node.undeliveredCompletions() == 0);
		node.startBackgroundWork();
		holdsFor(TTL.multipliedBy(3), PATIENCE, () -> seen.size() == 1);
		assertThat(real.findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
	}

	@Test
	void aSuccessTheStoreTakesOnlyAfterTheLeaseExpiredAndAnotherNodeMarkedTheRunIsNotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("late-completion");
		Duration ttl = Duration.ofSeconds(3);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		// node-a cannot reach the store when its run ends, until node-b has found the
		// run's lease expired and marked the run
		AtomicBoolean storeDown = new AtomicBoolean(true);
		AtomicInteger completions = new AtomicInteger();
		LeaseBackend cutOff = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun")) {
						completions.incrementAndGet();
						if (storeDown.get()) {
							throw new IllegalStateException("connection refused (simulated)");
						}
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		AtomicInteger marks = new AtomicInteger();
		LeaseBackend watched = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					Object result;
					try {
						result = method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
					if (method.getName().equals("tryAcquire") && ((LeaseRequest) args[0]).recovery()
							&& !((AcquireResult) result).isAcquired()) {
						marks.incrementAndGet();
					}
					return result;
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", cutOff, clock(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", watched, clock(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		nodeB.startBackgroundWork();
		assertThat(nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		assertThat(nodeA.undeliveredCompletions()).isEqualTo(1);
		awaitUntil(() -> marks.get() > 0);
		assertThat(completions.get()).as("attempts while the store was unreachable").isGreaterThan(1);
		storeDown.set(false);
		awaitUntil(() -> nodeA.undeliveredCompletions() == 0);
		holdsFor(ttl.multipliedBy(2), PATIENCE, () -> seen.size() == 1);
		assertThat(seen).extracting(Seen::node).containsExactly("node-a");
		assertThat(real.findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
		awaitAsserted(() -> assertThat(nodeA.runLedger().history(name, 10)).extracting(RunRecord::state)
			.containsExactly(RunState.SUCCEEDED));
	}

	@Test
	void aDirectCallBetweenARunsEndAndItsLateCompletionDoesNotMakeTheSlotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("direct-between");
		Duration ttl = Duration.ofSeconds(2);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		// node-a cannot tell the store its run ended (a pause longer than the TTL, a
		// short partition) until node-b has made a direct call of the job
		AtomicBoolean storeDown = new AtomicBoolean(true);
		LeaseBackend cutOff = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun") && storeDown.get()) {
						throw new IllegalStateException("connection refused (simulated)");
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", cutOff, clock(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", real, clock(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		assertThat(nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		advance(ttl.plusMillis(300));
		List<Seen> direct = new CopyOnWriteArrayList<>();
		// the direct call may be refused while the run awaits its completion, as while
		// the lease is live, but once the completion is recorded it runs
		boolean ranBefore = nodeB.execute(job, null, RunTrigger.DIRECT, () -> direct.add(Seen.of("node-b")));
		storeDown.set(false);
		awaitUntil(() -> nodeA.undeliveredCompletions() == 0);
		if (!ranBefore) {
			assertThat(nodeB.execute(job, null, RunTrigger.DIRECT, () -> direct.add(Seen.of("node-b")))).isTrue();
		}
		assertThat(direct).hasSize(1);
		nodeB.startBackgroundWork();
		advance(ttl.multipliedBy(3));
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1));
	}

	@Test
	protected void aCatchUpRunWhoseNextRunCannotStartIsRecordedAndNotRunAgain() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("catch-up-pause");
		Duration ttl = Duration.ofSeconds(2);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		// node-a pauses (a GC, SIGSTOP) after the first catch-up run ended and before it
		// starts the next one, for longer than the TTL: the store refuses that start
		AtomicInteger starts = new AtomicInteger();
		LeaseBackend paused = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("startRun") && starts.incrementAndGet() == 2) {
						advance(ttl.plusMillis(700));
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", paused, clock(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", real, clock(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		assertThat(nodeA.execute(job, minute(1), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		nodeA.execute(job, minute(4), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")));
		assertThat(starts.get()).isEqualTo(2);
		assertThat(seen).extracting(Seen::slot).containsExactly(minute(1), minute(2));
		// node-b takes up what node-a left (the slots after the one node-a ran, up to
		// what its misfire limit keeps), but not the slot node-a ran before its pause
		nodeB.startBackgroundWork();
		awaitUntil(() -> seen.size() >= 3);
		advance(ttl.multipliedBy(3));
		assertThat(seen).extracting(Seen::slot).doesNotHaveDuplicates();
		assertThat(seen).filteredOn((s) -> s.node().equals("node-b"))
			.extracting(Seen::slot)
			.allMatch((slot) -> slot.isAfter(minute(2)));
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void aCatchUpRunWhoseNextStartFailsBeforeReachingTheStoreIsRecordedAndNotRunAgain() throws Throwable {
		assertNextStartFailureLosesNoSlotAndRunsNoneTwice("start-unsent", false);
	}

	@Test
	void aCatchUpRunWhoseNextStartReachesTheStoreButIsAnsweredWithAnErrorDoesNotEndTheNextRun() throws Throwable {
		assertNextStartFailureLosesNoSlotAndRunsNoneTwice("start-reply-lost", true);
	}

	/**
	 * node-a runs slot 1, then a catch-up of slots 2 and 3 before slot 4; the start of
	 * slot 3 throws, after it reached the store ({@code reached}) or before: node-a sends
	 * slot 2's end, and node-b takes up the rest. Every slot runs exactly once. The slots
	 * are a few minutes back, so that node-b's catch-up at its start reaches back to them
	 * within the misfire limit.
	 */
	private void assertNextStartFailureLosesNoSlotAndRunsNoneTwice(String jobName, boolean reached) throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName(jobName);
		Duration ttl = Duration.ofSeconds(2);
		JobDefinition job = cronJob(name, policies(MisfirePolicy.RUN_ALL, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		Instant base = clock().instant().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(6));
		List<Instant> slots = List.of(base.plusSeconds(60), base.plusSeconds(120), base.plusSeconds(180),
				base.plusSeconds(240));
		LeaseBackend real = backend();
		AtomicInteger starts = new AtomicInteger();
		LeaseBackend failing = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(
				LeaseBackend.class.getClassLoader(), new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					boolean fail = method.getName().equals("startRun") && starts.incrementAndGet() == 2;
					if (fail && !reached) {
						throw new IllegalStateException("connection refused (simulated)");
					}
					Object result;
					try {
						result = method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
					if (fail) {
						throw new IllegalStateException("read timed out (simulated, after the store took it)");
					}
					return result;
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor nodeA = executor("node-a", failing, clock(), new RecordingListener(), ttl);
		ClusterSingletonExecutor nodeB = executor("node-b", real, clock(), new RecordingListener(), ttl);
		nodeB.registerJob(job, () -> seen.add(Seen.of("node-b")));
		assertThat(nodeA.execute(job, slots.get(0), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")))).isTrue();
		nodeA.execute(job, slots.get(3), RunTrigger.SCHEDULED, () -> seen.add(Seen.of("node-a")));
		assertThat(starts.get()).isEqualTo(2);
		assertThat(seen).extracting(Seen::slot).containsExactly(slots.get(0), slots.get(1));
		assertThat(nodeA.undeliveredCompletions()).as("slot 2's end was taken").isZero();
		nodeB.startBackgroundWork();
		awaitUntil(() -> seen.stream().map(Seen::slot).toList().containsAll(slots.subList(2, 4)));
		advance(ttl.multipliedBy(3));
		assertThat(seen).extracting(Seen::slot).doesNotHaveDuplicates().containsAll(slots);
		assertThat(seen).filteredOn((s) -> s.node().equals("node-a"))
			.extracting(Seen::slot)
			.containsExactly(slots.get(0), slots.get(1));
		// a start that reached the store made slot 3 a run that died before it ran:
		// node-b runs it as a recovery attempt
		assertThat(seen).filteredOn((s) -> slots.get(2).equals(s.slot()))
			.extracting(Seen::attempt)
			.containsExactly(reached ? 2 : 1);
		assertThat(seen).extracting(Seen::fencingToken).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void aNodeNeverTakesOverTheRunWhoseCompletionItIsStillSending() throws Throwable {
		assumeTrue(supportsRecovery());
		String name = jobName("own-takeover");
		JobDefinition job = cronJob(name, policies(MisfirePolicy.SKIP, 10, RecoveryPolicy.LOST, 3, Duration.ZERO));
		LeaseBackend real = backend();
		CountDownLatch completing = new CountDownLatch(1);
		CountDownLatch proceed = new CountDownLatch(1);
		// the first completion waits, as for a pool connection or a slow commit, while
		// the run's lease expires in the store
		LeaseBackend slow = (LeaseBackend) java.lang.reflect.Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					if (method.getName().equals("completeRun") && completing.getCount() > 0) {
						completing.countDown();
						proceed.await(30, TimeUnit.SECONDS);
					}
					try {
						return method.invoke(real, args);
					}
					catch (java.lang.reflect.InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		List<Seen> seen = new CopyOnWriteArrayList<>();
		ClusterSingletonExecutor node = executor("node-a", slow, clock(), new RecordingListener());
		ClusterSingletonExecutor.Invocation body = () -> seen.add(Seen.of("node-a"));
		node.registerJob(job, body);
		node.startBackgroundWork();
		Future<Boolean> run = submit(() -> node.execute(job, minute(1), RunTrigger.SCHEDULED, body));
		try {
			assertThat(awaitOpen(completing, Duration.ofSeconds(10))).isTrue();
			// the lease expires, the grace passes: this node's own recovery must not run
			// the slot again while it still sends the run's end
			holdsFor(TTL.multipliedBy(3), PATIENCE, () -> seen.size() == 1);
			// nor may the next slot's trigger here, which would take the run over first
			assertThat(node.execute(job, minute(2), RunTrigger.SCHEDULED, body)).isFalse();
			assertThat(seen).hasSize(1);
		}
		finally {
			proceed.countDown();
		}
		assertThat(result(run, Duration.ofSeconds(10))).isTrue();
		holdsFor(TTL.multipliedBy(2), PATIENCE, () -> seen.size() == 1);
		assertThat(real.findPending(Map.of(name, job.policies().claimPolicy()))).isEmpty();
	}

}
