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
package io.github.clustersingleton.test;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.ManualRun;
import io.github.clustersingleton.RunState;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The cluster-wide controls of an {@link InMemoryLeaseBackend}, kept under its lock next
 * to its leases, so that its claims check a pause atomically.
 *
 * @author cluster-singleton contributors
 */
final class InMemoryJobControls implements JobControls {

	/**
	 * How many ended run-now requests are kept per job.
	 */
	private static final int MAX_ENDED_RUNS = 20;

	private final ReentrantLock lock;

	private final Runnable enter;

	private final Clock clock;

	private final Map<String, StoredLease> leases;

	private final Map<String, Pause> paused = new HashMap<>();

	private @Nullable Pause allPaused;

	/**
	 * When each job was last resumed without catch-up: a run of an earlier slot does not
	 * start, even under a lease claimed before.
	 */
	private final Map<String, Instant> resumedWithoutCatchUp = new HashMap<>();

	private final Map<String, String> cronOverrides = new HashMap<>();

	private final Map<String, Map<String, ManualRun>> manualRuns = new HashMap<>();

	InMemoryJobControls(ReentrantLock lock, Runnable enter, Clock clock, Map<String, StoredLease> leases) {
		this.lock = lock;
		this.enter = enter;
		this.clock = clock;
		this.leases = leases;
	}

	/**
	 * Return whether a run of a slot must not start under a live lease: the job is
	 * paused, or was resumed without catch-up after the slot; called under the lock.
	 */
	boolean refusesStartLocked(String jobName, Instant slot) {
		Instant resumed = this.resumedWithoutCatchUp.get(jobName);
		return isPausedLocked(jobName) || (resumed != null && slot.isBefore(resumed));
	}

	/**
	 * Return whether a job is paused; called under the lock.
	 */
	boolean isPausedLocked(String jobName) {
		return this.allPaused != null || this.paused.containsKey(jobName);
	}

	@Override
	public Map<String, JobControl> read(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		return locked(() -> {
			Map<String, JobControl> controls = new LinkedHashMap<>();
			for (String jobName : jobNames) {
				Pause pause = this.paused.get(jobName);
				if (pause == null) {
					pause = this.allPaused;
				}
				List<ManualRun> pending = runs(jobName).values()
					.stream()
					.filter((run) -> run.state() == ManualRun.State.PENDING)
					.toList();
				controls.put(jobName,
						new JobControl(jobName, pause != null, (pause != null) ? pause.by() : null,
								(pause != null) ? pause.at() : null, (pause != null) ? pause.reason() : null,
								this.cronOverrides.get(jobName), pending));
			}
			return controls;
		});
	}

	@Override
	public void pause(@Nullable String jobName, String pausedBy, @Nullable String reason) {
		Assert.hasText(pausedBy, "'pausedBy' must not be empty");
		locked(() -> {
			Pause pause = new Pause(pausedBy, this.clock.instant(), reason);
			if (jobName == null) {
				this.allPaused = pause;
			}
			else {
				this.paused.put(jobName, pause);
			}
			return null;
		});
	}

	@Override
	public void resume(@Nullable String jobName, boolean catchUp) {
		locked(() -> {
			Instant now = this.clock.instant();
			List<String> resumed = new ArrayList<>();
			if (jobName == null) {
				boolean all = this.allPaused != null;
				resumed.addAll(all ? this.leases.keySet() : this.paused.keySet());
				this.allPaused = null;
				this.paused.clear();
			}
			else if (this.paused.remove(jobName) != null && this.allPaused == null) {
				resumed.add(jobName);
			}
			if (!catchUp) {
				// the slots that passed while paused are not run, recovered or caught up
				for (String name : resumed) {
					this.resumedWithoutCatchUp.put(name, now);
					StoredLease lease = this.leases.get(name);
					if (lease != null && (lease.lastSlot == null || lease.lastSlot.isBefore(now))) {
						lease.lastSlot = now;
						if (lease.runState != RunState.RUNNING || !lease.isLive(now)) {
							// the row's last run ended before the pause: no gap between
							// it
							// and the moved slot is left to catch up
							lease.runSlot = null;
						}
					}
				}
			}
			return null;
		});
	}

	@Override
	public void reschedule(String jobName, @Nullable String cron) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		locked(() -> {
			if (cron != null) {
				this.cronOverrides.put(jobName, cron);
			}
			else {
				this.cronOverrides.remove(jobName);
			}
			return null;
		});
	}

	@Override
	public ManualRun requestRun(String jobName, String requestedBy) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestedBy, "'requestedBy' must not be empty");
		return locked(() -> {
			ManualRun run = new ManualRun(UUID.randomUUID().toString(), jobName, requestedBy, this.clock.instant(),
					ManualRun.State.PENDING, null, 0, null, null);
			runs(jobName).put(run.id(), run);
			return run;
		});
	}

	@Override
	public boolean startManualRun(String jobName, String requestId, String owner, long fencingToken) {
		return locked(() -> {
			ManualRun run = runs(jobName).get(requestId);
			StoredLease lease = this.leases.get(jobName);
			if (run == null || run.state() != ManualRun.State.PENDING || lease == null
					|| !lease.isLive(this.clock.instant()) || lease.fencingToken != fencingToken
					|| !owner.equals(lease.owner)) {
				return false;
			}
			runs(jobName).put(requestId, new ManualRun(run.id(), jobName, run.requestedBy(), run.requestedAt(),
					ManualRun.State.RUNNING, owner, fencingToken, null, null));
			return true;
		});
	}

	@Override
	public void finishManualRun(String jobName, String requestId, ManualRun.State state, @Nullable String error) {
		Assert.isTrue(state != null && state.isEnded(), "'state' must be SUCCEEDED or FAILED");
		locked(() -> {
			Map<String, ManualRun> runs = runs(jobName);
			ManualRun run = runs.get(requestId);
			if (run != null && run.state() == ManualRun.State.RUNNING) {
				runs.put(requestId, new ManualRun(run.id(), jobName, run.requestedBy(), run.requestedAt(), state,
						run.owner(), run.fencingToken(), this.clock.instant(), error));
				trim(runs);
			}
			return null;
		});
	}

	@Override
	public Optional<ManualRun> manualRun(String jobName, String requestId) {
		return locked(() -> Optional.ofNullable(runs(jobName).get(requestId)));
	}

	@Override
	public List<ManualRun> manualRuns(String jobName, int limit) {
		Assert.isTrue(limit >= 0, "'limit' must not be negative");
		return locked(() -> {
			List<ManualRun> runs = new ArrayList<>(runs(jobName).values());
			// newest first, also among requests made at the same instant
			java.util.Collections.reverse(runs);
			runs.sort(Comparator.comparing(ManualRun::requestedAt).reversed());
			return List.copyOf(runs.subList(0, Math.min(limit, runs.size())));
		});
	}

	private Map<String, ManualRun> runs(String jobName) {
		return this.manualRuns.computeIfAbsent(jobName, (name) -> new LinkedHashMap<>());
	}

	private static void trim(Map<String, ManualRun> runs) {
		long ended = runs.values().stream().filter((run) -> run.state().isEnded()).count();
		var iterator = runs.values().iterator();
		while (ended > MAX_ENDED_RUNS && iterator.hasNext()) {
			if (iterator.next().state().isEnded()) {
				iterator.remove();
				ended--;
			}
		}
	}

	private <T> T locked(java.util.function.Supplier<T> operation) {
		this.enter.run();
		this.lock.lock();
		try {
			return operation.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	private record Pause(String by, Instant at, @Nullable String reason) {

	}

}
