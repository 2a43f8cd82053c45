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

package io.github.clustersingleton.kubernetes;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.github.clustersingleton.StoreClockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The requests of the Kubernetes backend to the API server, for the Leases of one
 * namespace: reads (with the server's {@code Date}), lists, creates and conditional
 * updates. Every Lease read or written is shown to the {@link LeaseExpiryObserver}.
 *
 * @author cluster-singleton contributors
 */
final class LeaseApi {

	private final KubernetesClient client;

	private final String namespace;

	private final long requestTimeoutMillis;

	private final LeaseExpiryObserver expiry;

	private volatile StoreClockObserver storeClockObserver = StoreClockObserver.NONE;

	LeaseApi(KubernetesClient client, String namespace, long requestTimeoutMillis, LeaseExpiryObserver expiry) {
		this.client = client;
		this.namespace = namespace;
		this.requestTimeoutMillis = requestTimeoutMillis;
		this.expiry = expiry;
	}

	void setStoreClockObserver(StoreClockObserver observer) {
		this.storeClockObserver = observer;
	}

	/**
	 * Create a Lease; 409 when it exists.
	 * @param lease the new Lease
	 * @return the Lease as the server stored it
	 */
	Lease create(Lease lease) {
		Lease created = this.client.leases().inNamespace(this.namespace).resource(lease).create();
		this.expiry.observe(created.getMetadata().getName(), created);
		return created;
	}

	/**
	 * Read a Lease through the client's HTTP client rather than its DSL, to see the
	 * {@code Date} header of the API server's answer: the store time Kubernetes offers,
	 * to the second. The request carries the client's authentication and timeouts.
	 */
	ServerRead read(String name) {
		HttpClient http = this.client.getHttpClient();
		String url = this.client.getMasterUrl().toString().replaceAll("/+$", "")
				+ "/apis/coordination.k8s.io/v1/namespaces/" + this.namespace + "/leases/" + name;
		CompletableFuture<HttpResponse<String>> sent = http.sendAsync(http.newHttpRequestBuilder().uri(url).build(),
				String.class);
		HttpResponse<String> response;
		try {
			response = sent.get(this.requestTimeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			sent.cancel(true);
			Thread.currentThread().interrupt();
			throw new KubernetesClientException("Interrupted while reading Lease " + name, ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			sent.cancel(true);
			throw new KubernetesClientException("Failed to read Lease " + this.namespace + "/" + name + ": " + ex, ex);
		}
		Instant serverTime = serverTime(response.header("Date"));
		if (serverTime != null) {
			// the header is to the second: the middle of that second is the best guess
			notifyStoreTime(serverTime.plusMillis(500));
		}
		if (response.code() == 404) {
			return new ServerRead(null, serverTime);
		}
		if (!response.isSuccessful()) {
			throw new KubernetesClientException("Failed to read Lease " + this.namespace + "/" + name + ": HTTP "
					+ response.code() + " " + response.body(), response.code(), null);
		}
		Lease lease = this.client.getKubernetesSerialization().unmarshal(response.body(), Lease.class);
		this.expiry.observe(name, lease);
		return new ServerRead(lease, serverTime);
	}

	private static @Nullable Instant serverTime(@Nullable String date) {
		if (date == null) {
			return null;
		}
		try {
			return ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	private void notifyStoreTime(Instant storeTime) {
		try {
			this.storeClockObserver.storeTimeObserved(storeTime);
		}
		catch (RuntimeException ex) {
			// an observer must not turn a good round trip into a failure
		}
	}

	/**
	 * A Lease as read, and the API server's time when it answered.
	 */
	record ServerRead(@Nullable Lease lease, @Nullable Instant serverTime) {

		/**
		 * Return the latest the server's time can have been: its {@code Date} header
		 * counts whole seconds, so a slot is only refused as ahead when it is ahead of
		 * the end of that second.
		 */
		@Nullable Instant latestServerTime() {
			return (this.serverTime != null) ? this.serverTime.plusMillis(999) : null;
		}

	}

	@Nullable Lease get(String name) {
		Lease lease = this.client.leases().inNamespace(this.namespace).withName(name).get();
		if (lease != null) {
			this.expiry.observe(name, lease);
		}
		return lease;
	}

	/**
	 * List the Leases of the namespace that carry a label, in one request.
	 * @param label the label's key
	 * @param value its value
	 * @return the Leases
	 */
	List<Lease> list(String label, String value) {
		List<Lease> leases = this.client.leases().inNamespace(this.namespace).withLabel(label, value).list().getItems();
		for (Lease lease : leases) {
			this.expiry.observe(lease.getMetadata().getName(), lease);
		}
		return leases;
	}

	Lease update(Lease lease) {
		// the resourceVersion is what makes the PUT conditional; a real API server
		// refuses an unconditional update of a Lease anyway, and must never be sent one
		Assert.state(lease.getMetadata() != null && lease.getMetadata().getResourceVersion() != null,
				"A Lease update must carry the resourceVersion it was read at");
		Lease written = this.client.leases().inNamespace(this.namespace).resource(lease).update();
		this.expiry.observe(lease.getMetadata().getName(), written);
		return written;
	}

}
