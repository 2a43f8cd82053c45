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
import java.lang.reflect.Modifier;

/**
 * The startup checks of a {@code @ClusterSingleton} method's shape: an overridable
 * instance method of a non-final class (the guard is a Spring AOP proxy), returning
 * {@code void}, a {@code Publisher} or, as a Kotlin suspend function, {@code Unit}.
 *
 * @author cluster-singleton contributors
 */
final class GuardedMethodChecks {

	private GuardedMethodChecks() {
	}

	static void checkProxyable(Class<?> userClass, Method method, String job, boolean reactorPresent) {
		int modifiers = method.getModifiers();
		String fix = ": @ClusterSingleton works through a Spring AOP proxy, which only intercepts overridable "
				+ "instance methods. Make it a non-final instance method that is not private";
		if (Modifier.isStatic(modifiers)) {
			throw JobDefinitionFactory.invalid(job + ": the method is static" + fix);
		}
		if (Modifier.isPrivate(modifiers)) {
			throw JobDefinitionFactory.invalid(job + ": the method is private" + fix);
		}
		if (Modifier.isFinal(modifiers)) {
			throw JobDefinitionFactory.invalid(job + ": the method is final" + fix);
		}
		if (Modifier.isFinal(userClass.getModifiers())) {
			throw JobDefinitionFactory
				.invalid(job + ": the class " + userClass.getName() + " is final (a record, an enum, or a Kotlin class "
						+ "that is not open); a class-based proxy cannot extend it. Make the class non-final");
		}
		Class<?> returnType = method.getReturnType();
		if (SuspendFunctions.isSuspending(method)) {
			checkSuspending(method, job);
			return;
		}
		if (JobDefinitionFactory.isReactive(method)) {
			return;
		}
		if (returnType != void.class && returnType != Void.class) {
			throw JobDefinitionFactory.invalid(job + ": the method returns " + returnType.getName()
					+ "; a run that another node holds is skipped and has no value to return. Make it return void"
					+ (reactorPresent ? ", or a Publisher (Mono, Flux) for a reactive job" : ""));
		}
	}

	private static void checkSuspending(Method method, String job) {
		if (SuspendFunctions.runner() == null) {
			throw JobDefinitionFactory.invalid(job
					+ ": the method is a Kotlin suspend function, which needs the cluster-singleton-kotlin "
					+ "module on the class path. Add the io.github.clustersingleton:cluster-singleton-kotlin dependency");
		}
		if (!SuspendFunctions.returnsUnit(method)) {
			throw JobDefinitionFactory
				.invalid(job + ": the suspend function returns a value; a run that another node holds is skipped "
						+ "and has no value to return. Make it return Unit");
		}
	}

}
