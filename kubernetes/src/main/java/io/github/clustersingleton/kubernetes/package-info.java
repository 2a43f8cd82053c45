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

/**
 * Kubernetes lease backend: one {@code coordination.k8s.io/v1} Lease per job, written
 * with optimistic concurrency (every write carries the object's {@code resourceVersion}),
 * through the fabric8 Kubernetes client. The job's current run and its run ledger live in
 * annotations of the same Lease.
 */
@NullMarked
package io.github.clustersingleton.kubernetes;

import org.jspecify.annotations.NullMarked;
