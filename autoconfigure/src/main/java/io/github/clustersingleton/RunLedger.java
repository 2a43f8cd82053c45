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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The cluster-wide history of guarded runs, kept in the lease store: one record per
 * attempt, keyed by job and fencing token. The engine writes to it off the run's thread;
 * a ledger that cannot be written loses history, never a run.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface RunLedger {

	/**
	 * A ledger that keeps nothing, for backends without one.
	 */
	RunLedger NONE = new RunLedger() {

		@Override
		public void record(RunRecord run, int maxRuns) {
		}

		@Override
		public void markLostBefore(String jobName, long fencingToken) {
		}

		@Override
		public List<RunRecord> history(String jobName, int limit) {
			return List.of();
		}

		@Override
		public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
			return Map.of();
		}

	};

	/**
	 * Insert or replace the record of one run (key: job name and fencing token), and keep
	 * at most {@code maxRuns} records of the job, dropping the oldest.
	 * @param run the record
	 * @param maxRuns how many records of the job to keep
	 */
	void record(RunRecord run, int maxRuns);

	/**
	 * Insert or replace the records of several runs, in their order (a later record with
	 * the same job name and fencing token replaces an earlier one), and keep at most
	 * {@code maxRuns} records of each of their jobs. The engine sends the records that
	 * queued up while its previous write was on its way, so that a store that can write
	 * them together (one statement or script for many) does so; the default records them
	 * one by one.
	 * @param runs the records, oldest first
	 * @param maxRuns how many records of each job to keep
	 */
	default void recordAll(List<RunRecord> runs, int maxRuns) {
		for (RunRecord run : runs) {
			record(run, maxRuns);
		}
	}

	/**
	 * Insert or replace the records of several runs, as {@link #recordAll(List, int)},
	 * told which of them are the first record of their run anyone writes: the engine
	 * replaced the start of a short run by its end before it sent either, so the ledger
	 * holds no record of that run yet, and a store may write such a record without first
	 * removing an earlier one. Writing it again (a retry of a write whose answer was
	 * lost) must leave one record. The default ignores the hint.
	 * @param runs the records, oldest first
	 * @param maxRuns how many records of each job to keep
	 * @param firstRecord tells which of {@code runs} are the first record of their run
	 * @since 0.1.0
	 */
	default void recordAll(List<RunRecord> runs, int maxRuns, Predicate<RunRecord> firstRecord) {
		recordAll(runs, maxRuns);
	}

	/**
	 * Mark every run of a job that is still recorded as running and whose fencing token
	 * is lower than the given one as lost (their nodes died or lost the lease before a
	 * later claim took the job over). Runs that have ended, and runs with the given
	 * fencing token or a higher one, stay as they are.
	 * @param jobName the job name
	 * @param fencingToken the fencing token of the claim that took the job over: runs
	 * with a lower one that are still running are lost
	 */
	void markLostBefore(String jobName, long fencingToken);

	/**
	 * Return the most recent runs of a job, newest (highest fencing token) first.
	 * @param jobName the job name
	 * @param limit the most records to return
	 * @return the records
	 */
	List<RunRecord> history(String jobName, int limit);

	/**
	 * Return when each job last ended a run successfully anywhere in the cluster, in one
	 * round trip where the store allows.
	 * @param jobNames the jobs
	 * @return the end time of the latest successful run per job; jobs without one are
	 * missing
	 */
	Map<String, Instant> lastSuccess(Collection<String> jobNames);

}
