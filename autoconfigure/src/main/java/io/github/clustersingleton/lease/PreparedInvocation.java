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

package io.github.clustersingleton.lease;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ReflectionUtils;

/**
 * Marks the call of a guarded method that the engine itself makes through the bean's
 * proxy, for a recovery or a catch-up run whose lease it already holds: the interceptor
 * lets that one call through to the method without asking for a lease again.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class PreparedInvocation {

	private static final ThreadLocal<@Nullable String> PREPARED = new ThreadLocal<>();

	private PreparedInvocation() {
	}

	/**
	 * Return an invocation that calls a job's method on its bean (through the proxy) as
	 * the engine's own prepared call.
	 * @param jobName the job name
	 * @param bean the bean as the container exposes it
	 * @param method the job's method (no parameters)
	 * @return the invocation
	 */
	public static ClusterSingletonExecutor.Invocation of(String jobName, Object bean, Method method) {
		ReflectionUtils.makeAccessible(method);
		return () -> {
			prepare(jobName);
			try {
				return method.invoke(bean);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
			finally {
				clear();
			}
		};
	}

	static void prepare(String jobName) {
		PREPARED.set(jobName);
	}

	static void clear() {
		PREPARED.remove();
	}

	/**
	 * Return whether the engine prepared the call of this job on this thread, and if so
	 * forget it, so that a call the job's own code makes is guarded as usual.
	 * @param jobName the job the intercepted method belongs to
	 * @return {@code true} for the engine's own call
	 */
	public static boolean consume(String jobName) {
		String prepared = PREPARED.get();
		if (prepared != null && prepared.equals(jobName)) {
			PREPARED.remove();
			return true;
		}
		return false;
	}

}
