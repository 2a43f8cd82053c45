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

package io.github.clustersingleton.autoconfigure.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.redis.RedisLeaseBackend;
import io.github.clustersingleton.redis.RedisQuorumLeaseBackend;
import io.github.clustersingleton.redis.RedisScriptExecutor;
import io.github.clustersingleton.redis.SpringDataRedisScriptExecutor;
import io.github.clustersingleton.autoconfigure.ConditionalOnLeaseBackend;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Primary;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of the Redis lease backend on a quorum of independent Redis servers,
 * when {@code cluster-singleton.redis.quorum.urls} is set: one Lettuce client per member.
 * The backend is {@link Primary @Primary}, so it is chosen over a
 * {@link RedisLeaseBackend} on the application's own Redis client.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(before = RedisLeaseAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", matchIfMissing = true)
@ConditionalOnLeaseBackend("redis")
@ConditionalOnClass(LettuceConnectionFactory.class)
@Conditional(RedisQuorumLeaseAutoConfiguration.OnQuorumUrls.class)
@EnableConfigurationProperties({ RedisQuorumProperties.class, RedisLeaseProperties.class })
public final class RedisQuorumLeaseAutoConfiguration {

	static final String URLS = "cluster-singleton.redis.quorum.urls";

	@Bean
	@Primary
	RedisQuorumLeaseBackend clusterSingletonRedisQuorumLeaseBackend(RedisQuorumProperties quorum,
			RedisLeaseProperties redis) {
		List<String> urls = quorum.getUrls();
		if (urls.size() < 3 || urls.size() % 2 == 0) {
			throw new ClusterSingletonConfigurationException("Invalid " + URLS + ": " + urls.size()
					+ " URL(s); a Redis quorum needs an odd number of at least 3 independent Redis servers (3 or 5), "
					+ "so that any two majorities share a member");
		}
		List<RedisScriptExecutor> executors = new ArrayList<>();
		List<LettuceConnectionFactory> factories = new ArrayList<>();
		for (String url : urls) {
			LettuceConnectionFactory factory = connectionFactory(url, quorum);
			factories.add(factory);
			executors.add(new SpringDataRedisScriptExecutor(factory));
		}
		try {
			RedisQuorumLeaseBackend backend = new RedisQuorumLeaseBackend(executors, redis.getKeyPrefix());
			backend.closeWith(() -> factories.forEach(LettuceConnectionFactory::destroy));
			return backend;
		}
		catch (IllegalArgumentException ex) {
			factories.forEach(LettuceConnectionFactory::destroy);
			throw new ClusterSingletonConfigurationException(
					"Invalid cluster-singleton.redis.key-prefix: " + ex.getMessage(), ex);
		}
	}

	@Bean
	static SmartInitializingSingleton clusterSingletonRedisQuorumPolicyCheck(ObjectProvider<JobRegistry> registry) {
		return () -> registry.ifAvailable(RedisQuorumLeaseAutoConfiguration::checkPolicies);
	}

	/**
	 * Refuse jobs with a recovery or misfire policy, or an alert-after, that was set (by
	 * an annotation attribute, {@code cluster-singleton.jobs.<name>.*} or
	 * {@code cluster-singleton.default-*}): the quorum keeps no run state and no run
	 * ledger, so none of them would ever act. The alert-after a job derives from its
	 * trigger when none is set is left alone.
	 */
	static void checkPolicies(JobRegistry registry) {
		List<String> problems = new ArrayList<>();
		for (JobDefinition job : registry.jobs()) {
			JobPolicies policies = job.policies();
			String misfire = policies.origin(JobPolicies.MISFIRE);
			if (misfire != null) {
				problems.add(problem(job, misfire, "misfire", describe(policies.misfire()), "skip",
						"catching up missed slots needs the last claimed slot and the current run"));
			}
			String recovery = policies.origin(JobPolicies.RECOVERY);
			if (recovery != null) {
				problems.add(problem(job, recovery, "recovery", describe(policies.recovery()), "none",
						"running a slot again needs its current run, attempt and recovery mark"));
			}
			String alertAfter = policies.origin(JobPolicies.ALERT_AFTER);
			if (alertAfter != null) {
				problems.add(problem(job, alertAfter, "alert-after", String.valueOf(policies.alertAfter()), null,
						"telling a job overdue needs the cluster-wide run ledger"));
			}
		}
		if (!problems.isEmpty()) {
			throw new ClusterSingletonConfigurationException(String.join("\n", problems) + "\nThe Redis quorum (" + URLS
					+ ") keeps neither run state nor a run ledger on its members, so "
					+ "these settings would never act. Remove them, or use a single Redis or the jdbc backend for "
					+ "these jobs");
		}
	}

	private static String problem(JobDefinition job, String origin, String setting, String value, @Nullable String off,
			String why) {
		String fix;
		if (origin.startsWith("cluster-singleton.default-")) {
			fix = "; remove " + origin + ", which every job inherits" + ((off != null)
					? ", or set cluster-singleton.jobs." + job.name() + "." + setting + " to " + off : "");
		}
		else {
			fix = "; remove it" + ((off != null) ? " or set it to " + off : "");
		}
		return "Invalid cluster-singleton job '" + job.name() + "' (" + job.source() + "): " + origin + " sets "
				+ setting + " to " + value + ", which the Redis quorum lease backend cannot act on (" + why + ")" + fix
				+ ".";
	}

	private static String describe(Enum<?> policy) {
		return policy.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	private static LettuceConnectionFactory connectionFactory(String url, RedisQuorumProperties quorum) {
		RedisConfiguration configuration;
		try {
			configuration = LettuceConnectionFactory.createRedisConfiguration(url);
		}
		catch (RuntimeException ex) {
			throw new ClusterSingletonConfigurationException("Invalid " + URLS + " entry '" + url + "': " + ex, ex);
		}
		if (!(configuration instanceof RedisStandaloneConfiguration)) {
			throw new ClusterSingletonConfigurationException("Invalid " + URLS + " entry '" + url + "': each member "
					+ "of a Redis quorum is one independent Redis server (redis://host:port), not a Sentinel group");
		}
		// a member that is down fails each call at once instead of queueing it for later:
		// a grant or renewal sent after the round gave up on it must not arrive late
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(quorum.getTimeout())
			.clientOptions(ClientOptions.builder()
				.socketOptions(SocketOptions.builder().connectTimeout(quorum.getTimeout()).build())
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build());
		if (url.startsWith("rediss:")) {
			client.useSsl();
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Matches when {@code cluster-singleton.redis.quorum.urls} has at least one entry.
	 */
	static final class OnQuorumUrls extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			boolean set = Binder.get(context.getEnvironment())
				.bind(URLS, Bindable.listOf(String.class))
				.map((urls) -> !urls.isEmpty())
				.orElse(false);
			return set ? ConditionOutcome.match(URLS + " is set") : ConditionOutcome.noMatch(URLS + " is not set");
		}

	}

}
