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

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link KubernetesLeaseNames}.
 *
 * @author cluster-singleton contributors
 */
class KubernetesLeaseNamesTests {

	private static final String PREFIX = KubernetesLeaseBackend.DEFAULT_LEASE_PREFIX;

	@Test
	void simpleNamesAreKept() {
		assertThat(KubernetesLeaseNames.leaseName(PREFIX, "billing")).isEqualTo("cluster-singleton-billing");
		assertThat(KubernetesLeaseNames.leaseName(PREFIX, "report-2")).isEqualTo("cluster-singleton-report-2");
	}

	@Test
	void otherCharactersBecomeDashesAndCaseIsLowered() {
		assertThat(KubernetesLeaseNames.leaseName(PREFIX, "Billing.monthlyRun"))
			.isEqualTo("cluster-singleton-billing-monthlyrun");
		assertThat(KubernetesLeaseNames.leaseName(PREFIX, "report_daily")).isEqualTo("cluster-singleton-report-daily");
		assertThat(KubernetesLeaseNames.leaseName("", "_job.")).isEqualTo("job");
		assertThat(KubernetesLeaseNames.leaseName(PREFIX, "émile")).isEqualTo("cluster-singleton--mile");
	}

	@Test
	void longNamesEndWithAHashOfTheJobName() {
		String a = KubernetesLeaseNames.leaseName(PREFIX, "a-very-long-job-name-that-goes-on-and-on-and-on-one");
		String b = KubernetesLeaseNames.leaseName(PREFIX, "a-very-long-job-name-that-goes-on-and-on-and-on-two");
		assertThat(a).hasSizeLessThanOrEqualTo(KubernetesLeaseNames.MAX_LENGTH)
			.matches("[a-z0-9][a-z0-9-]*-[0-9a-f]{8}");
		assertThat(b).hasSizeLessThanOrEqualTo(KubernetesLeaseNames.MAX_LENGTH);
		assertThat(a).isNotEqualTo(b);
		assertThat(a.substring(0, 40)).isEqualTo(b.substring(0, 40));
		// stable across runs and nodes
		assertThat(KubernetesLeaseNames.leaseName(PREFIX, "a-very-long-job-name-that-goes-on-and-on-and-on-one"))
			.isEqualTo(a);
	}

	@Test
	void namesWithoutLettersOrDigitsAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> KubernetesLeaseNames.leaseName("", "..."))
			.withMessageContaining("'...'");
	}

	@Test
	void prefixesMustBeLowerCaseDnsLabelStarts() {
		assertThatNoException().isThrownBy(() -> KubernetesLeaseNames.checkPrefix(""));
		assertThatNoException().isThrownBy(() -> KubernetesLeaseNames.checkPrefix("billing-app-"));
		assertThatIllegalArgumentException().isThrownBy(() -> KubernetesLeaseNames.checkPrefix("Billing-"));
		assertThatIllegalArgumentException().isThrownBy(() -> KubernetesLeaseNames.checkPrefix("-billing"));
		assertThatIllegalArgumentException().isThrownBy(() -> KubernetesLeaseNames.checkPrefix("billing.app-"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> KubernetesLeaseNames.checkPrefix("a".repeat(KubernetesLeaseNames.MAX_PREFIX_LENGTH + 1)));
	}

}
