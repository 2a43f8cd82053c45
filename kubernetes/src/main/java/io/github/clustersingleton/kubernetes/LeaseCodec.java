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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.github.clustersingleton.ClaimPolicy;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.RunState;
import io.github.clustersingleton.SlotRun;
import org.jspecify.annotations.Nullable;

import static io.github.clustersingleton.kubernetes.LeaseAnnotations.ATTEMPT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.FENCING_TOKEN;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.JOB_NAME;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.LAST_SLOT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.LEASE_TOKEN;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.MANAGED_BY;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.MANAGED_BY_LABEL;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.PAUSE_ALL_UNCHECKED;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RECOVER_MARK;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RETRY_AT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RUN_SLOT;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RUN_STATE;
import static io.github.clustersingleton.kubernetes.LeaseAnnotations.RUN_TOKEN;

/**
 * Reads what cluster-singleton keeps in a Lease: the holder in its spec, and the fencing
 * token, last slot, lease token and the job's current run (run slot, attempt, run state,
 * retry time) in its {@code cluster-singleton.io/*} annotations; and builds the Leases a
 * claim creates or writes.
 *
 * @author cluster-singleton contributors
 */
final class LeaseCodec {

	/**
	 * Fencing tokens of a Lease start at its {@code creationTimestamp} (API server time,
	 * whole seconds) times this, so that a Lease deleted and created again still hands
	 * out tokens above every earlier one (unless a job was acquired a million times per
	 * second of its Lease's life).
	 */
	static final long FENCING_TOKENS_PER_SECOND = 1_000_000;

	private LeaseCodec() {
	}

	/**
	 * The part of a Lease whose change shows its holder is alive, as client-go compares
	 * its leader election record: a label or annotation added by a person or a tool does
	 * not restart anybody's wait, while every renewal does (each writes a later
	 * {@code renewTime}).
	 */
	static String record(Lease lease) {
		LeaseSpec spec = lease.getSpec();
		return String.join("|", String.valueOf((spec != null) ? spec.getHolderIdentity() : null),
				String.valueOf(annotation(lease, LEASE_TOKEN)), String.valueOf(annotation(lease, FENCING_TOKEN)),
				String.valueOf((spec != null && spec.getRenewTime() != null) ? spec.getRenewTime().toInstant() : null),
				String.valueOf((spec != null) ? spec.getLeaseDurationSeconds() : null));
	}

	static boolean isHeldBy(Lease lease, HeldLease held) {
		return held.owner().equals(holder(lease)) && held.leaseToken().equals(annotation(lease, LEASE_TOKEN));
	}

	static @Nullable String holder(Lease lease) {
		String holder = (lease.getSpec() != null) ? lease.getSpec().getHolderIdentity() : null;
		return (holder == null || holder.isEmpty()) ? null : holder;
	}

	static @Nullable String annotation(Lease lease, String key) {
		Map<String, String> annotations = lease.getMetadata().getAnnotations();
		return (annotations != null) ? annotations.get(key) : null;
	}

	static void removeNullAnnotations(Lease lease) {
		Map<String, String> annotations = lease.getMetadata().getAnnotations();
		if (annotations != null) {
			annotations.values().removeIf(Objects::isNull);
		}
	}

	/**
	 * The Lease's last fencing token: its annotation, or, before the first write of one,
	 * the token its creation handed out, derived from the API server's
	 * {@code creationTimestamp}.
	 */
	static long fencingToken(Lease lease) {
		String value = annotation(lease, FENCING_TOKEN);
		if (value == null) {
			return firstFencingToken(lease);
		}
		try {
			return Long.parseLong(value.strip());
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException("The Kubernetes Lease '" + lease.getMetadata().getName()
					+ "' has an unreadable " + FENCING_TOKEN + " annotation '" + value + "'", ex);
		}
	}

	static long firstFencingToken(Lease lease) {
		String created = lease.getMetadata().getCreationTimestamp();
		if (created == null || created.isBlank()) {
			return 1;
		}
		try {
			return Math.max(1, Instant.parse(created.strip()).getEpochSecond() * FENCING_TOKENS_PER_SECOND);
		}
		catch (DateTimeParseException ex) {
			return 1;
		}
	}

	static @Nullable Instant lastSlot(Lease lease) {
		return instant(lease, LAST_SLOT);
	}

	private static @Nullable Instant instant(Lease lease, String key) {
		String value = annotation(lease, key);
		if (value == null || value.isBlank()) {
			return null;
		}
		try {
			return Instant.parse(value.strip());
		}
		catch (DateTimeParseException ex) {
			throw unreadable(lease, key, value, ex);
		}
	}

	/**
	 * The job's current run as the Lease records it: {@code null} until a claim with an
	 * active policy wrote a run slot.
	 */
	static @Nullable SlotRun run(Lease lease) {
		Instant slot = instant(lease, RUN_SLOT);
		if (slot == null) {
			return null;
		}
		String attempt = annotation(lease, ATTEMPT);
		String state = annotation(lease, RUN_STATE);
		try {
			return new SlotRun(slot, (attempt != null) ? Integer.parseInt(attempt.strip()) : 1,
					(state != null) ? RunState.fromValue(state.strip()) : RunState.RUNNING);
		}
		catch (IllegalArgumentException ex) {
			throw unreadable(lease, ATTEMPT + "/" + RUN_STATE, attempt + "/" + state, ex);
		}
	}

