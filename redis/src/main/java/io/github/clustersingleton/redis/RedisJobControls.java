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

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.JobControls;
import io.github.clustersingleton.ManualRun;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link JobControls} of the {@link RedisLeaseBackend}, kept next to the leases:
 * <ul>
 * <li>a job's pause in its meta hash {@code {<prefix>:<name>}:meta} ({@code paused_at} in
 * epoch milliseconds of the server's clock, {@code paused_by}, {@code pause_reason}), its
 * cron override there too ({@code cron}), and {@code all_paused_at} while a pause of
 * every job marks it;</li>
 * <li>the pause of every job in the hash {@code <prefix>:controls} ({@code paused_at},
 * {@code paused_by}, {@code pause_reason});</li>
 * <li>a job's run-now requests in the hash {@code {<prefix>:<name>}:manual}, one JSON
 * object per request id ({@code <millis>-<sequence>}, the sequence counted by the meta
 * hash's {@code manual_seq}); pending and running requests stay, and the newest
 * {@value #KEEP_ENDED} ended ones.</li>
 * </ul>
 * Every change is one Lua script on one job's hash slot, timed by the server's
 * {@code TIME}.
 * <p>
 * <strong>What is atomic.</strong> {@code acquire.lua} reads the job's meta hash in the
 * same script that claims, so a claim Redis runs after a pause of the job is refused with
 * outcome {@code paused}, and writes nothing. Outside a Redis Cluster (standalone,
 * Sentinel) the claim also reads {@code <prefix>:controls}, so a pause of every job holds
 * atomically for every job, including jobs Redis has never seen. In a Redis Cluster that
 * key lives on another slot and a claim cannot read it: a pause of every job first writes
 * it, then marks the meta hash of every job found by {@code SCAN} on every master
 * ({@code all_paused_at}), which the claim does read. A job never claimed before (no
 * {@code fence}) may have no meta hash to mark: its claim first writes a marker into the
 * meta hash ({@code claim_seen_at}, in the script that answers that the pause of every
 * job must be read), then reads {@code <prefix>:controls}, then claims, refused if the
 * meta hash got {@code all_paused_at} meanwhile. Either that read sees the pause, or the
 * pause's scan, which starts after its write, finds the meta hash and marks it. So once a
 * pause of every job returned, every claim of every job is refused; while it scans, a job
 * it has not marked yet is still claimed. A pause of every job that failed half-way
 * leaves the jobs it did not mark unpaused in a Redis Cluster (while {@link #read}
 * reports every job paused) until it is repeated; so does a failover that loses a marker
 * or a mark not yet replicated.
 * <p>
 * A run under a held lease ({@code start-run.lua}: a recovery or catch-up run) is refused
 * like a claim while the job is paused, and, after a resume without catch-up, for a slot
 * before the resume.
 * <p>
 * A run-now request starts ({@code manual-start.lua}) only while the job's lease hash
 * exists with the caller as owner and the meta hash's {@code fence} is the caller's
 * fencing token, and only from {@code pending}, in one script: of two calls, the second
 * finds it {@code running}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class RedisJobControls implements JobControls {

	/**
	 * How many ended run-now requests are kept per job.
	 */
	static final int KEEP_ENDED = 20;

	private final RedisScriptExecutor executor;

	private final RedisKeys keys;

	private final ClusterSlotGrouping grouping;

	RedisJobControls(RedisScriptExecutor executor, RedisKeys keys, ClusterSlotGrouping grouping) {
		this.executor = executor;
		this.keys = keys;
		this.grouping = grouping;
	}

	/**
	 * Read in one call outside a Redis Cluster; in a Redis Cluster, one call for the
	 * pause of every job and one per hash slot of the jobs.
	 */
	@Override
	public Map<String, JobControl> read(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		List<String> jobs = new ArrayList<>(new LinkedHashSet<>(jobNames));
		jobs.forEach((jobName) -> Assert.hasText(jobName, "'jobNames' must not contain an empty name"));
		if (!this.grouping.perSlot()) {
			try {
				ControlReadCall.Reply reply = new ControlReadCall(jobs, true).execute(this.executor, this.keys);
				return controls(jobs, reply.all(), reply.jobs());
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isCrossSlot(ex)) {
					throw ex;
				}
				this.grouping.crossSlot();
			}
		}
		ControlReadCall.Pause all = new ControlReadCall(List.of(), true).execute(this.executor, this.keys).all();
		Map<String, ControlReadCall.Job> stored = new HashMap<>();
		this.grouping.forEachGroup(jobs,
				(group) -> stored.putAll(new ControlReadCall(group, false).execute(this.executor, this.keys).jobs()),
				false);
		return controls(jobs, all, stored);
	}

	/**
	 * Return whether every job is paused, by one read of the pause-all key.
	 * @return whether every job is paused
	 */
	boolean pausedAll() {
		return new ControlReadCall(List.of(), true).execute(this.executor, this.keys).all() != null;
	}

	private static Map<String, JobControl> controls(List<String> jobs, ControlReadCall.@Nullable Pause all,
			Map<String, ControlReadCall.Job> stored) {
		Map<String, JobControl> controls = new LinkedHashMap<>();
		for (String jobName : jobs) {
			ControlReadCall.Job job = stored.get(jobName);
			if (job == null) {
				job = new ControlReadCall.Job(null, null, null, List.of());
			}
			controls.put(jobName, job.toControl(jobName, all));
		}
		return controls;
	}

	/**
	 * Pause a job in its meta hash; or every job: the pause-all key first, then a mark on
	 * the meta hash of every job that {@code SCAN} finds on every master. A pause of
	 * every job that fails half-way is safe to repeat.
	 */
	@Override
	public void pause(@Nullable String jobName, String pausedBy, @Nullable String reason) {
		Assert.hasText(pausedBy, "'pausedBy' must not be empty");
		String why = (reason != null) ? reason : "";
		if (jobName != null) {
			Assert.hasText(jobName, "'jobName' must not be empty");
			new ControlPauseCall(this.keys.meta(jobName), pausedBy, why, false).send(this.executor, this.keys);
			return;
		}
		new ControlPauseCall(this.keys.controls(), pausedBy, why, false).send(this.executor, this.keys);
		// twice: the second pass marks the jobs whose first claim read no pause just
		// before it was written, and stored their meta hash while the first pass scanned
		Set<String> marked = new HashSet<>();
		for (int pass = 0; pass < 2; pass++) {
			for (String stored : storedJobs()) {
				if (marked.add(stored)) {
					new ControlPauseCall(this.keys.meta(stored), pausedBy, "", true).send(this.executor, this.keys);
				}
			}
		}
	}

	/**
	 * Resume a job in its meta hash; or every job: the pause-all key first, which answers
	 * the resume time (the server's clock when its pause was cleared, kept in it as
	 * {@code resumed_at}), then every meta hash that {@code SCAN} finds, each given that
	 * one resume time, so that without catch-up every job's last slot moves to at least
	 * that time (and to its own clear's time while a job was still marked, which refused
	 * its claims until then). A resume of every job that fails half-way is safe to
	 * repeat: the pause-all key answers the same resume time again, and a job already
	 * resumed is moved no further than it.
	 */
	@Override
	public void resume(@Nullable String jobName, boolean catchUp) {
		if (jobName != null) {
			Assert.hasText(jobName, "'jobName' must not be empty");
			new ControlResumeCall(this.keys.meta(jobName), this.keys.lease(jobName), !catchUp, false)
				.send(this.executor, this.keys);
			return;
		}
		String resumeTime = new ControlResumeCall(this.keys.controls(), null, false, true)
			.execute(this.executor, this.keys)
			.time();
		for (String stored : storedJobs()) {
			new ControlResumeCall(this.keys.meta(stored), this.keys.lease(stored), !catchUp, true, resumeTime)
				.send(this.executor, this.keys);
		}
	}

	/**
	 * Return the jobs whose meta hash exists, by {@code SCAN} on every master.
	 */
	private List<String> storedJobs() {
		List<String> jobs = new ArrayList<>();
		for (String key : new LinkedHashSet<>(this.executor.scan(this.keys.metaPattern()))) {
			String jobName = this.keys.jobOfMeta(key);
			if (jobName != null) {
				jobs.add(jobName);
			}
		}
		return jobs;
	}

	@Override
	public void reschedule(String jobName, @Nullable String cron) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		new ControlRescheduleCall(jobName, cron).send(this.executor, this.keys);
	}

	@Override
	public ManualRun requestRun(String jobName, String requestedBy) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestedBy, "'requestedBy' must not be empty");
		return new ManualRequestCall(jobName, requestedBy).execute(this.executor, this.keys);
	}

	@Override
	public boolean startManualRun(String jobName, String requestId, String owner, long fencingToken) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		Assert.hasText(owner, "'owner' must not be empty");
		return new ManualStartCall(jobName, requestId, owner, fencingToken).execute(this.executor, this.keys);
	}

	@Override
	public void finishManualRun(String jobName, String requestId, ManualRun.State state, @Nullable String error) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		Assert.isTrue(state != null && state.isEnded(), "'state' must be SUCCEEDED or FAILED");
		new ManualFinishCall(jobName, requestId, state, error, KEEP_ENDED).send(this.executor, this.keys);
	}

	@Override
	public Optional<ManualRun> manualRun(String jobName, String requestId) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		Assert.hasText(requestId, "'requestId' must not be empty");
		return new ManualReadCall(jobName, requestId, 1).execute(this.executor, this.keys).stream().findFirst();
	}

	@Override
	public List<ManualRun> manualRuns(String jobName, int limit) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		if (limit <= 0) {
			return List.of();
		}
		return new ManualReadCall(jobName, null, limit).execute(this.executor, this.keys);
	}

	@Override
	public String toString() {
		return "RedisJobControls [keyPrefix=" + this.keys.prefix() + "]";
	}

}
