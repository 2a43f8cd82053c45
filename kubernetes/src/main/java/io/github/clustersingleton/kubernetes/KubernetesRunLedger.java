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

package io.github.clustersingleton.kubernetes;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.github.clustersingleton.RunLedger;
import io.github.clustersingleton.RunRecord;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.RunTrigger;
import io.github.clustersingleton.kubernetes.OptimisticUpdate.Retry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RUNS;
import static io.github.clustersingleton.kubernetes.OptimisticUpdate.done;

/**
 * The run ledger of the Kubernetes backend: the annotation {@value LeaseAnnotations#RUNS}
 * of each job's Lease holds a JSON array of the job's newest runs, newest (highest
 * fencing token) first, at most {@value LeaseAnnotations#MAX_LEDGER_RUNS}. Every change
 * is a read and a PUT with the resourceVersion read, tried again when another write came
 * in between; the write touches only that annotation, so it never changes who holds the
 * Lease nor keeps a dead holder's Lease alive (expiry does not look at it).
 *
 * @author cluster-singleton contributors
 */
final class KubernetesRunLedger implements RunLedger {

	/**
	 * How often a ledger write is tried when other writes of the Lease (claims, renewals)
	 * keep coming in between its read and its PUT.
	 */
	private static final int ATTEMPTS = 10;

	private static final Log logger = LogFactory.getLog(KubernetesRunLedger.class);

	private static final ObjectMapper json = new ObjectMapper();

	private final JobLeases jobLeases;

	private final LeaseApi api;

	KubernetesRunLedger(JobLeases jobLeases, LeaseApi api) {
		this.jobLeases = jobLeases;
		this.api = api;
	}

	@Override
	public void record(RunRecord run, int maxRuns) {
		Assert.notNull(run, "'run' must not be null");
		recordAll(List.of(run), maxRuns);
	}

	/**
	 * One read and one PUT per job, whatever the number of its records: a job's start and
	 * end sent together, or the runs of several slots, are one write of its Lease.
	 */
	@Override
	public void recordAll(List<RunRecord> runs, int maxRuns) {
		Assert.notNull(runs, "'runs' must not be null");
		Assert.isTrue(maxRuns >= 1, "'maxRuns' must be at least 1");
		int keep = Math.min(maxRuns, LeaseAnnotations.MAX_LEDGER_RUNS);
		Map<String, List<RunRecord>> byJob = new LinkedHashMap<>();
		for (RunRecord run : runs) {
			byJob.computeIfAbsent(run.jobName(), (jobName) -> new ArrayList<>()).add(run);
		}
		RuntimeException failure = null;
		for (Map.Entry<String, List<RunRecord>> job : byJob.entrySet()) {
			try {
				update(job.getKey(), true, (current) -> merged(current, job.getValue(), keep));
			}
			catch (RuntimeException ex) {
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				else {
					failure = ex;
				}
				if (isOutage(ex)) {
					// the API server is out of reach or failing: the next jobs would each
					// wait for the request timeout, and the writer tries the whole group
					// again later
					throw failure;
				}
				// a failure of this job's Lease (a Lease of another component, writes
				// that kept coming in between): the other jobs' records are still written
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Whether a failure is the API server's rather than one job's Lease's: no answer (a
	 * timeout, a refused connection) or a server error.
	 */
	private static boolean isOutage(RuntimeException ex) {
		return ex instanceof KubernetesClientException clientException
				&& (clientException.getCode() == 0 || clientException.getCode() >= 500);
	}

	/**
	 * The runs with the new records in, each replacing the one of its fencing token (a
	 * later record of a run replaces an earlier one: the records come oldest first),
	 * newest first, at most {@code keep}. A run's start never replaces a record of how it
	 * ended (its own end, or {@code lost} written by the node that took the job over): a
	 * start written again after the end landed leaves the end.
	 */
	private static List<RunRecord> merged(List<RunRecord> current, List<RunRecord> records, int keep) {
		Map<Long, RunRecord> byToken = new LinkedHashMap<>();
		for (RunRecord run : current) {
			byToken.put(run.fencingToken(), run);
		}
		for (RunRecord run : records) {
			byToken.merge(run.fencingToken(), run,
					(recorded, next) -> (next.state() == RunState.RUNNING && recorded.state() != RunState.RUNNING)
							? recorded : next);
		}
		List<RunRecord> next = new ArrayList<>(byToken.values());
		next.sort(Comparator.comparingLong(RunRecord::fencingToken).reversed());
		return (next.size() > keep) ? next.subList(0, keep) : next;
	}

	@Override
	public void markLostBefore(String jobName, long fencingToken) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		update(jobName, false, (runs) -> {
			boolean changed = false;
			List<RunRecord> next = new ArrayList<>(runs.size());
			for (RunRecord run : runs) {
				if (run.fencingToken() < fencingToken && run.state() == RunState.RUNNING) {
					next.add(run.finish(RunState.LOST, null, null));
					changed = true;
				}
				else {
					next.add(run);
				}
			}
			return changed ? next : null;
		});
	}

	@Override
	public List<RunRecord> history(String jobName, int limit) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		if (limit <= 0) {
			return List.of();
		}
		Lease lease = this.api.get(this.jobLeases.leaseName(jobName));
		if (lease == null) {
			return List.of();
		}
		this.jobLeases.checkJob(lease, jobName);
		List<RunRecord> runs = read(lease, jobName);
		return (runs.size() > limit) ? List.copyOf(runs.subList(0, limit)) : runs;
	}

