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

import io.github.clustersingleton.ClusterSingletonControlEvent;
import io.github.clustersingleton.ClusterSingletonOperations;
import io.github.clustersingleton.JobControl;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseInfo;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ClusterSingletonDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ControlDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ErrorDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ForceReleaseDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.JobDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.LeaderDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.LeaseDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.ManualRunDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.RunDescriptor;
import io.github.clustersingleton.actuate.ClusterSingletonEndpointDescriptors.SettingsDescriptor;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.lease.LeaderElection;
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
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.util.Assert;

/**
 * {@link Endpoint @Endpoint} that shows cluster-singleton's jobs as this node sees them:
 * the lease store, this node's owner id, and per job its settings, its cluster-wide
 * controls, the store's view of its lease, whether this node holds it, and its last runs.
 * Its write operations control jobs cluster-wide through
 * {@link ClusterSingletonOperations} (pause, resume, run now, reschedule) and its delete
 * operation force-releases a stuck lease; both are only reachable when write access is
 * granted ({@code management.endpoint.clustersingleton.access=unrestricted}).
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

	/**
	 * How many run-now requests of each job the endpoint shows.
	 */
	private static final int MANUAL_RUN_LIMIT = 10;

	private final JobRegistry registry;

	private final Supplier<@Nullable ClusterSingletonExecutor> executor;

	private final ClusterSingletonRunHistory history;

	private final Supplier<@Nullable ClusterSingletonOperations> operations;

	private final @Nullable ApplicationEventPublisher eventPublisher;

	private final String path;

	/**
	 * Create an endpoint without control operations.
	 * @param registry the registry of the application's jobs
	 * @param executor supplies the engine, or {@code null} while it does not exist (an
	 * application without jobs never creates it)
	 * @param history the run history of this node
	 */
	public ClusterSingletonEndpoint(JobRegistry registry, Supplier<@Nullable ClusterSingletonExecutor> executor,
			ClusterSingletonRunHistory history) {
		this(registry, executor, history, () -> null, null, "/actuator/clustersingleton");
	}

	/**
	 * Create an endpoint.
	 * @param registry the registry of the application's jobs
	 * @param executor supplies the engine, or {@code null} while it does not exist (an
	 * application without jobs never creates it)
	 * @param history the run history of this node
	 * @param operations supplies the control operations, or {@code null} when there are
	 * none
	 * @param eventPublisher publishes the force-release events, or {@code null}
	 * @param path the endpoint's web path (such as {@code /actuator/clustersingleton}),
	 * to tell where a run-now request can be read back
	 */
	public ClusterSingletonEndpoint(JobRegistry registry, Supplier<@Nullable ClusterSingletonExecutor> executor,
			ClusterSingletonRunHistory history, Supplier<@Nullable ClusterSingletonOperations> operations,
			@Nullable ApplicationEventPublisher eventPublisher, String path) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(executor, "'executor' must not be null");
		Assert.notNull(history, "'history' must not be null");
		Assert.notNull(operations, "'operations' must not be null");
		Assert.hasText(path, "'path' must not be empty");
		this.registry = registry;
		this.executor = executor;
		this.history = history;
		this.operations = operations;
		this.eventPublisher = eventPublisher;
		this.path = path;
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
		JobControlsView controls = JobControlsView.read(backend, this.registry.names());
		Map<String, JobDescriptor> jobs = new LinkedHashMap<>();
		// one store failure is reported for every job, without waiting for the store
		// once per job
		String storeError = null;
		for (JobDefinition job : this.registry.jobs()) {
			LeaseView lease = (storeError != null)
					? new LeaseView(null, "not read after an earlier error: " + storeError)
					: readLease(backend, job.name());
			storeError = (lease.error() != null) ? lease.error() : storeError;
			jobs.put(job.name(), describe(job, lease, held, executor, controls));
		}
		Duration clockOffset = (executor != null) ? executor.clockOffset().orElse(null) : null;
		LeaderDescriptor leader = (executor != null)
				? executor.leadership().map((election) -> describeLeader(election, backend)).orElse(null) : null;
		return new ClusterSingletonDescriptor((backend != null) ? backend.id() : null,
				(executor != null) ? executor.getSettings().owner() : null, clockOffset, leader, controls.supported(),
				jobs);
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
		return describe(job, readLease(backend, name), held, executor, JobControlsView.read(backend, List.of(name)));
	}

	/**
	 * Read a run-now request of a job back.
	 * @param name the job name
	 * @param requestId the request's id
	 * @return the request; 404 when there is no such job or request, 503 when the store
	 * could not be read
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> manualRun(@Selector String name, @Selector String requestId) {
		ClusterSingletonOperations operations = this.operations.get();
		if (this.registry.forName(name).isEmpty() || operations == null) {
			return unknownJob(name);
		}
		try {
			return operations.manualRun(name, requestId)
				.<WebEndpointResponse<OperationResponseBody>>map(
						(run) -> new WebEndpointResponse<>(JobControlsView.describe(run)))
				.orElseGet(() -> error(WebEndpointResponse.STATUS_NOT_FOUND, "Not Found",
						"No run-now request '" + requestId + "' of job '" + name + "' is known to the lease store",
						name));
		}
		catch (RuntimeException ex) {
			return failed(name, "read run-now request '" + requestId + "'", ex);
		}
	}

	/**
	 * Control a job cluster-wide: {@code pause} it (with an optional {@code reason}),
	 * {@code resume} it (with {@code catchUp}), {@code run} it now, or {@code reschedule}
	 * it (to {@code cron}, or back to its own schedule without one).
	 * @param name the job name
	 * @param action {@code pause}, {@code resume}, {@code run} or {@code reschedule}
	 * @param reason why a job is paused, or {@code null}
	 * @param catchUp whether a resume leaves the slots passed while paused to the job's
	 * misfire policy; {@code false} when {@code null}
	 * @param cron the cron override of a reschedule, or {@code null} to clear it
	 * @param securityContext the caller's security context
	 * @return what was done; 404 for an unknown job, 400 for bad input, 501 when the
	 * lease store keeps no controls, 503 when it could not be reached
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> control(@Selector String name, @Nullable String action,
			@Nullable String reason, @Nullable Boolean catchUp, @Nullable String cron,
			SecurityContext securityContext) {
		if (this.registry.forName(name).isEmpty()) {
			// only the application's own jobs: never write arbitrary names to the store
			return unknownJob(name);
		}
		return ControlRequest.of(name, action, reason, catchUp, cron)
			.map((request) -> apply(request, securityContext))
			.orElseGet(() -> badAction(name, action, ControlRequest.JOB_ACTIONS));
	}

	/**
	 * Pause or resume every job cluster-wide, including the jobs of nodes that start
	 * later.
	 * @param action {@code pause} or {@code resume}
	 * @param reason why the jobs are paused, or {@code null}
	 * @param catchUp whether a resume leaves the slots passed while paused to each job's
	 * misfire policy; {@code false} when {@code null}
	 * @param securityContext the caller's security context
	 * @return what was done; 400 for bad input, 501 when the lease store keeps no
	 * controls, 503 when it could not be reached
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> controlAll(@Nullable String action, @Nullable String reason,
			@Nullable Boolean catchUp, SecurityContext securityContext) {
		return ControlRequest.of(null, action, reason, catchUp, null)
			.filter((request) -> request.forEveryJob())
			.map((request) -> apply(request, securityContext))
			.orElseGet(() -> badAction(null, action, ControlRequest.ALL_ACTIONS));
	}

	private WebEndpointResponse<OperationResponseBody> apply(ControlRequest request, SecurityContext securityContext) {
		ClusterSingletonOperations operations = this.operations.get();
		String job = request.job();
		if (operations == null) {
			return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, "Service Unavailable",
					"cluster-singleton has no ClusterSingletonOperations bean; nothing was changed", job);
		}
		String principal = principal(securityContext);
		ClusterSingletonExecutor executor = this.executor.get();
		String node = (executor != null) ? executor.getSettings().owner() : null;
		try {
			ManualRunDescriptor run = request.apply(operations.withPrincipal(principal));
			String location = (run != null) ? this.path + "/" + job + "/" + run.id() : null;
			return new WebEndpointResponse<>(
					new ControlDescriptor(request.action(), job, (principal != null) ? principal : node, node,
							request.reason(), request.catchUp(), request.cron(), run, location));
		}
		catch (RuntimeException ex) {
			return failed(job, request.action(), ex);
		}
	}

	private static WebEndpointResponse<OperationResponseBody> failed(@Nullable String job, String action,
			RuntimeException ex) {
		String target = (job != null) ? "job '" + job + "'" : "every job";
		if (ex instanceof IllegalArgumentException) {
			return error(WebEndpointResponse.STATUS_BAD_REQUEST, "Bad Request", String.valueOf(ex.getMessage()), job);
		}
		if (ex instanceof UnsupportedOperationException) {
			return error(501, "Not Implemented", "Cannot " + action + " " + target + ": " + ex.getMessage(), job);
		}
		logger.warn("cluster-singleton could not " + action + " " + target + " through the clustersingleton endpoint",
				ex);
		return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, "Service Unavailable",
				"Cannot " + action + " " + target + ": the lease store could not be reached (" + ex.getClass().getName()
						+ ": " + ex.getMessage() + "); nothing was changed",
				job);
	}

	private WebEndpointResponse<OperationResponseBody> unknownJob(String name) {
		return error(WebEndpointResponse.STATUS_NOT_FOUND, "Not Found",
				"No cluster-singleton job named '" + name + "'; known jobs: " + this.registry.names(), name);
	}

	private static WebEndpointResponse<OperationResponseBody> badAction(@Nullable String job, @Nullable String action,
			List<String> allowed) {
		String target = (job != null) ? "job '" + job + "'" : "every job (POST without a job name)";
		String problem;
		if (action == null || action.isBlank()) {
			problem = "Missing 'action'";
		}
		else if (job == null && ControlRequest.JOB_ACTIONS.contains(action.trim().toLowerCase(Locale.ROOT))) {
			problem = "Action '" + action + "' needs a job: POST it to clustersingleton/{job}";
		}
		else {
			problem = "Unknown action '" + action + "'";
		}
		return error(WebEndpointResponse.STATUS_BAD_REQUEST, "Bad Request",
				problem + " for " + target + "; expected one of " + String.join(", ", allowed), job);
	}

	private static WebEndpointResponse<OperationResponseBody> error(int status, String error, String message,
			@Nullable String job) {
		return new WebEndpointResponse<>(new ErrorDescriptor(status, error, message, job), status);
	}

	private static @Nullable String principal(SecurityContext securityContext) {
		return (securityContext.getPrincipal() != null) ? securityContext.getPrincipal().getName() : null;
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
		String principal = principal(securityContext);
		logger.warn("cluster-singleton force-released the lease of job '" + name + "' in the " + backend.id()
				+ " store through the clustersingleton endpoint of node '" + owner + "'"
				+ ((principal != null) ? " (requested by '" + principal + "')" : "") + ": " + (released
						? "the live lease of " + describeHolder(before) + " was expired" : "no live lease was held"));
		if (this.eventPublisher != null) {
			this.eventPublisher.publishEvent(new ClusterSingletonControlEvent(this,
					ClusterSingletonControlEvent.Action.FORCE_RELEASE, name, (principal != null) ? principal : owner,
					released ? "released " + describeHolder(before) : "no live lease"));
		}
		return new ForceReleaseDescriptor(name, released, (before != null && before.live()) ? before.holder() : null,
				(before != null) ? before.fencingToken() : 0, owner);
	}

	private JobDescriptor describe(JobDefinition job, LeaseView lease, Set<String> held,
			@Nullable ClusterSingletonExecutor executor, JobControlsView controls) {
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
		boolean heldHere = held.contains(job.name());
		JobControl control = controls.control(job.name());
		boolean running = heldHere
				|| (info != null && info.live() && (history.isEmpty() || history.get(0).state() == RunState.RUNNING));
		String state = control.paused() ? "paused" : running ? "running" : overdue ? "overdue" : "idle";
		return new JobDescriptor(job.name(), settings, leaseDescriptor, lease.error(), heldHere,
				this.history.runs(job.name()), lastSuccess, overdue,
				history.stream().map(ClusterSingletonEndpoint::describe).toList(), historyError, state,
				JobControlsView.nextFireTime(job, executor, control.cronOverride()), control.paused(),
				control.pausedBy(), control.pausedAt(), control.pauseReason(), control.cronOverride(),
				controls.manualRuns(job.name(), MANUAL_RUN_LIMIT), controls.error());
	}

	private static RunDescriptor describe(RunRecord run) {
		return new RunDescriptor(run.slot(), run.attempt(), run.fencingToken(), run.owner(),
				value(run.trigger().name()), run.state().value(), run.startedAt(), run.finishedAt(), run.error());
	}

	static String value(String enumName) {
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

}
