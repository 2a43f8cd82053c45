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

package io.github.clustersingleton.redis;

import java.util.List;

import static io.github.clustersingleton.redis.RedisReplies.asLong;
import static io.github.clustersingleton.redis.RedisReplies.element;

/**
 * A script call that can grant a lease or a run ({@code acquire.lua},
 * {@code start-run.lua}): both answer {@code 1} first when they granted. With
 * {@code min-replicas}, a grant too few replicas acknowledged is given back before the
 * rest of the reply is read, so that a reply this version cannot read never leaves a
 * lease only the master knows.
 *
 * @author cluster-singleton contributors
 */
interface GrantingCall {

	/**
	 * Return the job the call is for.
	 * @return the job name
	 */
	String jobName();

	/**
	 * Return the token of the lease the call grants or extends.
	 * @return the lease token
	 */
	String leaseToken();

	/**
	 * Return what the call grants, for messages ("acquisition", "new run").
	 * @return the name of the grant
	 */
	String grantName();

	/**
	 * Return whether a reply of the call says it granted.
	 * @param reply the raw reply
	 * @return whether the lease or run was granted
	 */
	default boolean granted(List<Object> reply) {
		return asLong(element(reply, 0)) == 1;
	}

}
