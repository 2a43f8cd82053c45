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

package io.github.clustersingleton.autoconfigure;

import java.util.Locale;
import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.Assert;

/**
 * Condition behind {@link ConditionalOnLeaseBackend}.
 *
 * @author cluster-singleton contributors
 */
class OnLeaseBackendCondition extends SpringBootCondition {

	private static final String PROPERTY = "cluster-singleton.backend";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLeaseBackend.class.getName());
		Assert.state(attributes != null, "No @ConditionalOnLeaseBackend found");
		String backend = (String) attributes.get("value");
		boolean matchIfAuto = (Boolean) attributes.get("matchIfAuto");
		String configured = context.getEnvironment().getProperty(PROPERTY, "auto").strip();
		ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnLeaseBackend.class, backend);
		if ((matchIfAuto && relaxed(configured).equals("auto")) || relaxed(configured).equals(relaxed(backend))) {
			return ConditionOutcome.match(message.because(PROPERTY + " is " + configured));
		}
		return ConditionOutcome.noMatch(message.because(PROPERTY + " is " + configured));
	}

	/**
	 * Reduce a value the way Spring Boot does when it binds it to an enum: lower case,
	 * letters and digits only.
	 */
	private static String relaxed(String value) {
		return value.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
	}

}
