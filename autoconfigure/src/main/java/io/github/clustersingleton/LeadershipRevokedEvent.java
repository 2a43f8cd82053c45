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

import org.springframework.context.ApplicationEvent;

/**
 * Published when this node stops being the leader in leader mode: its leader lease was
 * lost (the store no longer holds it, or no renewal succeeded within one TTL) or given
 * back at shutdown. Runs under way keep their own job leases and see their own lease
 * state as before.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class LeadershipRevokedEvent extends ApplicationEvent {

	private final long term;

	private final String reason;

	/**
	 * Create an event.
	 * @param source the {@link ClusterLeadership}
	 * @param term the term that ended
	 * @param reason why it ended
	 */
	public LeadershipRevokedEvent(Object source, long term, String reason) {
		super(source);
		this.term = term;
		this.reason = reason;
	}

	/**
	 * Return the term that ended.
	 * @return the term
	 */
	public long getTerm() {
		return this.term;
	}

	/**
	 * Return why the term ended.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
