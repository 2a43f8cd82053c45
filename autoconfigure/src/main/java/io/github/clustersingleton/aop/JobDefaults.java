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

package io.github.clustersingleton.aop;

import java.time.Duration;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The configured defaults and per-job overrides that {@link JobDefinitionFactory}
 * resolves jobs against.
 *
 * @param lockAtMostFor {@code cluster-singleton.default-lock-at-most-for}
 * @param lockAtLeastFor {@code cluster-singleton.default-lock-at-least-for}
 * @param leaseTtl {@code cluster-singleton.lease-ttl}
 * @param overrides the {@code cluster-singleton.jobs.<name>} entry of a job name, or
 * {@code null}
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record JobDefaults(Duration lockAtMostFor, Duration lockAtLeastFor, Duration leaseTtl,
		Function<String, @Nullable JobOverride> overrides) {

	/**
	 * A {@code cluster-singleton.jobs.<name>} entry.
	 *
	 * @param key the map key the entry was bound under, for messages
	 * @param lockAtMostFor the overriding lockAtMostFor, if set
	 * @param lockAtLeastFor the overriding lockAtLeastFor, if set
	 * @param enabled whether the job runs on this node
	 */
	public record JobOverride(String key, @Nullable Duration lockAtMostFor, @Nullable Duration lockAtLeastFor,
			boolean enabled) {

	}

}