	/**
	 * Write a run that starts into a Lease's annotations: the slot's given attempt,
	 * running, with no retry time and no recovery mark.
	 */
	static void startRun(Map<String, String> annotations, Instant slot, int attempt) {
		annotations.put(RUN_SLOT, slot.toString());
		annotations.put(ATTEMPT, Integer.toString(attempt));
		annotations.put(RUN_STATE, RunState.RUNNING.value());
		annotations.remove(RETRY_AT);
		annotations.remove(RECOVER_MARK);
	}

	/**
	 * Whether the Lease, as read before a claim, has work pending under a policy (the
	 * predicate of {@link ClaimPolicy}); the Lease's expiry is judged elsewhere.
	 * @param lease the Lease as read
	 * @param policy the job's policy
	 * @param previousSlot the request's previous cron slot (first claims only)
	 * @param firstClaim whether this is a first claim: a failed run is taken over at
	 * once, and unclaimed slots count
	 * @param now this node's time, for the retry time of a failed run
	 */
	static boolean isPending(Lease lease, ClaimPolicy policy, @Nullable Instant previousSlot, boolean firstClaim,
			Instant now) {
		SlotRun run = run(lease);
		if (run == null || !policy.isActive()) {
			return false;
		}
		boolean retryDue = firstClaim;
		if (!retryDue && run.state() == RunState.FAILED) {
			Instant retryAt = instant(lease, RETRY_AT);
			retryDue = retryAt == null || !retryAt.isAfter(now);
		}
		return policy.isPending(run, lastSlot(lease), retryDue, firstClaim ? previousSlot : null);
	}

	private static IllegalStateException unreadable(Lease lease, String key, String value, Exception cause) {
		return new IllegalStateException("The Kubernetes Lease '" + lease.getMetadata().getName()
				+ "' has an unreadable " + key + " annotation '" + value + "'", cause);
	}

	static int seconds(Duration duration) {
		long seconds = duration.getSeconds() + ((duration.getNano() > 0) ? 1 : 0);
		return (int) Math.max(1, Math.min(Integer.MAX_VALUE, seconds));
	}

	/**
	 * The Lease as a claim leaves it: this request's holder, tokens and duration; run
	 * annotations as they were. A claim that does not override a pause has read the pause
	 * of every job, and takes {@link LeaseAnnotations#PAUSE_ALL_UNCHECKED} away.
	 */
	static Lease claimed(Lease current, LeaseRequest request, long fencingToken, @Nullable String lastSlot,
			Clock clock) {
		ZonedDateTime now = renewTime(current, clock);
		LeaseSpec spec = current.getSpec();
		String holder = holder(current);
		int transitions = (spec != null && spec.getLeaseTransitions() != null) ? spec.getLeaseTransitions() : 0;
		boolean neverClaimed = annotation(current, RUN_TOKEN) == null;
		Lease claimed = new LeaseBuilder(current).editMetadata()
			.addToAnnotations(FENCING_TOKEN, Long.toString(fencingToken))
			.addToAnnotations(LEASE_TOKEN, request.leaseToken())
			.addToAnnotations(RUN_TOKEN, request.leaseToken())
			.addToAnnotations(JOB_NAME, request.jobName())
			.addToAnnotations(LAST_SLOT, lastSlot)
			.removeFromAnnotations(RECOVER_MARK)
			.endMetadata()
			.editOrNewSpec()
			.withHolderIdentity(request.owner())
			.withLeaseDurationSeconds(seconds(request.ttl()))
			.withAcquireTime(now)
			.withRenewTime(now)
			// the first claim of a Lease (created unheld) is no transition, as when a
			// Lease is created held
			.withLeaseTransitions((request.owner().equals(holder) || neverClaimed) ? transitions : transitions + 1)
			.endSpec()
			.build();
		if (!request.overridesPause()) {
			claimed.getMetadata().getAnnotations().remove(PAUSE_ALL_UNCHECKED);
		}
		return claimed;
	}

	/**
	 * A new Lease for a job that nobody holds, as every job Lease is created: by the
	 * first claim of the job (which then claims it with a PUT), by its run ledger or by a
	 * pause. It carries {@link LeaseAnnotations#PAUSE_ALL_UNCHECKED} until a claim has
	 * read the pause of every job after the creation.
	 */
	static Lease unheld(String name, String namespace, String jobName) {
		return new LeaseBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(namespace)
			.addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
			.addToAnnotations(JOB_NAME, jobName)
			.addToAnnotations(PAUSE_ALL_UNCHECKED, "true")
			.endMetadata()
			.withNewSpec()
			.withLeaseTransitions(0)
			.endSpec()
			.build();
	}

	static ZonedDateTime now(Clock clock) {
		// MicroTime: the API server keeps microseconds
		return ZonedDateTime.ofInstant(clock.instant().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
	}

	/**
	 * The time to write as the {@code renewTime} of a new version of a Lease: now, but
	 * always after the Lease's current one, so that every write changes the record the
	 * other nodes watch, even on a clock that stands still or steps back.
	 */
	static ZonedDateTime renewTime(Lease current, Clock clock) {
		ZonedDateTime now = now(clock);
		ZonedDateTime renewed = (current.getSpec() != null) ? current.getSpec().getRenewTime() : null;
		return (renewed != null && !now.isAfter(renewed)) ? renewed.plus(1, ChronoUnit.MICROS) : now;
	}

}
