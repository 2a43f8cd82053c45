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

/**
 * Thrown by {@link RedisQuorumLeaseBackend} when fewer than a majority of the members
 * answered a call, or an acquisition or renewal took longer than the lease's validity.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class RedisQuorumException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the message
	 */
	public RedisQuorumException(String message) {
		super(message);
	}

}
