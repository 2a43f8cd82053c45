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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.LeaderElection;
import io.github.clustersingleton.lease.JobRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.util.Assert;

/**
 * {@link Endpoint @Endpoint} that shows cluster-singleton's jobs as this node sees them:
 * the lease store, this node's owner id, and per job its settings, the store's view of
 * its lease, whether this node holds it, and this node's last runs. Its delete operation
 * force-releases a stuck lease; it is only reachable when write access is granted
 * ({@code management.endpoint.clustersingleton.access=unrestricted}).
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Endpoint(id = "clustersingleton", defaultAccess = Access.READ_ONLY)
public class ClusterSingletonEndpoint {

	private static final Log logger = LogFactory.getLog(ClusterSingletonEndpoint.class);

	/**
	 * How many runs of each job the endpoint shows from the run ledger.
	 */
	private static final int HISTORY_LIMIT = 20;

	private final JobRegistry registry;

	private final Supplier<@Nullable ClusterSingletonExecutor> executor;

	private final ClusterSingletonRunHistory history;

	/**
	 * Create an endpoint.
	 * @param registry the registry of the application's jobs
	 * @param executor supplies the engine, or {@code null} while it does not exist (an
	 * application without jobs never creates it)
	 * @param history the run history of this node
	 */
	public ClusterSingletonEndpoint(JobRegistry registry, Supplier<@Nullable ClusterSingletonExecutor> executor,
			ClusterSingletonRunHistory history) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(executor, "'executor' must not be null");
		Assert.notNull(history, "'history' must not be null");
		this.registry = registry;
		this.executor = executor;
		this.history = history;
	}

	/**
	 * Describe every job.
	 * @return the description
	 */
	@ReadOperation
	public ClusterSingletonDescriptor clusterSingleton() {
		ClusterSingletonExecutor executor = this.executor.get();
		Set<String> held = (executor != null) ? executor.heldJobs() : Set.of();
		LeaseBackend backend = (executor != null) ? executor.getBackend() : null;
		Map<String, JobDescriptor> jobs = new LinkedHashMap<>();
		// one store failure is reported for every job, without waiting for the store
		// once per job
		String storeError = null;
		for (JobDefinition job : this.registry.jobs()) {
			LeaseView lease = (storeError != null)
					? new LeaseView(null, "not read after an earlier error: " + storeError)
					: readLease(backend, job.name());
			storeError = (lease.error() != null) ? lease.error() : storeError;
			jobs.put(job.name(), describe(job, lease, held, executor));
		}
		Duration clockOffset = (executor != null) ? executor.clockOffset().orElse(null) : null;
		LeaderDescriptor leader = (executor != null)
				? executor.leadership().map((election) -> describeLeader(election, backend)).orElse(null) : null;
		return new ClusterSingletonDescriptor((backend != null) ? backend.id() : null,
				(executor != null) ? executor.getSettings().owner() : null, clockOffset, leader, jobs);
	}

	private static LeaderDescriptor describeLeader(LeaderElection election, @Nullable LeaseBackend backend) {
		LeaseView lease = readLease(backend, election.getLeaseName());
		LeaseInfo info = lease.lease();
		return new LeaderDescriptor(election.getLeaseName(), election.isLeader(), election.term(),
				(info != null && info.live()) ? info.holder() : null, (info != null) ? info.fencingToken() : 0,
				lease.error());
	}

	/**
	 * Describe one job.
	 * @param name the job name
	 * @return the description, or {@code null} (404) when there is no such job
	 */
	@ReadOperation
	public @Nullable JobDescriptor job(@Selector String name) {
		JobDefinition job = this.registry.forName(name).orElse(null);
		if (job == null) {
			return null;
		}
		ClusterSingletonExecutor executor = this.executor.get();
		Set<String> held = (executor != null) ? executor.heldJobs() : Set.of();
		LeaseBackend backend = (executor != null) ? executor.getBackend() : null;
		return describe(job, readLease(backend, name), held, executor);
	}

	/**
	 * Expire a job's lease now, whoever holds it, so that the next trigger on any node
	 * can take it. The fencing token and the last claimed slot are kept. A run still
	 * going on the holder loses its lease at its next renewal.
	 * @param name the job name
	 * @param securityContext the caller's security context
	 * @return the result
	 * @throws InvalidEndpointRequestException (400) when there is no such job
	 */
	@DeleteOperation
	public ForceReleaseDescriptor forceRelease(@Selector String name, SecurityContext securityContext) {
		if (this.registry.forName(name).isEmpty()) {
			// only the application's own jobs: never write arbitrary names to the store
			String reason = "No cluster-singleton job named '" + name + "'";
			throw new InvalidEndpointRequestException(reason + "; known jobs: " + this.registry.names(), reason);
		}
		ClusterSingletonExecutor executor = this.executor.get();
		Assert.state(executor != null, "cluster-singleton has not started yet");
		LeaseBackend backend = executor.getBackend();
		String owner = executor.getSettings().owner();
		LeaseInfo before = readLease(backend, name).lease();
		boolean released = backend.forceRelease(name);
		String principal = (securityContext.getPrincipal() != null) ? securityContext.getPrincipal().getName() : null;
		logger.warn("cluster-singleton force-released the lease of job '" + name + "' in the " + backend.id()
				+ " store through the clustersingleton endpoint of node '" + owner + "'"
				+ ((principal != null) ? " (requested by '" + principal + "')" : "") + ": " + (released
						? "the live lease of " + describeHolder(before) + " was expired" : "no live lease was held"));
		return new ForceReleaseDescriptor(name, released, (before != null && before.live()) ? before.holder() : null,
				(before != null) ? before.fencingToken() : 0, owner);
	}

	private JobDescriptor describe(JobDefinition job, LeaseView lease, Set<String> held,
			@Nullable ClusterSingletonExecutor executor) {
		CronSlotSchedule schedule = job.schedule();
		JobPolicies policies = job.policies();
		SettingsDescriptor settings = new SettingsDescriptor((schedule != null) ? schedule.describe() : List.of(),
				job.lockAtMostFor(), job.lockAtLeastFor(), job.enabled(), value(policies.misfire().name()),
				policies.misfireLimit(), value(policies.recovery().name()), policies.maxAttempts(),
				policies.retryDelay(), policies.alertAfter());
		List<RunRecord> history = List.of();
		String historyError = null;
		if (executor != null) {
			try {
				history = executor.runLedger().history(job.name(), HISTORY_LIMIT);
			}
			catch (RuntimeException ex) {
				logger.debug("cluster-singleton could not read the run ledger of job '" + job.name() + "'", ex);
				historyError = ex.getClass().getName() + ": " + ex.getMessage();
			}
		}
		Instant lastSuccess = history.stream()
			.filter((run) -> run.state() == RunState.SUCCEEDED && run.finishedAt() != null)
			.map(RunRecord::finishedAt)
			.max(Instant::compareTo)
			.orElse((executor != null) ? executor.clusterLastSuccess(job.name()).orElse(null) : null);
		boolean overdue = executor != null && executor.isOverdue(job);
		LeaseInfo info = lease.lease();
		LeaseDescriptor leaseDescriptor = (info != null) ? new LeaseDescriptor(info.holder(), info.live(),
				info.acquiredAt(), info.expiresAt(), info.fencingToken(), info.lastSlot()) : null;
		return new JobDescriptor(job.name(), settings, leaseDescriptor, lease.error(), held.contains(job.name()),
				this.history.runs(job.name()), lastSuccess, overdue,
				history.stream().map(ClusterSingletonEndpoint::describe).toList(), historyError);
	}

	private static RunDescriptor describe(RunRecord run) {
		return new RunDescriptor(run.slot(), run.attempt(), run.fencingToken(), run.owner(),
				value(run.trigger().name()), run.state().value(), run.startedAt(), run.finishedAt(), run.error());
	}

	private static String value(String enumName) {
		return enumName.toLowerCase(Locale.ROOT).replace('_', '-');
	}

	private static LeaseView readLease(@Nullable LeaseBackend backend, String name) {
		if (backend == null) {
			return new LeaseView(null, null);
		}
		try {
			Optional<LeaseInfo> info = backend.describe(name);
			return new LeaseView(info.orElse(null), null);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not describe the lease of job '" + name + "'", ex);
			return new LeaseView(null, ex.getClass().getName() + ": " + ex.getMessage());
		}
	}

	private static String describeHolder(@Nullable LeaseInfo before) {
		if (before == null || before.holder() == null) {
			return "an unknown holder";
		}
		return "'" + before.holder() + "' (fencingToken=" + before.fencingToken() + ")";
	}

	private record LeaseView(@Nullable LeaseInfo lease, @Nullable String error) {

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
	 * @param jobs the jobs by name
	 */
	public record ClusterSingletonDescriptor(@Nullable String backend, @Nullable String owner,
			@Nullable Duration clockOffset, @Nullable LeaderDescriptor leader,
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
	 */
	public record JobDescriptor(String name, SettingsDescriptor settings, @Nullable LeaseDescriptor lease,
			@Nullable String leaseError, boolean heldByThisNode, List<ClusterSingletonRunHistory.Run> lastRuns,
			@Nullable Instant lastSuccess, boolean overdue, List<RunDescriptor> history,
			@Nullable String historyError) implements OperationResponseBody {

	}

	/**
	 * One run of a job in the cluster-wide run ledger.
	 *
	 * @param slot the cron slot of the run, {@code null} for a run without one
	 * @param attempt the attempt of the slot
	 * @param fencingToken the fencing token of the run
	 * @param owner the node that ran it
	 * @param trigger why it ran: {@code scheduled}, {@code catch-up}, {@code recovery} or
	 * {@code direct}
	 * @param state {@code running}, {@code succeeded}, {@code failed} or {@code lost}
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
