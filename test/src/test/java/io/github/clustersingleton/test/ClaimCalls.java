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

package io.github.clustersingleton.test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.LeaseBackend;
import io.github.clustersingleton.LeaseRequest;
import io.github.clustersingleton.PartialAcquisitionException;
import org.jspecify.annotations.Nullable;

/**
 * The claims a node's store was asked for, one by one and together, through a store that
 * says it sends claims together, as PostgreSQL and Redis do ({@link #together}). Claims
 * of a lease named {@code leader} (leader mode's election) are not counted.
 *
 * @author cluster-singleton contributors
 */
final class ClaimCalls {

	/** The jobs claimed one by one, in order. */
	final List<String> single = new CopyOnWriteArrayList<>();

	/** The jobs of each call of claims sent together, in order. */
	final List<List<String>> together = new CopyOnWriteArrayList<>();

	/** Called before a call of claims sent together reaches the store. */
	volatile Callable<?> beforeTogether = () -> null;

	/** Jobs whose claims fail when sent together, as a key of the wrong type would. */
	final Set<String> failing = ConcurrentHashMap.newKeySet();

	/**
	 * Decorate a node's store so that it sends claims together and counts them here.
	 * @param real the node's store
	 * @return the decorated store
	 */
	LeaseBackend together(LeaseBackend real) {
		return (LeaseBackend) Proxy.newProxyInstance(LeaseBackend.class.getClassLoader(),
				new Class<?>[] { LeaseBackend.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "acquiresTogether" -> {
							return true;
						}
						case "tryAcquire" -> {
							LeaseRequest request = (LeaseRequest) args[0];
							if (!request.jobName().equals("leader")) {
								this.single.add(request.jobName());
							}
						}
						case "tryAcquireAll" -> {
							@SuppressWarnings("unchecked")
							List<LeaseRequest> requests = (List<LeaseRequest>) args[0];
							this.together.add(requests.stream().map(LeaseRequest::jobName).toList());
							this.beforeTogether.call();
							if (requests.stream().anyMatch((request) -> this.failing.contains(request.jobName()))) {
								// the failing claims never reach the store, the others do
								List<@Nullable AcquireResult> results = new ArrayList<>();
								for (LeaseRequest request : requests) {
									results.add(
											this.failing.contains(request.jobName()) ? null : real.tryAcquire(request));
								}
								throw new PartialAcquisitionException(results,
										new IllegalStateException("WRONGTYPE (simulated)"));
							}
						}
						default -> {
						}
					}
					try {
						return method.invoke(real, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

}
