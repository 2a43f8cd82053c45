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

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The stored state of a job's lease, as {@link LeaseBackend#describe(String)} reads it.
 *
 * @param jobName the job name
 * @param holder the owner of the last acquisition, or {@code null}
 * @param live whether the lease is held now, judged by the store's clock
 * @param acquiredAt when the last acquisition happened (store time), if known
 * @param expiresAt when the lease expires or expired (store time), if known
 * @param fencingToken the fencing token of the last acquisition, {@code 0} if none
 * @param lastSlot the last claimed cron slot, if any
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public record LeaseInfo(String jobName, @Nullable String holder, boolean live, @Nullable Instant acquiredAt,
		@Nullable Instant expiresAt, long fencingToken, @Nullable Instant lastSlot) {

}
