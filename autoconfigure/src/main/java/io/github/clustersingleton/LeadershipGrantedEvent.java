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
 * Published when this node becomes the leader in leader mode.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class LeadershipGrantedEvent extends ApplicationEvent {

	private final long term;

	/**
	 * Create an event.
	 * @param source the {@link ClusterLeadership}
	 * @param term the new term (the leader lease's fencing token)
	 */
	public LeadershipGrantedEvent(Object source, long term) {
		super(source);
		this.term = term;
	}

	/**
	 * Return the term this node leads.
	 * @return the term
	 */
	public long getTerm() {
		return this.term;
	}

}
