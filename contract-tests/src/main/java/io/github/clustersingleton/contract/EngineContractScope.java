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

package io.github.clustersingleton.contract;

import java.lang.reflect.Method;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Decides where the engine half of the contract runs. In real time the engine contract
 * waits for real TTLs (about 85 s per store), so a store's test class runs it only in the
 * full build (system property {@value #FULL_PROPERTY} {@code true}, set by
 * {@code -Pfull}), or in every build when the class says so with
 * {@link AbstractLeaseEngineContractTests#runsEngineContractInEveryBuild()}. A class that
 * runs it in virtual time ({@link AbstractLeaseEngineContractTests#engineTime()}) runs it
 * in every build: it takes seconds. The store half of the contract always runs. A test is
 * an engine test when {@link #isEngineContractTest(Method)} says so.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class EngineContractScope implements ExecutionCondition {

	/**
	 * The system property that turns the engine contract on for every store.
	 */
	public static final String FULL_PROPERTY = "cluster-singleton.test.full";

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		boolean engineTest = context.getTestMethod().map(EngineContractScope::isEngineContractTest).orElse(false);
		if (!engineTest) {
			return ConditionEvaluationResult.enabled("not an engine contract test");
		}
		if (Boolean.getBoolean(FULL_PROPERTY)) {
			return ConditionEvaluationResult.enabled("full build");
		}
		boolean everyBuild = context.getTestInstance()
			.filter(AbstractLeaseEngineContractTests.class::isInstance)
			.map(AbstractLeaseEngineContractTests.class::cast)
			.map((instance) -> instance.runsEngineContractInEveryBuild() || instance.engineTime().isVirtual())
			.orElse(false);
		return everyBuild
				? ConditionEvaluationResult
					.enabled("this store runs the engine contract in every build, or in virtual time")
				: ConditionEvaluationResult
					.disabled("the engine contract runs on this store in the full build only (./mvnw verify -Pfull)");
	}

	/**
	 * Return whether a test method belongs to the engine half of the contract: whether
	 * {@link AbstractLeaseEngineContractTests} or one of its superclasses, each of which
	 * holds one group of the engine cases, declares it. The store half extends the engine
	 * half, so no class of the store half, nor a store's own test class, is among them.
	 * @param method the test method
	 * @return whether it is an engine contract test
	 */
	public static boolean isEngineContractTest(Method method) {
		return method.getDeclaringClass().isAssignableFrom(AbstractLeaseEngineContractTests.class);
	}

}
