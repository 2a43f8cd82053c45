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

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.clustersingleton.NodePresence;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Preferred-node routing of cron triggers: for each job, one live node (its preferred
 * node) claims the job's slot at the fire time; every other node skips the trigger
 * without a round trip and later asks the store in one read
 * ({@link NodePresence#claimedSince}) which of the jobs it skipped for that slot were
 * claimed, and claims the others as it would have at the fire time: the next node in line
 * after the preferred one {@link #sweepDelay} after the fire time, the others twice that,
 * so that a late preferred node costs one more claim, not one per node. A sweep that
 * finds the preferred node still claiming the slot's other jobs gives it another delay
 * ({@link #look}). The claim decides who runs the slot, as without routing; routing only
 * decides who asks first.
 * <p>
 * The live nodes come from the store's presence entries, renewed every third of the lease
 * TTL ({@link #heartbeat}), on a thread of their own that also runs the sweeps. A sweep
 * waits for the store's clock, as last measured, to pass its time. The jobs with a cron
 * schedule that this node runs are ordered by a hash of their names, and the {@code i}-th
 * one goes to the {@code i}-th live node (in the order of their owner ids), round robin:
 * nodes with the same jobs share them evenly (nodes whose jobs differ, during a rolling
 * deploy, disagree on some jobs, whose slots are then claimed by two nodes or by the
 * sweeps). Until the first heartbeat answered, or when this node sees no other live node,
 * it claims every job itself, as without routing.
 *
 * @author cluster-singleton contributors
 */
final class PreferredNodes {

	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	/**
	 * How many times at most a sweep looks at a slot's jobs whose preferred node is still
	 * claiming the slot's other jobs, a sweep delay apart, before it claims them anyway.
	 */
	static final int MAX_LOOKS = 8;

	/**
	 * How long a sweep's claim is given to reach the store, on a loaded node, before the
	 * next slot of its job may be claimed (which would refuse this one): part of the
	 * distance to the next fire time that routing and putting a look off require.
	 */
	static final Duration CLAIM_MARGIN = Duration.ofSeconds(1);

	private final NodePresence presence;

	private final String owner;

	private final Duration leaseTtl;

	private final Duration sweepDelay;

	/** Four fifths of {@link #sweepDelay}: see {@link #deferral()}. */
	private final Duration deferral;

	private final Clock clock;

	private final PendingWorkMonitor monitor;

	/** The live owners, sorted; empty until the first heartbeat answered. */
	private volatile List<String> live = List.of();

	/** Each job's place in the order of the jobs, by the hash of their names. */
	private volatile Map<String, Integer> ranks = Map.of();

	private volatile int rankedJobs = -1;

	/**
	 * How far at least a job's next fire time must be from a slot for the slot to be left
	 * to its preferred node: the second tier's sweep (two delays), the slot tolerance by
	 * which another node may claim the next slot early, and {@link #CLAIM_MARGIN} for the
	 * sweep's claim to reach the store. With the defaults, 2.5 s: a job that fires more
	 * often is claimed by every node at its fire time, as without routing. Computed once:
	 * it is asked at every fire time of every routed cron task.
	 */
	private final Duration routingHorizon;

	/**
	 * The routing horizon and a TTL: a lease left by a node killed while its release
	 * waited runs out before the next slot (32.5 s with the defaults).
	 */
	private final Duration releaseHorizon;

	/**
	 * The schedule of each job skipped here, as its trigger saw it (with the job's cron
	 * override, if any).
	 */
	private final Map<String, CronSlotSchedule> schedules = new ConcurrentHashMap<>();

	/** Per slot and tier, the jobs skipped here for it, until its sweep takes them. */
	private final Map<Sweep, Set<String>> skipped = new ConcurrentHashMap<>();

	private final StoreClock storeClock;

	/**
	 * The executor of the heartbeats and sweeps, a thread of their own so that other
	 * background work does not delay a sweep; {@code null} before the start and after
	 * {@link #leave}.
	 */
	private volatile @Nullable ScheduledExecutorService background;

	PreferredNodes(NodePresence presence, String owner, Duration leaseTtl, Duration sweepDelay, Duration slotTolerance,
			Clock clock, StoreClock storeClock, PendingWorkMonitor monitor) {
		this.presence = presence;
		this.owner = owner;
		this.leaseTtl = leaseTtl;
		this.sweepDelay = sweepDelay;
		// the slot tolerance is how early a node whose clock is ahead may claim the next
		// slot
		this.routingHorizon = sweepDelay.multipliedBy(2).plus(slotTolerance).plus(CLAIM_MARGIN);
		this.releaseHorizon = this.routingHorizon.plus(leaseTtl);
		this.deferral = sweepDelay.multipliedBy(4).dividedBy(5);
		this.clock = clock;
		this.storeClock = storeClock;
		this.monitor = monitor;
	}

	/**
	 * Start the heartbeats, the first at once.
	 * @param background the executor of the heartbeats and sweeps, which this shuts down
	 * in {@link #leave}
	 */
	void start(ScheduledExecutorService background) {
		this.background = background;
		long tick = Math.max(1, this.leaseTtl.toMillis() / 3);
		background.scheduleWithFixedDelay(this::heartbeat, 0, tick, TimeUnit.MILLISECONDS);
	}

	/**
	 * Whether this node leaves the trigger of {@code job} for {@code slot} to the job's
	 * preferred node: when it does, the job is put on the slot's sweep, and the caller
	 * skips the trigger.
	 * @param job the job
	 * @param slot the slot
	 * @return whether to skip the trigger here
	 */
	boolean skips(JobDefinition job, Instant slot) {
		ScheduledExecutorService background = this.background;
		CronSlotSchedule schedule = job.schedule();
		List<String> owners = this.live;
		int preferred = preferredElsewhere(job, slot, owners);
		if (background == null || schedule == null || preferred < 0) {
			return false;
		}
		if (this.schedules.get(job.name()) != schedule) {
			// a read costs less than a write, and the schedule rarely changes
			this.schedules.put(job.name(), schedule);
		}
		// the next node in line sweeps first; the others only if it did not claim either
		int tier = owners.get((preferred + 1) % owners.size()).equals(this.owner) ? 1 : 2;
		this.skipped.compute(new Sweep(slot, tier), (key, jobs) -> {
			Set<String> names = (jobs != null) ? jobs : newSweep(background, key);
			names.add(job.name());
			return names;
		});
		return true;
	}

	/**
	 * Whether this node would leave the trigger of {@code job} for {@code slot} to the
	 * job's preferred node, as {@link #skips} decides, without putting it on a sweep: so
	 * that the scheduler can run this node's own triggers of an instant first.
	 * @param job the job
	 * @param slot the slot
	 * @return whether another live node is the job's preferred node for the slot
	 */
	boolean defers(JobDefinition job, Instant slot) {
		return this.background != null && preferredElsewhere(job, slot, this.live) >= 0;
	}

	/**
	 * How long after its fire time a trigger that {@link #defers} starts: four fifths of
	 * the sweep delay (200 ms with the defaults).
	 * @return the deferral
	 */
	Duration deferral() {
		return this.deferral;
	}

	/**
	 * How long from now this node waits before it gives back the lease of a run of
	 * {@code job} for {@code slot} that returned: until two sweep delays after the slot,
	 * never longer, so that an instant's releases come after its claims. Only while
	 * routing sees another live node, and for a job whose next fire time is beyond
	 * {@link #releaseHorizon}.
	 * @param job the job
	 * @param slot the slot of the run
	 * @return the wait, or {@code null} to give the lease back at once
	 */
	@Nullable Duration releaseDelay(JobDefinition job, Instant slot) {
		CronSlotSchedule schedule = job.schedule();
		if (this.background == null || schedule == null || this.live.size() < 2) {
			return null;
		}
		Instant next = schedule.next(slot);
		if (next != null && !next.isAfter(slot.plus(this.releaseHorizon))) {
			return null;
		}
		Duration longest = this.sweepDelay.multipliedBy(2);
		Duration delay = Duration.between(this.clock.instant(), slot.plus(longest));
		if (delay.isNegative() || delay.isZero()) {
			return null;
		}
		// a clock stepped back since the slot does not stretch the wait
		return (delay.compareTo(longest) > 0) ? longest : delay;
	}

	/**
	 * The index in {@code owners} of the job's preferred node when the slot is routed and
	 * that node is another one; otherwise -1.
	 */
	private int preferredElsewhere(JobDefinition job, Instant slot, List<String> owners) {
		CronSlotSchedule schedule = job.schedule();
		if (schedule == null) {
			return -1;
		}
		RegisteredJob registered = this.monitor.registered(job.name());
		if (registered == null || !registered.runsNow()) {
			// the sweep runs a job through its registered invocation
			return -1;
		}
		Instant next = schedule.next(slot);
		if (next != null && !next.isAfter(slot.plus(this.routingHorizon))) {
			// fires again too soon for a sweep: a node whose clock is ahead may claim the
			// next slot before the sweep claims this one, which the store then refuses
			return -1;
		}
		int preferred = preferredIndex(owners, job.name());
		return (preferred < 0 || owners.get(preferred).equals(this.owner)) ? -1 : preferred;
	}

	private int preferredIndex(List<String> owners, String jobName) {
		if (owners.size() < 2) {
			return -1;
		}
		Integer rank = ranks().get(jobName);
		return (rank != null) ? rank % owners.size() : -1;
	}

	private Map<String, Integer> ranks() {
		int count = this.monitor.registeredCount();
		if (count != this.rankedJobs) {
			List<JobDefinition> jobs = this.monitor.registeredJobs();
			List<String> names = new ArrayList<>();
			for (JobDefinition job : jobs) {
				if (job.schedule() != null) {
					names.add(job.name());
				}
			}
			names.sort(Comparator.comparingLong(PreferredNodes::hash).thenComparing(Comparator.naturalOrder()));
			Map<String, Integer> ranks = new HashMap<>();
			for (int i = 0; i < names.size(); i++) {
				ranks.put(names.get(i), i);
			}
			this.ranks = ranks;
			this.rankedJobs = count;
		}
		return this.ranks;
	}

	/**
	 * Schedule the sweep of a slot for when the store's clock reaches the slot plus the
	 * sweep delay: a node whose clock runs ahead of the store's (within the slot
	 * tolerance) does not sweep before the preferred node's trigger.
	 */
	private Set<String> newSweep(ScheduledExecutorService background, Sweep sweep) {
		scheduleSweep(background, sweep);
		return ConcurrentHashMap.newKeySet();
	}

	private void scheduleSweep(ScheduledExecutorService background, Sweep sweep) {
		try {
			background.schedule(() -> sweep(sweep), Math.max(0, untilSweep(sweep)), TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// shutting down: nothing more is claimed
		}
	}

	/**
	 * How long until the store's clock, as last measured, reaches the slot plus the sweep
	 * delay (twice the delay for the second tier).
	 */
	private long untilSweep(Sweep sweep) {
		Duration offset = this.storeClock.offset().orElse(Duration.ZERO);
		return Duration
			.between(this.clock.instant(), sweep.slot().plus(this.sweepDelay.multipliedBy(sweep.tier())).plus(offset))
			.toMillis();
	}

	/**
	 * Claim the jobs skipped here for a slot that their preferred node did not claim: one
	 * read for all of them, then an ordinary claim of each, on the engine's workers. A
	 * sweep that comes before its time on the store's clock (the offset was measured
	 * since it was scheduled) waits for it.
	 */
	void sweep(Sweep sweep) {
		ScheduledExecutorService background = this.background;
		if (background != null && untilSweep(sweep) > 0) {
			scheduleSweep(background, sweep);
			return;
		}
		Set<String> jobs = this.skipped.remove(sweep);
		if (jobs == null || jobs.isEmpty()) {
			return;
		}
		look(sweep, jobs, 1);
	}

	/**
	 * Look which of the jobs skipped here for a slot were claimed, and claim the others,
	 * except those of a preferred node still at work on the slot: one that claimed some
	 * of them since the last look (the first look: any of its jobs skipped here) is
	 * claiming its jobs in turn, late but alive, and is given another sweep delay, up to
	 * {@value #MAX_LOOKS} looks, and only while the job's next fire time is further than
	 * {@link #routingHorizon} on the store's clock (a claim of the next slot would refuse
	 * this one). A preferred node that claimed none of them since the last look (dead,
	 * cut off, or done without them) has its jobs claimed at once.
	 */
	private void look(Sweep sweep, Set<String> jobs, int look) {
		Instant slot = sweep.slot();
		Set<String> claimed;
		boolean answered = true;
		try {
			claimed = this.presence.claimedSince(jobs, slot);
		}
		catch (RuntimeException ex) {
			// the store is out of reach: claim every one, as the triggers would have
			logger.debug("cluster-singleton could not read which jobs were claimed for slot " + slot
					+ "; claiming every job skipped for it", ex);
			claimed = Set.of();
			answered = false;
		}
		List<String> owners = this.live;
		Set<String> atWork = new HashSet<>();
		for (String name : claimed) {
			String preferred = preferredOwner(owners, name);
			if (preferred != null) {
				atWork.add(preferred);
			}
		}
		Set<String> later = new HashSet<>();
		for (String name : jobs) {
			if (claimed.contains(name)) {
				continue;
			}
			if (answered && look < MAX_LOOKS && atWork.contains(preferredOwner(owners, name))
					&& !nextSlotSoon(name, slot)) {
				later.add(name);
				continue;
			}
			EngineSupport.debug(logger, () -> "cluster-singleton claims job '" + name + "' for slot " + slot
					+ ": its preferred node did not within " + this.sweepDelay.multipliedBy(sweep.tier() + look - 1));
			this.monitor.claimSkippedSlot(name, slot);
		}
		ScheduledExecutorService background = this.background;
		if (!later.isEmpty() && background != null) {
			try {
				background.schedule(() -> look(sweep, later, look + 1), this.sweepDelay.toMillis(),
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				// shutting down: nothing more is claimed
			}
		}
	}

	/**
	 * Whether the job fires again after {@code slot} too soon for a look put off by one
	 * more delay: within two sweep delays, the slot tolerance and {@link #CLAIM_MARGIN}
	 * of now on the store's clock. The claim after a later look could come after a node
	 * (whose clock may be ahead by the tolerance) claimed the next slot, which refuses
	 * this one.
	 */
	private boolean nextSlotSoon(String jobName, Instant slot) {
		CronSlotSchedule schedule = this.schedules.get(jobName);
		if (schedule == null) {
			return true;
		}
		Instant next = schedule.next(slot);
		if (next == null) {
			return false;
		}
		Duration offset = this.storeClock.offset().orElse(Duration.ZERO);
		Instant storeNow = this.clock.instant().minus(offset);
		return !next.isAfter(storeNow.plus(this.routingHorizon));
	}

	private @Nullable String preferredOwner(List<String> owners, String jobName) {
		int preferred = preferredIndex(owners, jobName);
		return (preferred >= 0) ? owners.get(preferred) : null;
	}

	/**
	 * Renew this node's presence entry and take the live owners from the answer.
	 */
	void heartbeat() {
		if (this.background == null) {
			// left: the entry stays removed while the node finishes its runs
			return;
		}
		try {
			Set<String> owners = this.presence.heartbeat(this.owner, this.leaseTtl);
			List<String> sorted = new ArrayList<>(owners);
			if (!sorted.contains(this.owner)) {
				sorted.add(this.owner);
			}
			sorted.sort(Comparator.naturalOrder());
			this.live = List.copyOf(sorted);
		}
		catch (RuntimeException ex) {
			// the view stays as it was: a stale view costs at most the sweep's delay
			logger.debug("cluster-singleton could not renew this node's presence entry; the next tick tries again", ex);
		}
	}

	/**
	 * Remove this node's presence entry, on shutdown.
	 */
	void leave() {
		ScheduledExecutorService background = this.background;
		this.background = null;
		if (background == null) {
			return;
		}
		background.shutdownNow();
		try {
			this.presence.leave(this.owner);
		}
		catch (RuntimeException ex) {
			logger.debug("cluster-singleton could not remove this node's presence entry; it expires", ex);
		}
	}

	/**
	 * A slot's sweep on this node: tier 1 when this node is next in line after the job's
	 * preferred node (it sweeps after the delay), else tier 2 (after twice the delay,
	 * when neither claimed).
	 */
	record Sweep(Instant slot, int tier) {
	}

	/**
	 * FNV-1a over the name's UTF-8 bytes, then a 64-bit finalizer: the same on every JVM.
	 */
	static long hash(String value) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
			hash ^= (b & 0xff);
			hash *= 0x100000001b3L;
		}
		hash ^= (hash >>> 33);
		hash *= 0xff51afd7ed558ccdL;
		hash ^= (hash >>> 33);
		hash *= 0xc4ceb9fe1a85ec53L;
		hash ^= (hash >>> 33);
		return hash;
	}

}
