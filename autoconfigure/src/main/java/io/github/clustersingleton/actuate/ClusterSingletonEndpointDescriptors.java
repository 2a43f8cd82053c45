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

package io.github.clustersingleton.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The JSON bodies of the {@link ClusterSingletonEndpoint clustersingleton} endpoint.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class ClusterSingletonEndpointDescriptors {

	private ClusterSingletonEndpointDescriptors() {
	}

	/**
	 * Description of every job, the response of the read operation.
	 *
	 * @param backend the id of the lease store, {@code null} while no job has started the
	 * engine
	 * @param owner this node's identity in the store, {@code null} while no job has
	 * started the engine
	 * @param clockOffset this node's clock minus the store's, as last measured from an
	 * acquire or renewal round trip; {@code null} before the first measurement
	 * @param leader leader mode's state, {@code null} when leader mode is off
	 * @param controlsSupported whether the lease store keeps cluster-wide controls
	 * (pause, run now, reschedule)
	 * @param jobs the jobs by name
	 */
	public record ClusterSingletonDescriptor(@Nullable String backend, @Nullable String owner,
			@Nullable Duration clockOffset, @Nullable LeaderDescriptor leader, boolean controlsSupported,
			Map<String, JobDescriptor> jobs) implements OperationResponseBody {

	}

	/**
	 * Leader mode's state, as this node and the store see it.
	 *
	 * @param leaseName the name of the leader lease
	 * @param thisNodeIsLeader whether this node is the leader
	 * @param thisNodeTerm this node's term, {@code 0} when it is not the leader
	 * @param leader the holder of the live leader lease in the store, {@code null} when
	 * none (or the store could not be read)
	 * @param term the leader lease's fencing token in the store: the current or last term
	 * @param error why the store could not be read, {@code null} when it could
	 */
	public record LeaderDescriptor(String leaseName, boolean thisNodeIsLeader, long thisNodeTerm,
			@Nullable String leader, long term, @Nullable String error) {

	}

	/**
	 * Description of one job.
	 *
	 * @param name the job name
	 * @param settings the job's settings
	 * @param lease the store's view of its lease, {@code null} when the store has never
	 * seen the job or could not be read
	 * @param leaseError why the store could not be read, {@code null} when it could
	 * @param heldByThisNode whether a run of the job holds the lease on this node now
	 * @param lastRuns this node's last runs of the job, newest first
	 * @param lastSuccess when a run of the job last succeeded on any node, from the
	 * cluster-wide run ledger; {@code null} when none is known
	 * @param overdue whether no node has run the job successfully within its alert-after
	 * @param history the job's latest runs on every node, newest first, from the run
	 * ledger in the lease store
	 * @param historyError why the run ledger could not be read, {@code null} when it
	 * could
	 * @param state {@code paused}, {@code running} (a run holds the lease on some node),
	 * {@code overdue} or {@code idle}, in that order of precedence
	 * @param nextFireTime the next fire time of the job's cron schedule (of its cron
	 * override when it has one) by this node's clock, {@code null} for a job without a
	 * cron schedule
	 * @param paused whether the job is paused cluster-wide, by itself or with every job
	 * @param pausedBy who paused it, when paused
	 * @param pausedAt when it was paused, when paused
	 * @param pauseReason why it was paused, when given
	 * @param cronOverride the cron expression every node follows instead of the
	 * annotation's, {@code null} when none
	 * @param manualRuns the job's pending and recent run-now requests, newest first
	 * @param controlsError why the controls could not be read, {@code null} when they
	 * could
	 */
	public record JobDescriptor(String name, SettingsDescriptor settings, @Nullable LeaseDescriptor lease,
			@Nullable String leaseError, boolean heldByThisNode, List<ClusterSingletonRunHistory.Run> lastRuns,
			@Nullable Instant lastSuccess, boolean overdue, List<RunDescriptor> history, @Nullable String historyError,
			String state, @Nullable Instant nextFireTime, boolean paused, @Nullable String pausedBy,
			@Nullable Instant pausedAt, @Nullable String pauseReason, @Nullable String cronOverride,
			List<ManualRunDescriptor> manualRuns, @Nullable String controlsError) implements OperationResponseBody {

	}

	/**
	 * One run of a job in the cluster-wide run ledger.
	 *
	 * @param slot the cron slot of the run, {@code null} for a run without one
	 * @param attempt the attempt of the slot
	 * @param fencingToken the fencing token of the run
	 * @param owner the node that ran it
	 * @param trigger why it ran: {@code scheduled}, {@code catch-up}, {@code recovery},
	 * {@code direct} or {@code manual}
	 * @param state {@code running}, {@code succeeded}, {@code failed}, {@code lost} or
	 * {@code paused}
	 * @param startedAt when it started (its node's clock)
	 * @param finishedAt when it ended, {@code null} while running or when lost
	 * @param error what a failed run threw, in one line
	 */
	public record RunDescriptor(@Nullable Instant slot, int attempt, long fencingToken, String owner, String trigger,
			String state, Instant startedAt, @Nullable Instant finishedAt, @Nullable String error) {

	}

	/**
	 * Settings of a job.
	 *
	 * @param schedule the cron expressions of the job, each with its zone; empty for jobs
	 * without a cron trigger
	 * @param lockAtMostFor the hard cap of one run's lease
	 * @param lockAtLeastFor how long the lease is kept at least after acquisition
	 * @param enabled whether the job runs at all
	 * @param misfire the misfire policy ({@code skip}, {@code run-once}, {@code run-all})
	 * @param misfireLimit how many missed slots {@code run-all} runs at most
	 * @param recovery the recovery policy ({@code none}, {@code lost}, {@code failed})
	 * @param maxAttempts how many attempts a slot gets at most under recovery
	 * @param retryDelay how long after a failed attempt the next one may start
	 * @param alertAfter how long without a success makes the job overdue, {@code null}
	 * for never
	 */
	public record SettingsDescriptor(List<String> schedule, Duration lockAtMostFor, Duration lockAtLeastFor,
			boolean enabled, String misfire, int misfireLimit, String recovery, int maxAttempts, Duration retryDelay,
			@Nullable Duration alertAfter) {

	}

	/**
	 * The store's view of a job's lease.
	 *
	 * @param holder the owner of the last acquisition
	 * @param live whether the lease is held now, by the store's clock
	 * @param acquiredAt when it was last acquired (store time)
	 * @param expiresAt when it expires or expired (store time)
	 * @param fencingToken the fencing token of the last acquisition
	 * @param lastSlot the last claimed cron slot
	 */
	public record LeaseDescriptor(@Nullable String holder, boolean live, @Nullable Instant acquiredAt,
			@Nullable Instant expiresAt, long fencingToken, @Nullable Instant lastSlot) {

	}

	/**
	 * A run-now request of a job.
	 *
	 * @param id the request's id
	 * @param state {@code pending}, {@code running}, {@code succeeded} or {@code failed}
	 * @param requestedBy who asked, {@code null} when not known
	 * @param requestedAt when, {@code null} when not known
	 * @param owner the node that runs or ran it, once started
	 * @param fencingToken the fencing token of its run, once started, else {@code 0}
	 * @param finishedAt when it ended, once ended
	 * @param error what went wrong, when it failed
	 */
	public record ManualRunDescriptor(String id, String state, @Nullable String requestedBy,
			@Nullable Instant requestedAt, @Nullable String owner, long fencingToken, @Nullable Instant finishedAt,
			@Nullable String error) implements OperationResponseBody {

	}

	/**
	 * What a control request (a {@code POST}) did.
	 *
	 * @param action {@code pause}, {@code resume}, {@code run} or {@code reschedule}
	 * @param job the job, {@code null} when the action was for every job
	 * @param principal who asked: the authenticated principal, else the node that served
	 * the request
	 * @param node the identity of the node that served the request, {@code null} while no
	 * job has started the engine
	 * @param reason the reason of a pause
	 * @param catchUp whether a resume leaves the slots passed while paused to the misfire
	 * policy
	 * @param cron the cron override a reschedule stored, {@code null} when it cleared the
	 * override
	 * @param run the run-now request that was stored
	 * @param location the path to read the run-now request back
	 */
	public record ControlDescriptor(String action, @Nullable String job, @Nullable String principal,
			@Nullable String node, @Nullable String reason, @Nullable Boolean catchUp, @Nullable String cron,
			@Nullable ManualRunDescriptor run, @Nullable String location) implements OperationResponseBody {

	}

	/**
	 * Why a request was refused.
	 *
	 * @param status the HTTP status
	 * @param error the status's reason phrase
	 * @param message what was wrong
	 * @param job the job the request named, {@code null} for every job
	 */
	public record ErrorDescriptor(int status, String error, String message,
			@Nullable String job) implements OperationResponseBody {

	}

	/**
	 * Result of a force-release.
	 *
	 * @param name the job name
	 * @param released whether a live lease was expired
	 * @param previousHolder the holder of the expired lease, if known
	 * @param fencingToken the fencing token of the last acquisition before the release
	 * @param releasedBy the identity of the node that served the request
	 */
	public record ForceReleaseDescriptor(String name, boolean released, @Nullable String previousHolder,
			long fencingToken, String releasedBy) implements OperationResponseBody {

	}

}