	/**
	 * One GET for one job, else one LIST of this backend's Leases for all of them.
	 */
	@Override
	public Map<String, Instant> lastSuccess(Collection<String> jobNames) {
		Assert.notNull(jobNames, "'jobNames' must not be null");
		if (jobNames.isEmpty()) {
			return Map.of();
		}
		Map<String, Lease> leases;
		if (jobNames.size() == 1) {
			String jobName = jobNames.iterator().next();
			Lease lease = this.api.get(this.jobLeases.leaseName(jobName));
			leases = (lease != null) ? Map.of(lease.getMetadata().getName(), lease) : Map.of();
		}
		else {
			leases = this.jobLeases.list();
		}
		Map<String, Instant> result = new LinkedHashMap<>();
		for (String jobName : jobNames) {
			Lease lease = leases.get(this.jobLeases.leaseName(jobName));
			if (lease == null || !JobLeases.isOf(lease, jobName)) {
				continue;
			}
			read(lease, jobName).stream()
				.filter((run) -> run.state() == RunState.SUCCEEDED && run.finishedAt() != null)
				.map(RunRecord::finishedAt)
				.max(Comparator.naturalOrder())
				.ifPresent((finished) -> result.put(jobName, finished));
		}
		return result;
	}

	/**
	 * Read the job's Lease, change its runs and PUT it with the resourceVersion read;
	 * again when another write came in between.
	 * @param jobName the job
	 * @param create whether to create the Lease (nobody holding it) when it does not
	 * exist
	 * @param change the new runs for the current ones, or {@code null} for no change
	 */
	private void update(String jobName, boolean create, Function<List<RunRecord>, @Nullable List<RunRecord>> change) {
		String name = this.jobLeases.leaseName(jobName);
		OptimisticUpdate
			.<@Nullable Lease, @Nullable Void>of(this.api, () -> this.api.get(name), Retry.pausing(ATTEMPTS), () -> {
				throw new IllegalStateException("cluster-singleton could not write the run ledger of job '" + jobName
						+ "' to the Kubernetes Lease '" + name + "': it changed under every one of " + ATTEMPTS
						+ " attempts");
			})
			// on a conflict (a 404 too): out of step with the claim or release that wrote
			// in between
			.run((lease, fromServer) -> {
				if (lease == null) {
					if (!create) {
						return done(null);
					}
					List<RunRecord> runs = change.apply(List.of());
					Lease created = this.jobLeases.newLease(jobName);
					created.getMetadata().getAnnotations().put(RUNS, write(runs));
					return OptimisticUpdate.<@Nullable Void>create(created, (written) -> null).ifGone((ex) -> {
						throw ex;
					});
				}
				this.jobLeases.checkJob(lease, jobName);
				List<RunRecord> runs = change.apply(read(lease, jobName));
				String value = (runs != null) ? write(runs) : null;
				if (value == null || value.equals(LeaseCodec.annotation(lease, RUNS))) {
					// nothing to change (a group sent again after a partial failure): no
					// PUT, which would change the Lease's resourceVersion under its
					// holder
					return done(null);
				}
				Lease next = new LeaseBuilder(lease).editMetadata().addToAnnotations(RUNS, value).endMetadata().build();
				return OptimisticUpdate.update(next, (written) -> null);
			});
	}

	/**
	 * The runs the Lease's annotation holds, newest first; an unreadable annotation or
	 * entry is logged and left out (the next write replaces it).
	 */
	private static List<RunRecord> read(Lease lease, String jobName) {
		String value = LeaseCodec.annotation(lease, RUNS);
		if (value == null || value.isBlank()) {
			return List.of();
		}
		List<RunRecord> runs = new ArrayList<>();
		try {
			for (JsonNode node : json.readTree(value)) {
				try {
					runs.add(run(jobName, node));
				}
				catch (RuntimeException ex) {
					logger.warn("cluster-singleton ignores an unreadable entry of the " + RUNS
							+ " annotation of the Kubernetes Lease '" + lease.getMetadata().getName() + "': " + node,
							ex);
				}
			}
		}
		catch (JacksonException ex) {
			logger.warn("cluster-singleton ignores the unreadable " + RUNS + " annotation of the Kubernetes Lease '"
					+ lease.getMetadata().getName() + "'", ex);
			return List.of();
		}
		runs.sort(Comparator.comparingLong(RunRecord::fencingToken).reversed());
		return runs;
	}

	private static RunRecord run(String jobName, JsonNode node) {
		return new RunRecord(jobName, instant(node, "slot"), node.path("attempt").asInt(1),
				node.get("fencingToken").asLong(), node.get("owner").asText(),
				RunTrigger.valueOf(node.get("trigger").asText()), RunState.fromValue(node.get("state").asText()),
				Instant.parse(node.get("startedAt").asText()), instant(node, "finishedAt"), text(node, "error"));
	}

	private static String write(List<RunRecord> runs) {
		ArrayNode array = json.createArrayNode();
		for (RunRecord run : runs) {
			ObjectNode node = array.addObject();
			node.put("fencingToken", run.fencingToken());
			node.put("slot", (run.slot() != null) ? run.slot().toString() : null);
			node.put("attempt", run.attempt());
			node.put("owner", run.owner());
			node.put("trigger", run.trigger().name());
			node.put("state", run.state().value());
			node.put("startedAt", run.startedAt().toString());
			node.put("finishedAt", (run.finishedAt() != null) ? run.finishedAt().toString() : null);
			node.put("error", run.error());
		}
		return array.toString();
	}

	private static @Nullable Instant instant(JsonNode node, String field) {
		String value = text(node, field);
		return (value != null) ? Instant.parse(value) : null;
	}

	private static @Nullable String text(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return (value == null || value.isNull()) ? null : value.asText();
	}

}
