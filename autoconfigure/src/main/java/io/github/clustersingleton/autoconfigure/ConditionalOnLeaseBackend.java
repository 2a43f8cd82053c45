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

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code cluster-singleton.backend} names the given backend, or, unless
 * {@link #matchIfAuto()} is {@code false}, when it is unset or {@code auto}. For the
 * auto-configurations of backends. Values are compared the way Spring Boot binds them to
 * {@link ClusterSingletonProperties.Backend}: without case, dashes and underscores, so
 * {@code in-memory} and {@code IN_MEMORY} both name the {@code in-memory} backend.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLeaseBackendCondition.class)
public @interface ConditionalOnLeaseBackend {

	/**
	 * The backend id: {@code jdbc}, {@code redis}, {@code kubernetes} or
	 * {@code in-memory}.
	 * @return the backend id
	 */
	String value();

	/**
	 * Whether to match when {@code cluster-singleton.backend} is unset or {@code auto}.
	 * {@code false} for a backend that must be asked for by name, such as the in-memory
	 * backend of the test artifact, which must not compete with a real store.
	 * @return whether {@code auto} selects the backend
	 * @since 0.1.0
	 */
	boolean matchIfAuto() default true;

}
