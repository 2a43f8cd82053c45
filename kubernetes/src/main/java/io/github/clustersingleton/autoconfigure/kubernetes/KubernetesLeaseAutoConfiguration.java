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

package io.github.clustersingleton.autoconfigure.kubernetes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ConditionalOnLeaseBackend;
import io.github.clustersingleton.kubernetes.KubernetesLeaseBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the Kubernetes lease backend: one
 * {@code coordination.k8s.io/v1} Lease per job, through the application's fabric8
 * {@link KubernetesClient}. When the application has no such client and
 * {@code cluster-singleton.backend=kubernetes}, one is built from the standard
 * configuration (in a pod: its service account; elsewhere: the kubeconfig). With
 * {@code cluster-singleton.backend=auto} only an existing client bean makes this backend
 * a candidate, so that the fabric8 jar on the class path does not compete with a
 * DataSource or a Redis client the application already uses for its leases.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(before = ClusterSingletonAutoConfiguration.class,
		afterName = "org.springframework.cloud.kubernetes.fabric8.Fabric8AutoConfiguration")
@ConditionalOnClass({ KubernetesClient.class, KubernetesClientBuilder.class })
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", matchIfMissing = true)
@ConditionalOnLeaseBackend("kubernetes")
@EnableConfigurationProperties(KubernetesLeaseProperties.class)
public final class KubernetesLeaseAutoConfiguration {

	static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

	private static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(30);

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(KubernetesClient.class)
	@ConditionalOnProperty(name = "cluster-singleton.backend", havingValue = "kubernetes")
	KubernetesClient clusterSingletonKubernetesClient() {
		return new KubernetesClientBuilder().build();
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(KubernetesClient.class)
	KubernetesLeaseBackend clusterSingletonKubernetesLeaseBackend(KubernetesClient client,
			KubernetesLeaseProperties properties, ObjectProvider<Clock> clock, Environment environment) {
		String namespace = namespace(properties.getNamespace(), SERVICE_ACCOUNT_NAMESPACE, client.getNamespace());
		// bound (and checked) once more by the engine's properties
		Duration ttl = Binder.get(environment)
			.bind("cluster-singleton.lease-ttl", Duration.class)
			.orElse(DEFAULT_LEASE_TTL);
		try {
			return new KubernetesLeaseBackend(client, namespace, properties.getLeasePrefix(), ttl,
					clock.getIfUnique(Clock::systemUTC), KubernetesLeaseBackend.DEFAULT_RENEWAL_CONCURRENCY,
					System::nanoTime);
		}
		catch (IllegalArgumentException ex) {
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.kubernetes.lease-prefix or namespace: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Choose the namespace of the Leases: the configured one, else the pod's service
	 * account namespace, else the client's, else {@code default}.
	 * @param configured {@code cluster-singleton.kubernetes.namespace}
	 * @param serviceAccountFile the service account's namespace file
	 * @param clientNamespace the client's namespace
	 * @return the namespace
	 */
	static String namespace(@Nullable String configured, Path serviceAccountFile, @Nullable String clientNamespace) {
		if (configured != null && !configured.isBlank()) {
			return configured.strip();
		}
		if (Files.isReadable(serviceAccountFile)) {
			try {
				String namespace = Files.readString(serviceAccountFile, StandardCharsets.UTF_8).strip();
				if (!namespace.isEmpty()) {
					return namespace;
				}
			}
			catch (IOException ex) {
				// fall through to the client's namespace
			}
		}
		if (clientNamespace != null && !clientNamespace.isBlank()) {
			return clientNamespace;
		}
		return "default";
	}

}
