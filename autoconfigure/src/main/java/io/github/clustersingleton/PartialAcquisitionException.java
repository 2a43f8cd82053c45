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

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Thrown by {@link LeaseBackend#tryAcquireAll} when some of the claims sent together
 * failed and the store answered the others: tells the engine the answers it has, so that
 * one failed claim (or one failed round trip of several) does not cost the others the
 * leases the store granted them. A claim without an answer is in doubt, as after a failed
 * {@link LeaseBackend#tryAcquire}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class PartialAcquisitionException extends RuntimeException {

	private final List<@Nullable AcquireResult> results;

	/**
	 * Create a new instance.
	 * @param results the answer of each claim, in the order of the requests, {@code null}
	 * for a claim without an answer
	 * @param cause the first failure
	 */
	public PartialAcquisitionException(List<@Nullable AcquireResult> results, RuntimeException cause) {
		super(describe(results, cause), cause);
		this.results = Collections.unmodifiableList(new ArrayList<>(results));
	}

	private static String describe(List<@Nullable AcquireResult> results, RuntimeException cause) {
		Assert.notNull(results, "'results' must not be null");
		return "Answered " + results.stream().filter((result) -> result != null).count() + " of " + results.size()
				+ " claims, the others failed: " + cause;
	}

	/**
	 * Return what to throw when a store stopped answering claims sent one after another:
	 * the failure itself when no claim was answered, else this exception with the answers
	 * so far and no answer for the claims after them.
	 * @param answered the answers so far, in the order of the requests
	 * @param requests how many claims were asked for
	 * @param cause the failure
	 * @return the exception to throw
	 */
	public static RuntimeException after(List<@Nullable AcquireResult> answered, int requests, RuntimeException cause) {
		if (answered.isEmpty()) {
			return cause;
		}
		List<@Nullable AcquireResult> results = new ArrayList<>(answered);
		while (results.size() < requests) {
			results.add(null);
		}
		return new PartialAcquisitionException(results, cause);
	}

	/**
	 * Return the answer of each claim, in the order of the requests.
	 * @return the answers, {@code null} for a claim without an answer
	 */
	public List<@Nullable AcquireResult> getResults() {
		return this.results;
	}

}
