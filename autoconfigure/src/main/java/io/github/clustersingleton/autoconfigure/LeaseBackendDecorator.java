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

package io.github.clustersingleton.autoconfigure;

import io.github.clustersingleton.LeaseBackend;

/**
 * Wraps the selected {@link LeaseBackend} before the engine uses it, for every job. A
 * module that adds behaviour around every lease (the ShedLock bridge holds ShedLock's
 * lock of the job too) contributes a bean of this type; beans apply in their order, the
 * first innermost.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@FunctionalInterface
public interface LeaseBackendDecorator {

	/**
	 * Return the lease store the engine should use in place of {@code backend}.
	 * @param backend the selected lease store (or the result of the previous decorator)
	 * @return the wrapping lease store
	 */
	LeaseBackend decorate(LeaseBackend backend);

}
