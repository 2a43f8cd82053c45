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
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.github.clustersingleton.ManualRun;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.kubernetes.LeaseAnnotations.MANUAL_RUNS;

/**
 * The run-now requests of a job in its Lease's {@value LeaseAnnotations#MANUAL_RUNS}
 * annotation: a JSON array of objects ({@code id}, {@code requestedBy},
 * {@code requestedAt}, {@code state}, {@code owner}, {@code fencingToken},
 * {@code finishedAt}, {@code error}), oldest first.
 *
 * @author cluster-singleton contributors
 */
final class ManualRuns {

	private static final Log logger = LogFactory.getLog(KubernetesLeaseBackend.class);

	private static final ObjectMapper json = new ObjectMapper();

	private ManualRuns() {
	}

	/**
	 * Return the requests of a Lease, oldest first; an unreadable annotation or entry is
	 * logged and left out.
	 * @param lease the job's Lease
	 * @param jobName the job
	 * @return the requests
	 */
	static List<ManualRun> read(Lease lease, String jobName) {
		String value = LeaseCodec.annotation(lease, MANUAL_RUNS);
		if (value == null || value.isBlank()) {
			return List.of();
		}
		List<ManualRun> runs = new ArrayList<>();
		try {
			for (JsonNode node : json.readTree(value)) {
				try {
					runs.add(new ManualRun(node.path("id").asText(), jobName, node.path("requestedBy").asText(),
							Instant.parse(node.path("requestedAt").asText()),
							ManualRun.State.valueOf(node.path("state").asText().toUpperCase(Locale.ROOT)),
							text(node, "owner"), node.path("fencingToken").asLong(0), instant(text(node, "finishedAt")),
							text(node, "error")));
				}
				catch (RuntimeException ex) {
					logger.warn(
							"cluster-singleton ignores an unreadable run-now request of job '" + jobName + "': " + node,
							ex);
				}
			}
		}
		catch (JsonProcessingException ex) {
			logger.warn("cluster-singleton ignores the unreadable run-now requests of job '" + jobName + "'", ex);
		}
		return runs;
	}

	/**
	 * Return a copy of a Lease with the given requests.
	 * @param lease the Lease
	 * @param runs the requests, oldest first
	 * @return the Lease to write
	 */
	static Lease written(Lease lease, List<ManualRun> runs) {
		ArrayNode array = json.createArrayNode();
		for (ManualRun run : runs) {
			ObjectNode node = array.addObject();
			node.put("id", run.id());
			node.put("requestedBy", run.requestedBy());
			node.put("requestedAt", run.requestedAt().toString());
			node.put("state", run.state().name().toLowerCase(Locale.ROOT));
			if (run.owner() != null) {
				node.put("owner", run.owner());
			}
			if (run.fencingToken() != 0) {
				node.put("fencingToken", run.fencingToken());
			}
			if (run.finishedAt() != null) {
				node.put("finishedAt", run.finishedAt().toString());
			}
			if (run.error() != null) {
				node.put("error", run.error());
			}
		}
		return new LeaseBuilder(lease).editMetadata()
			.addToAnnotations(MANUAL_RUNS, array.toString())
			.endMetadata()
			.build();
	}

	/**
	 * Return the position of a request.
	 * @param runs the requests
	 * @param id the request's id
	 * @return the index, or -1
	 */
	static int indexOf(List<ManualRun> runs, String id) {
		for (int i = 0; i < runs.size(); i++) {
			if (runs.get(i).id().equals(id)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Return the requests without the oldest ended ones beyond {@code keep}.
	 * @param runs the requests, oldest first
	 * @param keep how many ended requests to keep
	 * @return the kept requests, oldest first
	 */
	static List<ManualRun> trimmed(List<ManualRun> runs, int keep) {
		long ended = runs.stream().filter((run) -> run.state().isEnded()).count();
		List<ManualRun> kept = new ArrayList<>();
		for (ManualRun run : runs) {
			if (run.state().isEnded() && ended > keep) {
				ended--;
				continue;
			}
			kept.add(run);
		}
		return kept;
	}

	/**
	 * Parse an ISO-8601 instant.
	 * @param value the text
	 * @return the instant, or {@code null} when missing or unreadable
	 */
	static @Nullable Instant instant(@Nullable String value) {
		if (value == null || value.isBlank()) {
			return null;
		}
		try {
			return Instant.parse(value.strip());
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	private static @Nullable String text(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return (value == null || value.isNull()) ? null : value.asText();
	}

}
