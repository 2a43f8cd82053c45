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

package io.github.clustersingleton.autoconfigure.actuate;

import java.util.function.Supplier;

import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.SingletonBeanRegistry;

/**
 * Supplies the engine only once it exists. The executor is a lazy bean that the
 * application creates at startup when it has jobs; an endpoint or health check must not
 * create it (in an application without jobs that would select a lease store nobody uses,
 * and after the context closed it would start a new engine).
 *
 * @author cluster-singleton contributors
 */
public final class ExistingExecutor implements Supplier<@Nullable ClusterSingletonExecutor> {

	private final ListableBeanFactory beanFactory;

	private volatile String @Nullable [] beanNames;

	/**
	 * Create a supplier.
	 * @param beanFactory the bean factory that may hold the engine
	 */
	public ExistingExecutor(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public @Nullable ClusterSingletonExecutor get() {
		if (!(this.beanFactory instanceof SingletonBeanRegistry singletons)) {
			return null;
		}
		String[] names = this.beanNames;
		if (names == null) {
			// no eager initialization: the lookup itself must not create the bean
			names = this.beanFactory.getBeanNamesForType(ClusterSingletonExecutor.class, true, false);
			this.beanNames = names;
		}
		for (String name : names) {
			if (singletons.containsSingleton(name)) {
				return this.beanFactory.getBean(name, ClusterSingletonExecutor.class);
			}
		}
		return null;
	}

}
