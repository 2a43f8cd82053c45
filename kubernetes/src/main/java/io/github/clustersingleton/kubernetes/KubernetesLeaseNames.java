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

package io.github.clustersingleton.kubernetes;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

import org.springframework.util.Assert;

/**
 * Maps job names to Kubernetes object names. A Lease name must be a DNS label (RFC 1123):
 * at most 63 characters, lower-case letters, digits and {@code -}, starting and ending
 * with a letter or digit. {@code <prefix><job name>} is lower-cased, every other
 * character becomes {@code -}, and {@code -} at either end is dropped; a name longer than
 * 63 characters keeps its first 54 characters and ends with {@code -} and 8 hex digits of
 * the SHA-256 of the job name, so long names that share a beginning stay apart. Two job
 * names can still map to one Lease name ({@code billing.run} and {@code billing_run});
 * the backend rejects the second at startup.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class KubernetesLeaseNames {

	/**
	 * The longest DNS label.
	 */
	public static final int MAX_LENGTH = 63;

	private static final int HASH_LENGTH = 8;

	private static final Pattern PREFIX = Pattern.compile("([a-z0-9][a-z0-9-]*)?");

	private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");

	/**
	 * The longest lease prefix: leaves room for at least 23 characters of the job name.
	 */
	public static final int MAX_PREFIX_LENGTH = 40;

	private KubernetesLeaseNames() {
	}

	/**
	 * Check a lease prefix: empty, or lower-case letters, digits and {@code -} starting
	 * with a letter or digit, at most {@value #MAX_PREFIX_LENGTH} characters.
	 * @param prefix the prefix
	 * @throws IllegalArgumentException with the reason when it is not usable
	 */
	public static void checkPrefix(String prefix) {
		Assert.notNull(prefix, "'prefix' must not be null");
		if (prefix.length() > MAX_PREFIX_LENGTH || !PREFIX.matcher(prefix).matches()) {
			throw new IllegalArgumentException("Kubernetes lease prefix '" + prefix + "' is not usable: it must be "
					+ "empty or start with a lower-case letter or digit, hold only lower-case letters, digits and "
					+ "'-', and be at most " + MAX_PREFIX_LENGTH + " characters long (each Lease is named "
					+ "<prefix><job name>, a DNS label of at most " + MAX_LENGTH + " characters)");
		}
	}

	/**
	 * Return the name of a job's Lease.
	 * @param prefix the lease prefix, already {@link #checkPrefix checked}
	 * @param jobName the job name
	 * @return the Lease name, a valid DNS label
	 * @throws IllegalArgumentException when the job name leaves nothing usable
	 */
	public static String leaseName(String prefix, String jobName) {
		Assert.hasText(jobName, "'jobName' must not be empty");
		String raw = (prefix + jobName).toLowerCase(Locale.ROOT);
		StringBuilder name = new StringBuilder(raw.length());
		for (int i = 0; i < raw.length(); i++) {
			char c = raw.charAt(i);
			boolean allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
			name.append(allowed ? c : '-');
		}
		String sanitized = trimDashes(name.toString());
		if (sanitized.length() > MAX_LENGTH) {
			sanitized = trimDashes(sanitized.substring(0, MAX_LENGTH - HASH_LENGTH - 1)) + "-" + hash(jobName);
		}
		if (!LABEL.matcher(sanitized).matches()) {
			throw new IllegalArgumentException("Job name '" + jobName + "' gives no usable Kubernetes Lease name "
					+ "(it needs at least one letter or digit)");
		}
		return sanitized;
	}

	private static String trimDashes(String name) {
		int start = 0;
		int end = name.length();
		while (start < end && name.charAt(start) == '-') {
			start++;
		}
		while (end > start && name.charAt(end - 1) == '-') {
			end--;
		}
		return name.substring(start, end);
	}

	private static String hash(String jobName) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(jobName.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest).substring(0, HASH_LENGTH);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

}
