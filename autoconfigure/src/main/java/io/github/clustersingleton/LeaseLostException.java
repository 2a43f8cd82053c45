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
 * Thrown by {@link ClusterSingletonContext#checkLease()} when the current run no longer
 * holds its lease: the lease expired in the store, another node took it over, or the run
 * exceeded its {@code lockAtMostFor}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class LeaseLostException extends RuntimeException {

	private final String jobName;

	private final long fencingToken;

	/**
	 * Create a new instance.
	 * @param jobName the job whose lease was lost
	 * @param fencingToken the fencing token of the lost lease
	 * @param reason why the lease was lost
	 */
	public LeaseLostException(String jobName, long fencingToken, String reason) {
		super("Lease of cluster-singleton job '" + jobName + "' (fencing token " + fencingToken + ") was lost: "
				+ reason);
		this.jobName = jobName;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the name of the job whose lease was lost.
	 * @return the job name
	 */
	public String getJobName() {
		return this.jobName;
	}

	/**
	 * Return the fencing token of the lost lease.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
