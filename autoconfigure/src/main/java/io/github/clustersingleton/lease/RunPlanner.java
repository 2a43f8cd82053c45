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

package io.github.clustersingleton.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.SlotRun;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Plans the runs of a claim that found work pending: recovery of a dead or failed run,
 * and the missed slots by the misfire policy.
 *
 * @author cluster-singleton contributors
 */
final class RunPlanner {

	/**
	 * Logs under the engine's category, as before the engine was split into parts.
	 */
	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	/**
	 * How many missed slots a {@code run-once} catch-up lists at most in
	 * {@link ClusterSingletonContext#missedSlots()}.
	 */
	private static final int MAX_MISSED_SLOTS = 1000;

	private RunPlanner() {
	}

	/**
	 * Plan the runs a claim that found work pending makes, in slot order: the recovery
	 * run of the current slot when the policy recovers it, then the missed slots by the
	 * misfire policy, then the claimed slot itself. Pure: no store and no threads.
	 * @param job the job
	 * @param current the job's current run as the store reported it
	 * @param lastSlot the slot the claim took
	 * @param trigger why the claim was made
	 * @return the runs to make, possibly none
	 */

	static List<RunPlan> plan(JobDefinition job, SlotRun current, Instant lastSlot, RunTrigger trigger) {
		JobPolicies policies = job.policies();
		List<RunPlan> plans = new ArrayList<>();
		if (policies.claimPolicy().recovers(current.state(), current.attempt())) {
			plans.add(new RunPlan(current.slot(), current.attempt() + 1, RunTrigger.RECOVERY, List.of()));
		}
		else if (current.state() == RunState.RUNNING || current.state() == RunState.FAILED) {
			logger.warn("cluster-singleton job '" + job.name() + "': the run of slot " + current.slot() + " (attempt "
					+ current.attempt() + ") " + ((current.state() == RunState.FAILED) ? "failed" : "was lost")
					+ " and is not run again (recovery=" + policies.recovery().name().toLowerCase(Locale.ROOT)
					+ ", max-attempts=" + policies.maxAttempts() + ")");
		}
		CronSlotSchedule schedule = job.schedule();
		if (schedule == null || !lastSlot.isAfter(current.slot())) {
			return plans;
		}
		RunTrigger finalTrigger = (trigger == RunTrigger.SCHEDULED) ? RunTrigger.SCHEDULED
				: (trigger == RunTrigger.CATCH_UP) ? RunTrigger.CATCH_UP : RunTrigger.RECOVERY;
		switch (policies.misfire()) {
			case SKIP -> {
				CronSlotSchedule.Slots missed = schedule.slotsBetween(current.slot(), lastSlot, 0);
				if (missed.total() > 0) {
					logger.info("cluster-singleton job '" + job.name() + "' skips " + missed.total()
							+ " missed slot(s) between " + current.slot() + " and " + lastSlot + " (misfire=skip)");
				}
				plans.add(new RunPlan(lastSlot, 1, finalTrigger, List.of()));
			}
			case RUN_ONCE -> {
				CronSlotSchedule.Slots missed = schedule.slotsBetween(current.slot(), lastSlot, MAX_MISSED_SLOTS);
				List<Instant> slots = missed.newest();
				if (finalTrigger == RunTrigger.CATCH_UP) {
					plans.add(new RunPlan(lastSlot, 1, RunTrigger.CATCH_UP, slots));
				}
				else {
					if (!slots.isEmpty()) {
						plans.add(new RunPlan(slots.get(slots.size() - 1), 1, RunTrigger.CATCH_UP,
								slots.subList(0, slots.size() - 1)));
					}
					plans.add(new RunPlan(lastSlot, 1, finalTrigger, List.of()));
				}
			}
			case RUN_ALL -> {
				int limit = policies.misfireLimit() - ((finalTrigger == RunTrigger.CATCH_UP) ? 1 : 0);
				CronSlotSchedule.Slots missed = schedule.slotsBetween(current.slot(), lastSlot, Math.max(limit, 0));
				if (missed.leftOut() > 0) {
					logger.warn("cluster-singleton job '" + job.name() + "' skips the " + missed.leftOut()
							+ " oldest of " + missed.total() + " missed slot(s) before " + lastSlot
							+ " (misfire=run-all, " + "misfire-limit=" + policies.misfireLimit() + ")");
				}
				for (Instant missedSlot : missed.newest()) {
					plans.add(new RunPlan(missedSlot, 1, RunTrigger.CATCH_UP, List.of()));
				}
				plans.add(new RunPlan(lastSlot, 1, finalTrigger, List.of()));
			}
		}
		return plans;
	}

}
