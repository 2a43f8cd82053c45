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
package io.github.clustersingleton;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * Published on the node where an operator changed a job's cluster-wide controls through
 * {@link ClusterSingletonOperations}, the Actuator endpoint or the dashboard.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonControlEvent extends ApplicationEvent {

	private final Action action;

	private final @Nullable String jobName;

	private final String principal;

	private final @Nullable String detail;

	/**
	 * Create an event.
	 * @param source the operations that carried the action out
	 * @param action what was done
	 * @param jobName the job, or {@code null} for every job
	 * @param principal who asked (the principal, else this node)
	 * @param detail the reason of a pause, the request id of a run-now, the cron
	 * expression of a reschedule, {@code catchUp=true|false} of a resume, else
	 * {@code null}
	 */
	public ClusterSingletonControlEvent(Object source, Action action, @Nullable String jobName, String principal,
			@Nullable String detail) {
		super(source);
		this.action = action;
		this.jobName = jobName;
		this.principal = principal;
		this.detail = detail;
	}

	/**
	 * Return what was done.
	 * @return the action
	 */
	public Action getAction() {
		return this.action;
	}

	/**
	 * Return the job, or {@code null} when the action was for every job.
	 * @return the job
	 */
	public @Nullable String getJobName() {
		return this.jobName;
	}

	/**
	 * Return who asked.
	 * @return the principal, else this node's identity
	 */
	public String getPrincipal() {
		return this.principal;
	}

	/**
	 * Return the action's detail.
	 * @return the detail, or {@code null}
	 */
	public @Nullable String getDetail() {
		return this.detail;
	}

	/**
	 * A control action.
	 */
	public enum Action {

		/**
		 * A job, or every job, was paused.
		 */
		PAUSE,

		/**
		 * A job, or every job, was resumed.
		 */
		RESUME,

		/**
		 * A run-now request was stored.
		 */
		RUN_NOW,

		/**
		 * A cron override was stored.
		 */
		RESCHEDULE,

		/**
		 * A cron override was cleared.
		 */
		CLEAR_SCHEDULE,

		/**
		 * A lease was force-released.
		 */
		FORCE_RELEASE

	}

}
