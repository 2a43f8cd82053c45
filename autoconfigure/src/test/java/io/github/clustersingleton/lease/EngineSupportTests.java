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

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's debug logging builds a message only when debug is on.
 *
 * @author cluster-singleton contributors
 */
class EngineSupportTests {

	@Test
	void aDebugMessageIsNotBuiltWhenDebugIsOff() {
		List<Object> logged = new ArrayList<>();
		AtomicInteger built = new AtomicInteger();
		EngineSupport.debug(log(false, logged), () -> "built " + built.incrementAndGet());
		EngineSupport.debug(log(false, logged), () -> "built " + built.incrementAndGet(), new IllegalStateException());
		assertThat(built).hasValue(0);
		assertThat(logged).isEmpty();
	}

	@Test
	void aDebugMessageIsLoggedWhenDebugIsOn() {
		List<Object> logged = new ArrayList<>();
		IllegalStateException failure = new IllegalStateException("store down");
		EngineSupport.debug(log(true, logged), () -> "left job 'report'");
		EngineSupport.debug(log(true, logged), () -> "could not read", failure);
		assertThat(logged).containsExactly("left job 'report'", "could not read", failure);
	}

	private static Log log(boolean debugEnabled, List<Object> logged) {
		return (Log) Proxy.newProxyInstance(EngineSupportTests.class.getClassLoader(), new Class<?>[] { Log.class },
				(proxy, method, args) -> switch (method.getName()) {
					case "isDebugEnabled" -> debugEnabled;
					case "debug" -> {
						logged.addAll(List.of(args));
						yield null;
					}
					default -> (method.getReturnType() == boolean.class) ? false : null;
				});
	}

}
