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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.JobRegistry;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodIntrospector.MetadataLookup;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Advises every bean that has {@link ClusterSingleton @ClusterSingleton} methods with
 * {@link ClusterSingletonInterceptor}, and validates those methods as it meets them, so a
 * bad method or setting fails startup. The advisor is put in front of any existing
 * advisors, so the lease is taken before a transaction starts or a retry loops. It runs
 * before Spring's {@code ScheduledAnnotationBeanPostProcessor}, so the scheduler calls
 * the method through the proxy.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class ClusterSingletonBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	/**
	 * Default order: before Spring's scheduled-annotation post-processor, and equal to
	 * Framework's resilience post-processors ({@code @Retryable},
	 * {@code @ConcurrencyLimit}). Post-processors of one order run in registration order,
	 * and auto-configured beans register after the application's, so this one runs last
	 * and its advisor, put in front, wraps theirs: the lease is taken once around all
	 * retries.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1;

	private final JobDefinitionFactory jobFactory;

	private final JobRegistry registry;

	private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

	/**
	 * Create a post-processor.
	 * @param jobFactory resolves and validates annotated methods
	 * @param registry the registry to record jobs in
	 * @param executor supplies the executor on the first guarded call
	 */
	public ClusterSingletonBeanPostProcessor(JobDefinitionFactory jobFactory, JobRegistry registry,
			Supplier<ClusterSingletonExecutor> executor) {
		this.jobFactory = jobFactory;
		this.registry = registry;
		setBeforeExistingAdvisors(true);
		setOrder(DEFAULT_ORDER);
		this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, ClusterSingleton.class, true),
				new ClusterSingletonInterceptor(jobFactory, registry, executor));
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		List<Method> jobs = (bean instanceof AopInfrastructureBean) ? List.of()
				: registerJobs(ClassUtils.getUserClass(AopProxyUtils.ultimateTargetClass(bean)));
		Object exposed = super.postProcessAfterInitialization(bean, beanName);
		for (Method job : jobs) {
			this.registry.registerTarget(job, exposed);
		}
		return exposed;
	}

	private List<Method> registerJobs(Class<?> userClass) {
		if (this.nonAnnotatedClasses.contains(userClass)
				|| !AnnotationUtils.isCandidateClass(userClass, ClusterSingleton.class)) {
			return List.of();
		}
		Map<Method, ClusterSingleton> methods = MethodIntrospector.selectMethods(userClass,
				(MetadataLookup<ClusterSingleton>) (method) -> AnnotatedElementUtils.findMergedAnnotation(method,
						ClusterSingleton.class));
		if (methods.isEmpty()) {
			this.nonAnnotatedClasses.add(userClass);
			return List.of();
		}
		List<Method> registered = new ArrayList<>();
		methods.forEach((method, annotation) -> {
			Method specific = BridgeMethodResolver
				.findBridgedMethod(ClassUtils.getMostSpecificMethod(method, userClass));
			this.registry.register(specific, this.jobFactory.create(userClass, specific, annotation));
			registered.add(specific);
		});
		return registered;
	}

}
