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

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the Kubernetes lease backend.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@ConfigurationProperties("cluster-singleton.kubernetes")
public class KubernetesLeaseProperties {

	/**
	 * Namespace of the Lease objects. Default: the namespace of the pod's service account
	 * (/var/run/secrets/kubernetes.io/serviceaccount/namespace), else the Kubernetes
	 * client's configured namespace (kubeconfig context), else 'default'.
	 */
	private @Nullable String namespace;

	/**
	 * Prefix of the Lease names: each job's Lease is '<prefix><job name>', lower-cased,
	 * with every character other than letters, digits and '-' turned into '-'. Lower-case
	 * letters, digits and '-', at most 40 characters.
	 */
	private String leasePrefix = "cluster-singleton-";

	public @Nullable String getNamespace() {
		return this.namespace;
	}

	public void setNamespace(@Nullable String namespace) {
		this.namespace = namespace;
	}

	public String getLeasePrefix() {
		return this.leasePrefix;
	}

	public void setLeasePrefix(String leasePrefix) {
		this.leasePrefix = leasePrefix;
	}

}
