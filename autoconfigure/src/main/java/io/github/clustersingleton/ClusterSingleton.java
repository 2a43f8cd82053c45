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

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a method (usually a {@code @Scheduled} one) that runs on one node of the cluster
 * at a time. Every invocation first asks the configured lease store for the job's lease;
 * the node that gets it runs the method, every other node skips that run. While the
 * method runs, a watchdog renews the lease; when it returns, the lease is released (or
 * kept until {@link #lockAtLeastFor()}).
 * <p>
 * For a {@code @Scheduled(cron = ...)} method each run also claims its cron slot, so a
 * slot runs at most once in the cluster even when the nodes' clocks disagree.
 * <p>
 * The method must be proxyable (not private, static or final) and return {@code void};
 * both are checked at startup. Calls that reach the method through its bean are guarded
 * too, not only the scheduler's.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 * @see ClusterSingletonContext
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface ClusterSingleton {

	/**
	 * Name of the job, the key of its lease in the store. Defaults to
	 * {@code SimpleClassName.methodName}. Supports {@code ${...}} placeholders.
	 * @return the job name
	 */
	String name() default "";

	/**
	 * Hard cap on how long one run may hold the lease, as a duration string such as
	 * {@code "30m"}, {@code "PT30M"} or {@code "1500ms"}, or a {@code ${...}}
	 * placeholder. Empty means {@code cluster-singleton.default-lock-at-most-for}. A
	 * {@code cluster-singleton.jobs.<name>.lock-at-most-for} property wins over this
	 * value.
	 * @return the maximum lease duration of one run
	 */
	String lockAtMostFor() default "";

	/**
	 * Minimum time the lease is kept after the run started, even when the run ends
	 * earlier, in the same formats as {@link #lockAtMostFor()}. Empty means
	 * {@code cluster-singleton.default-lock-at-least-for}. A
	 * {@code cluster-singleton.jobs.<name>.lock-at-least-for} property wins over this
	 * value.
	 * @return the minimum lease duration of one run
	 */
	String lockAtLeastFor() default "";

	/**
	 * What happens to cron slots that no node claimed: {@code "skip"}, {@code "run-once"}
	 * or {@code "run-all"} (see {@link MisfirePolicy}), or a {@code ${...}} placeholder.
	 * Empty means {@code cluster-singleton.default-misfire}; a
	 * {@code cluster-singleton.jobs.<name>.misfire} property wins over this value.
	 * @return the misfire policy
	 */
	String misfire() default "";

	/**
	 * How many missed slots {@code misfire = "run-all"} runs at most, newest first. Empty
	 * means {@code cluster-singleton.default-misfire-limit} (10).
	 * @return the misfire limit
	 */
	String misfireLimit() default "";

	/**
	 * Whether a slot whose run died, lost its lease or failed runs again: {@code "none"},
	 * {@code "lost"} or {@code "failed"} (see {@link RecoveryPolicy}), or a
	 * {@code ${...}} placeholder. Empty means {@code cluster-singleton.default-recovery};
	 * a {@code cluster-singleton.jobs.<name>.recovery} property wins over this value.
	 * @return the recovery policy
	 */
	String recovery() default "";

	/**
	 * How many attempts a slot gets at most under recovery, the first included. Empty
	 * means {@code cluster-singleton.default-max-attempts} (3).
	 * @return the attempt limit
	 */
	String maxAttempts() default "";

	/**
	 * How long after a failed attempt the next one may start ({@code recovery =
	 * "failed"}), in the formats of {@link #lockAtMostFor()}. Empty means
	 * {@code cluster-singleton.default-retry-delay} (10s).
	 * @return the retry delay
	 */
	String retryDelay() default "";

	/**
	 * How long without a successful run anywhere in the cluster makes the job overdue, in
	 * the formats of {@link #lockAtMostFor()}. Empty means
	 * {@code cluster-singleton.default-alert-after}, and when that is unset two periods
	 * of a cron or fixed-rate trigger (never for other jobs).
	 * @return the overdue threshold
	 */
	String alertAfter() default "";

}
