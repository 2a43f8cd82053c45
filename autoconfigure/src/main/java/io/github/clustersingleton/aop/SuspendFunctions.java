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

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.Iterator;
import java.util.ServiceLoader;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;

/**
 * Kotlin {@code suspend} functions under {@code @ClusterSingleton}, without a Kotlin
 * dependency: detection and the {@link SuspendFunctionRunner} of the class path.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
final class SuspendFunctions {

	private static final String UNIT = "kotlin.Unit";

	private static volatile @Nullable SuspendFunctionRunner runner;

	private SuspendFunctions() {
	}

	/**
	 * Whether a method is a Kotlin {@code suspend} function.
	 */
	static boolean isSuspending(Method method) {
		return KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method);
	}

	/**
	 * Whether a {@code suspend} function returns {@code Unit}: its continuation is a
	 * {@code Continuation<? super Unit>}.
	 */
	static boolean returnsUnit(Method method) {
		Type[] parameters = method.getGenericParameterTypes();
		if (parameters.length == 0 || !(parameters[parameters.length - 1] instanceof ParameterizedType continuation)) {
			return false;
		}
		Type result = continuation.getActualTypeArguments()[0];
		if (result instanceof WildcardType wildcard && wildcard.getLowerBounds().length == 1) {
			result = wildcard.getLowerBounds()[0];
		}
		return UNIT.equals(result.getTypeName());
	}

	/**
	 * Return the runner of the class path, or {@code null} without
	 * {@code cluster-singleton-kotlin}.
	 */
	static @Nullable SuspendFunctionRunner runner() {
		SuspendFunctionRunner found = runner;
		if (found == null) {
			Iterator<SuspendFunctionRunner> runners = ServiceLoader
				.load(SuspendFunctionRunner.class, SuspendFunctions.class.getClassLoader())
				.iterator();
			found = runners.hasNext() ? runners.next() : null;
			runner = found;
		}
		return found;
	}

}
