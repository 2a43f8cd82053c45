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

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The cron overrides this node follows: the cluster-wide ones the control monitor last
 * read from the store, by job. A job's slots and its scheduled trigger follow its
 * override while there is one, and the annotation's schedule otherwise.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class CronOverrides {

	private static final Log logger = LogFactory.getLog(ClusterSingletonExecutor.class);

	private final Map<String, Override> overrides = new ConcurrentHashMap<>();

	private final Map<String, String> rejected = new ConcurrentHashMap<>();

	private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

	/**
	 * Return the cron expression a job follows instead of its annotation's.
	 * @param jobName the job
	 * @return the override, or {@code null}
	 */
	public @Nullable String expression(String jobName) {
		Override override = this.overrides.get(jobName);
		return (override != null) ? override.expression() : null;
	}

	/**
	 * Return the schedule a job follows now: its override, in the zone of its first cron
	 * expression, or its own.
	 * @param job the job
	 * @return the job with the schedule it follows now
	 */
	public JobDefinition apply(JobDefinition job) {
		Override override = this.overrides.get(job.name());
		if (override == null || job.schedule() == null) {
			return job;
		}
		return job.withSchedule(override.schedule());
	}

	/**
	 * Call a listener with the job's name whenever the override of a job changes.
	 * @param listener the listener
	 */
	public void addListener(Consumer<String> listener) {
		this.listeners.add(listener);
	}

	/**
	 * Set or clear a job's override.
	 * @param job the job
	 * @param expression the override, or {@code null} to clear it
	 * @return whether the override changed
	 */
	boolean update(JobDefinition job, @Nullable String expression) {
		Override current = this.overrides.get(job.name());
		if (Objects.equals((current != null) ? current.expression() : null, expression)) {
			return false;
		}
		CronSlotSchedule own = job.schedule();
		if (expression == null || own == null) {
			this.overrides.remove(job.name());
		}
		else {
			CronSlotSchedule schedule;
			try {
				schedule = CronSlotSchedule.of(expression, own.zone());
			}
			catch (IllegalArgumentException ex) {
				if (!expression.equals(this.rejected.put(job.name(), expression))) {
					logger.warn("cluster-singleton job '" + job.name() + "' keeps its schedule: the cron override '"
							+ expression + "' stored cluster-wide is invalid: " + ex.getMessage());
				}
				this.overrides.remove(job.name());
				return current != null;
			}
			this.overrides.put(job.name(), new Override(expression, schedule));
		}
		logger.info("cluster-singleton job '" + job.name() + "' now follows "
				+ ((expression != null) ? "the cron override '" + expression + "'" : "its own schedule " + own));
		for (Consumer<String> listener : this.listeners) {
			EngineSupport.notify(() -> listener.accept(job.name()));
		}
		return true;
	}

	private record Override(String expression, CronSlotSchedule schedule) {

	}

}
