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

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;

import org.springframework.util.Assert;

/**
 * The run ledger of an {@link InMemoryLeaseBackend}, kept in this JVM next to its leases
 * and under the store's lock: every operation counts as one operation of the store.
 *
 * @author cluster-singleton contributors
 */
final class InMemoryRunLedger implements RunLedger {

	private final ReentrantLock lock;

	/**
	 * Count an operation of the store, and fail it when the store is unreachable.
	 */
	private final Runnable enter;

	/**
	 * Per job, the recorded runs by fencing token; guarded by {@link #lock}.
	 */
	private final Map<String, NavigableMap<Long, RunRecord>> runs = new HashMap<>();

	InMemoryRunLedger(ReentrantLock lock, Runnable enter) {
		this.lock = lock;
		this.enter = enter;
	}

	@Override
	public void record(RunRecord run, int maxRuns) {
		Assert.notNull(run, "'run' must not be null");
		Assert.isTrue(maxRuns >= 1, "'maxRuns' must be at least 1");
		this.enter.run();
		this.lock.lock();
		try {
			NavigableMap<Long, RunRecord> records = this.runs.computeIfAbsent(run.jobName(),
					(jobName) -> new TreeMap<>());
			records.put(run.fencingToken(), run);
			while (records.size() > maxRuns) {
				records.pollFirstEntry();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void markLostBefore(String jobName, long fencingToken) {
		Assert.notNull(jobName, "'jobName' must not be null");
		this.enter.run();
		this.lock.lock();
		try {
			NavigableMap<Long, RunRecord> records = this.runs.get(jobName);
			if (records != null) {
				for (Map.Entry<Long, RunRecord> entry : records.headMap(fencingToken, false).entrySet()) {
					if (entry.getValue().state() == RunState.RUNNING) {
						entry.setValue(entry.getValue().finish(RunState.LOST, null, null));
					}
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public List<RunRecord> history(String jobName, int limit) {
		Assert.notNull(jobName, "'jobName' must not be null");
		this.enter.run();
		this.lock.lock();
		try {
			NavigableMap<Long, RunRecord> records = this.runs.get(jobName);
			if (records == null) {
				return List.of();
			}
			return records.descendingMap().values().stream().limit(Math.max(0, limit)).toList();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		this.enter.run();
		Map<String, Instant> result = new LinkedHashMap<>();
		this.lock.lock();
		try {
			for (String jobName : jobNames) {
				NavigableMap<Long, RunRecord> records = this.runs.get(jobName);
				if (records == null) {
					continue;
				}
				List<Instant> ends = new ArrayList<>();
				for (RunRecord run : records.values()) {
					if (run.state() == RunState.SUCCEEDED && run.finishedAt() != null) {
						ends.add(run.finishedAt());
					}
				}
				ends.stream().max(Instant::compareTo).ifPresent((end) -> result.put(jobName, end));
			}
		}
		finally {
			this.lock.unlock();
		}
		return result;
	}

}
