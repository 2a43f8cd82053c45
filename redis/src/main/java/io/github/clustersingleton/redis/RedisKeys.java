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

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The key layout of the Redis lease backend: up to three keys per job, all under the hash
 * tag {@code {<prefix>:<name>}}, which keeps them on one Redis Cluster slot, and the
 * rules a prefix and a job name must follow to fit it.
 *
 * @author cluster-singleton contributors
 */
final class RedisKeys {

	private final String prefix;

	/**
	 * Create the layout of a prefix.
	 * @param prefix the prefix of every key, without braces
	 * @throws IllegalArgumentException when the prefix is empty or has a brace
	 */
	RedisKeys(String prefix) {
		Assert.isTrue(prefix != null && !prefix.isEmpty(), "'keyPrefix' must not be empty");
		Assert.isTrue(prefix.indexOf('{') < 0 && prefix.indexOf('}') < 0,
				() -> "Redis key prefix '" + prefix + "' must not contain '{' or '}': each key of a job is "
						+ "'{<prefix>:<name>}:lease' or ':meta', and the part in braces is the hash tag that keeps "
						+ "both on one Redis Cluster slot");
		this.prefix = prefix;
	}

	/**
	 * Return the prefix of every key.
	 * @return the prefix
	 */
	String prefix() {
		return this.prefix;
	}

	/**
	 * Return the key of a job's lease hash, {@code {<prefix>:<name>}:lease}.
	 * @param jobName the job name
	 * @return the key
	 */
	String lease(String jobName) {
		return hashTag(jobName) + ":lease";
	}

	/**
	 * Return the key of a job's meta hash, {@code {<prefix>:<name>}:meta}.
	 * @param jobName the job name
	 * @return the key
	 */
	String meta(String jobName) {
		return hashTag(jobName) + ":meta";
	}

	/**
	 * Return the key of a job's run ledger, {@code {<prefix>:<name>}:runs}.
	 * @param jobName the job name
	 * @return the key
	 */
	String runs(String jobName) {
		return hashTag(jobName) + ":runs";
	}

	/**
	 * Return the key of a job's run-now requests, {@code {<prefix>:<name>}:manual}.
	 * @param jobName the job name
	 * @return the key
	 */
	String manual(String jobName) {
		return hashTag(jobName) + ":manual";
	}

	/**
	 * Return the key of the pause of every job, {@code <prefix>:controls}.
	 * @return the key
	 */
	String controls() {
		return this.prefix + ":controls";
	}

	/**
	 * Return the key of the claims index, {@code <prefix>:claims}: a sorted set of job
	 * names, each scored by the slot its last first claim of a slot wrote into its meta
	 * hash's {@code last_slot}, outside a Redis Cluster only.
	 * @return the key
	 */
	String claims() {
		return this.prefix + ":claims";
	}

	/**
	 * Return the key of the presence entries of the live nodes, {@code <prefix>:nodes}.
	 * @return the key
	 */
	String nodes() {
		return this.prefix + ":nodes";
	}

	/**
	 * Return the {@code SCAN} pattern of the meta hashes of every job of this prefix.
	 * @return the pattern
	 */
	String metaPattern() {
		StringBuilder pattern = new StringBuilder("{");
		for (char c : this.prefix.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				pattern.append('\\');
			}
			pattern.append(c);
		}
		return pattern.append(":*}:meta").toString();
	}

	/**
	 * Return the job of a meta hash key.
	 * @param metaKey a key that {@link #metaPattern()} matched
	 * @return the job name, or {@code null} when the key is not a meta hash of this
	 * prefix
	 */
	@Nullable String jobOfMeta(String metaKey) {
		String start = "{" + this.prefix + ":";
		String end = "}:meta";
		if (!metaKey.startsWith(start) || !metaKey.endsWith(end) || metaKey.length() <= start.length() + end.length()) {
			return null;
		}
		return metaKey.substring(start.length(), metaKey.length() - end.length());
	}

	/**
	 * Return the keys most scripts about one job take: its lease and its meta hash.
	 * @param jobName the job name
	 * @return the lease key, then the meta key
	 */
	List<String> leaseAndMeta(String jobName) {
		return List.of(lease(jobName), meta(jobName));
	}

	/**
	 * Return the key that tells the server answers ({@code EXISTS}).
	 * @return the key
	 */
	String probe() {
		return this.prefix + ":probe";
	}

	private String hashTag(String jobName) {
		return "{" + this.prefix + ":" + jobName + "}";
	}

	/**
	 * Check that a job name fits the key layout: at most {@code maxLength} characters and
	 * no braces, which would move the end of the key's hash tag.
	 * @param jobName the job name
	 * @param maxLength the longest name accepted
	 * @throws IllegalArgumentException when the name does not fit
	 */
	void validateJobName(String jobName, int maxLength) {
		if (jobName == null || jobName.isEmpty()) {
			throw new IllegalArgumentException("Job name must not be empty");
		}
		if (jobName.length() > maxLength) {
			throw new IllegalArgumentException("Job name '" + jobName + "' is " + jobName.length()
					+ " characters long; the Redis lease backend accepts at most " + maxLength + " characters");
		}
		if (jobName.indexOf('{') >= 0 || jobName.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Job name '" + jobName + "' contains '{' or '}', which the Redis lease "
					+ "backend cannot use: the job's keys are '" + lease("<name>") + "' and '" + meta("<name>")
					+ "', and the part in braces is the Redis Cluster hash tag that keeps both on one slot; a brace "
					+ "in the name would change where that tag ends");
		}
	}

}
