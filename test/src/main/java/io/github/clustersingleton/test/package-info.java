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
 * Test support for applications that use cluster-singleton: the
 * {@link io.github.clustersingleton.test.InMemoryLeaseBackend in-memory lease backend}
 * ({@code cluster-singleton.backend=in-memory}) and
 * {@link io.github.clustersingleton.test.TestClusterSingletonContext} to run code under a
 * chosen {@link io.github.clustersingleton.ClusterSingletonContext} in a unit test.
 */
@NullMarked
package io.github.clustersingleton.test;

import org.jspecify.annotations.NullMarked;
