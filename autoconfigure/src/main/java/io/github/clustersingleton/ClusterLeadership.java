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

/**
 * This node's view of leader mode ({@code cluster-singleton.leader.enabled=true}): one
 * node of the cluster holds the leader lease, renewed by the watchdog with the job
 * leases, and only that node runs guarded jobs; the others skip them without asking the
 * store. The bean exists only in leader mode. {@link LeadershipGrantedEvent} and
 * {@link LeadershipRevokedEvent} announce the changes.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public interface ClusterLeadership {

	/**
	 * Return whether this node holds the leader lease now, as far as it knows: a lease
	 * whose renewal failed is held until its local deadline, one TTL after the last
	 * successful renewal.
	 * @return whether this node is the leader
	 */
	boolean isLeader();

	/**
	 * Return this node's term as leader: the fencing token of its leader lease, greater
	 * than every earlier term in the cluster.
	 * @return the term, or {@code 0} when this node is not the leader
	 */
	long term();

}
