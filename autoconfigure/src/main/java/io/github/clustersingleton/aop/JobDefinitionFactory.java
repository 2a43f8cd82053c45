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
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.MisfirePolicy;
import io.github.clustersingleton.RecoveryPolicy;
import io.github.clustersingleton.aop.JobDefaults.JobOverride;
import io.github.clustersingleton.lease.CronSlotSchedule;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobPolicies;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Resolves and validates the {@link JobDefinition} of a {@code @ClusterSingleton} method.
 * Every problem is reported as a {@link ClusterSingletonConfigurationException} that
 * names the job, the method and the property or attribute at fault.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public class JobDefinitionFactory {

	private static final Log logger = LogFactory.getLog(JobDefinitionFactory.class);

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			JobDefinitionFactory.class.getClassLoader());

	private final Set<String> zonelessJobsWarned = ConcurrentHashMap.newKeySet();

	private final StringValueResolver resolver;

	private final JobDefaults defaults;

	/**
	 * Create a factory.
	 * @param resolver the resolver of {@code ${...}} placeholders in annotation
	 * attributes
	 * @param defaults the configured defaults and overrides
	 */
	public JobDefinitionFactory(StringValueResolver resolver, JobDefaults defaults) {
		this.resolver = resolver;
		this.defaults = defaults;
	}

	/**
	 * Resolve the job of an annotated method.
	 * @param userClass the bean's class (not a proxy class)
	 * @param method the annotated method
	 * @param annotation the annotation
	 * @return the job
	 */
	public JobDefinition create(Class<?> userClass, Method method, ClusterSingleton annotation) {
		String source = userClass.getName() + "." + method.getName() + "()";
		String name = resolveName(userClass, method, annotation, source);
		String job = "cluster-singleton job '" + name + "' (" + source + ")";
		GuardedMethodChecks.checkProxyable(userClass, method, job, REACTOR_PRESENT);
		JobOverride override = this.defaults.overrides().apply(name);
		String prefix = "cluster-singleton.jobs." + ((override != null) ? override.key() : name) + ".";
		Setting atMost = pick(job, (override != null) ? override.lockAtMostFor() : null, prefix + "lock-at-most-for",
				annotation.lockAtMostFor(), "@ClusterSingleton(lockAtMostFor)", this.defaults.lockAtMostFor(),
				"cluster-singleton.default-lock-at-most-for");
		Setting atLeast = pick(job, (override != null) ? override.lockAtLeastFor() : null, prefix + "lock-at-least-for",
				annotation.lockAtLeastFor(), "@ClusterSingleton(lockAtLeastFor)", this.defaults.lockAtLeastFor(),
				"cluster-singleton.default-lock-at-least-for");
		CronSlotSchedule schedule = cronSchedule(method, job);
		JobDefinition definition = definition(job, name, atMost, atLeast, override, schedule, source);
		boolean reactive = isReactive(method) || SuspendFunctions.isSuspending(method);
		return definition.withPolicies(policies(job, prefix, override, annotation, reactive ? null : schedule,
				fixedRate(method, job), schedule));
	}

	/**
	 * Create the definition of a job run through the
	 * {@link io.github.clustersingleton.ClusterSingletonTemplate}: the
	 * {@code cluster-singleton.jobs.<name>} entry wins over what the code sets, and the
	 * configured defaults fill in what neither sets.
	 * @param name the job name
	 * @param lockAtMostFor what the code sets, or {@code null}
	 * @param lockAtLeastFor what the code sets, or {@code null}
	 * @param source where the job comes from, for messages
	 * @return the job
	 * @throws ClusterSingletonConfigurationException when the settings are invalid
	 */
	public JobDefinition create(String name, @Nullable Duration lockAtMostFor, @Nullable Duration lockAtLeastFor,
			String source) {
		String job = "cluster-singleton job '" + name + "' (" + source + ")";
		JobOverride override = this.defaults.overrides().apply(name);
		String prefix = "cluster-singleton.jobs." + ((override != null) ? override.key() : name) + ".";
		Setting atMost = pick((override != null) ? override.lockAtMostFor() : null, prefix + "lock-at-most-for",
				lockAtMostFor, "Job.lockAtMostFor", this.defaults.lockAtMostFor(),
				"cluster-singleton.default-lock-at-most-for");
		Setting atLeast = pick((override != null) ? override.lockAtLeastFor() : null, prefix + "lock-at-least-for",
				lockAtLeastFor, "Job.lockAtLeastFor", this.defaults.lockAtLeastFor(),
				"cluster-singleton.default-lock-at-least-for");
		return definition(job, name, atMost, atLeast, override, null, source);
	}

	private JobPolicies policies(String job, String prefix, @Nullable JobOverride override, ClusterSingleton annotation,
			@Nullable CronSlotSchedule schedule, @Nullable Duration fixedRate, @Nullable CronSlotSchedule cron) {
		JobPolicies defaults = this.defaults.policies();
		Choice<MisfirePolicy> misfire = choose(job, (override != null) ? override.misfire() : null, prefix + "misfire",
				annotation.misfire(), "@ClusterSingleton(misfire)", defaults.misfire(),
				(value) -> parseEnum(MisfirePolicy.class, value, "skip, run-once or run-all"));
		Choice<Integer> misfireLimit = choose(job, (override != null) ? override.misfireLimit() : null,
				prefix + "misfire-limit", annotation.misfireLimit(), "@ClusterSingleton(misfireLimit)",
				defaults.misfireLimit(), JobDefinitionFactory::parseCount);
		Choice<RecoveryPolicy> recovery = choose(job, (override != null) ? override.recovery() : null,
				prefix + "recovery", annotation.recovery(), "@ClusterSingleton(recovery)", defaults.recovery(),
				(value) -> parseEnum(RecoveryPolicy.class, value, "none, lost or failed"));
		Choice<Integer> maxAttempts = choose(job, (override != null) ? override.maxAttempts() : null,
				prefix + "max-attempts", annotation.maxAttempts(), "@ClusterSingleton(maxAttempts)",
				defaults.maxAttempts(), JobDefinitionFactory::parseCount);
		Choice<Duration> retryDelay = choose(job, (override != null) ? override.retryDelay() : null,
				prefix + "retry-delay", annotation.retryDelay(), "@ClusterSingleton(retryDelay)", defaults.retryDelay(),
				JobDefinitionFactory::parseDuration);
		Choice<Duration> alertAfter = choose(job, (override != null) ? override.alertAfter() : null,
				prefix + "alert-after", annotation.alertAfter(), "@ClusterSingleton(alertAfter)", defaults.alertAfter(),
				JobDefinitionFactory::parseDuration);
		requireAtLeastOne(job, misfireLimit);
		requireAtLeastOne(job, maxAttempts);
		if (retryDelay.value().isNegative()) {
			throw invalid(job + ": retry-delay must not be negative, but " + retryDelay.origin() + " is "
					+ retryDelay.value());
		}
		Duration alert = alertAfter.value();
		if (alert != null && (alert.isNegative() || alert.isZero())) {
			throw invalid(job + ": alert-after must be positive, but " + alertAfter.origin() + " is " + alert);
		}
		Map<String, String> origins = new HashMap<>();
		if (alert != null) {
			origins.put(JobPolicies.ALERT_AFTER, alertAfter.origin());
		}
		else {
			alert = defaultAlertAfter(cron, fixedRate);
		}
		MisfirePolicy misfirePolicy = misfire.value();
		RecoveryPolicy recoveryPolicy = recovery.value();
		if (schedule == null) {
			// slots only exist for cron triggers: a policy the job sets itself is a
			// mistake, one it inherits from the defaults does not apply to it
			if (misfirePolicy != MisfirePolicy.SKIP) {
				if (!misfire.isDefault()) {
					throw invalid(job + ": " + misfire.origin() + " needs a @Scheduled(cron = ...) trigger, whose fire "
							+ "times are the slots it catches up, on a method that returns void (not a reactive "
							+ "publisher or a suspend function); this job has none");
				}
				misfirePolicy = MisfirePolicy.SKIP;
			}
			if (recoveryPolicy != RecoveryPolicy.NONE) {
				if (!recovery.isDefault()) {
					throw invalid(job + ": " + recovery.origin() + " needs a @Scheduled(cron = ...) trigger, whose "
							+ "fire times are the slots it runs again, on a method that returns void (not a reactive "
							+ "publisher or a suspend function); this job has none");
				}
				recoveryPolicy = RecoveryPolicy.NONE;
			}
		}
		if (misfirePolicy != MisfirePolicy.SKIP) {
			origins.put(JobPolicies.MISFIRE, misfire.origin());
		}
		if (recoveryPolicy != RecoveryPolicy.NONE) {
			origins.put(JobPolicies.RECOVERY, recovery.origin());
		}
		return new JobPolicies(misfirePolicy, misfireLimit.value(), recoveryPolicy, maxAttempts.value(),
				retryDelay.value(), alert, origins);
	}

	/**
	 * Whether a method is a reactive job: it returns a {@link Publisher} and Reactor,
	 * which guards it, is on the class path.
	 */
	static boolean isReactive(Method method) {
		return REACTOR_PRESENT && Publisher.class.isAssignableFrom(method.getReturnType());
	}

	private static @Nullable Duration defaultAlertAfter(@Nullable CronSlotSchedule schedule,
			@Nullable Duration fixedRate) {
		if (schedule != null) {
			Duration period = schedule.period();
			return (period != null) ? period.multipliedBy(2) : null;
		}
		return (fixedRate != null) ? fixedRate.multipliedBy(2) : null;
	}

	private @Nullable Duration fixedRate(Method method, String job) {
		Set<Scheduled> annotations = AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class);
		Duration shortest = null;
		for (Scheduled scheduled : annotations) {
			Duration rate = null;
			TimeUnit unit = scheduled.timeUnit();
			if (scheduled.fixedRate() > 0) {
				rate = Duration.of(scheduled.fixedRate(), unit.toChronoUnit());
			}
			else if (StringUtils.hasText(scheduled.fixedRateString())) {
				String value = resolve(scheduled.fixedRateString());
				try {
					rate = isNumber(value) ? Duration.of(Long.parseLong(value), unit.toChronoUnit())
							: DurationStyle.detectAndParse(value);
				}
				catch (RuntimeException ex) {
					// Spring reports a bad fixedRateString itself; no default alert for
					// it
					rate = null;
				}
			}
			if (rate != null && rate.toNanos() > 0 && (shortest == null || rate.compareTo(shortest) < 0)) {
				shortest = rate;
			}
		}
		return shortest;
	}

	private static boolean isNumber(String value) {
		return !value.isEmpty() && value.chars().allMatch(Character::isDigit);
	}

	private static void requireAtLeastOne(String job, Choice<Integer> choice) {
		if (choice.value() == null || choice.value() < 1) {
			throw invalid(job + ": " + choice.origin() + " must be at least 1, but is " + choice.value());
		}
	}

	private <T> Choice<T> choose(String job, @Nullable T property, String propertyName, String attribute,
			String attributeName, @Nullable T fallback, Function<String, T> parser) {
		if (property != null) {
			return new Choice<>(property, propertyName, false);
		}
		if (StringUtils.hasText(attribute)) {
			String resolved;
			try {
				resolved = this.resolver.resolveStringValue(attribute);
			}
			catch (IllegalArgumentException ex) {
				throw invalid(
						job + ": " + attributeName + " = \"" + attribute + "\" cannot be resolved: " + ex.getMessage(),
						ex);
			}
			if (StringUtils.hasText(resolved)) {
				try {
					return new Choice<>(parser.apply(resolved.strip()), attributeName + " = \"" + attribute + "\"",
							false);
				}
				catch (IllegalArgumentException ex) {
					throw invalid(job + ": " + attributeName + " = \"" + attribute + "\""
							+ (resolved.equals(attribute) ? "" : " (resolved to \"" + resolved + "\")")
							+ " is invalid: " + ex.getMessage(), ex);
				}
			}
		}
		return new Choice<>(fallback,
				"cluster-singleton.default-" + propertyName.substring(propertyName.lastIndexOf('.') + 1), true);
	}

	private static <E extends Enum<E>> E parseEnum(Class<E> type, String value, String allowed) {
		String normalized = value.strip().replace('-', '_').toUpperCase(Locale.ROOT);
		for (E constant : type.getEnumConstants()) {
			if (constant.name().equals(normalized)) {
				return constant;
			}
		}
		throw new IllegalArgumentException("use " + allowed);
	}

	private static Integer parseCount(String value) {
		try {
			return Integer.valueOf(value.strip());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("not a whole number", ex);
		}
	}

	private static Duration parseDuration(String value) {
		try {
			return DurationStyle.detectAndParse(value.strip());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("not a duration; use a value such as \"30m\", \"PT30M\" or \"1500ms\"",
					ex);
		}
	}

	private record Choice<T>(@Nullable T value, String origin, boolean isDefault) {

	}

	private static Setting pick(@Nullable Duration property, String propertyName, @Nullable Duration code,
			String codeName, Duration fallback, String fallbackName) {
		if (property != null) {
			return new Setting(property, propertyName);
		}
		if (code != null) {
			return new Setting(code, codeName);
		}
		return new Setting(fallback, fallbackName);
	}

	private JobDefinition definition(String job, String name, Setting atMost, Setting atLeast,
			@Nullable JobOverride override, @Nullable CronSlotSchedule schedule, String source) {
		if (atMost.value().isNegative() || atMost.value().isZero()) {
			throw invalid(job + ": lockAtMostFor must be positive, but " + atMost.origin() + " is " + atMost.value());
		}
		if (atLeast.value().isNegative()) {
			throw invalid(
					job + ": lockAtLeastFor must not be negative, but " + atLeast.origin() + " is " + atLeast.value());
		}
		if (atLeast.value().compareTo(atMost.value()) > 0) {
			throw invalid(job + ": lockAtLeastFor (" + atLeast.value() + ", from " + atLeast.origin()
					+ ") must not be longer than lockAtMostFor (" + atMost.value() + ", from " + atMost.origin() + ")");
		}
		if (this.defaults.leaseTtl().compareTo(atMost.value()) >= 0) {
			throw invalid(job + ": cluster-singleton.lease-ttl (" + this.defaults.leaseTtl()
					+ ") must be shorter than the job's lockAtMostFor (" + atMost.value() + ", from " + atMost.origin()
					+ "), or the watchdog could never renew the lease");
		}
		boolean enabled = override == null || override.enabled();
		return new JobDefinition(name, atMost.value(), atLeast.value(), enabled, schedule, source);
	}

	private String resolveName(Class<?> userClass, Method method, ClusterSingleton annotation, String source) {
		String name = annotation.name();
		if (StringUtils.hasText(name)) {
			try {
				name = this.resolver.resolveStringValue(name);
			}
			catch (IllegalArgumentException ex) {
				throw invalid("cluster-singleton job of " + source + ": @ClusterSingleton(name = \"" + annotation.name()
						+ "\") cannot be resolved: " + ex.getMessage(), ex);
			}
		}
		if (!StringUtils.hasText(name)) {
			return userClass.getSimpleName() + "." + method.getName();
		}
		return name.strip();
	}

	private Setting pick(String job, @Nullable Duration property, String propertyName, String attribute,
			String attributeName, Duration fallback, String fallbackName) {
		if (property != null) {
			return new Setting(property, propertyName);
		}
		if (StringUtils.hasText(attribute)) {
			String resolved;
			try {
				resolved = this.resolver.resolveStringValue(attribute);
			}
			catch (IllegalArgumentException ex) {
				throw invalid(
						job + ": " + attributeName + " = \"" + attribute + "\" cannot be resolved: " + ex.getMessage(),
						ex);
			}
			if (StringUtils.hasText(resolved)) {
				try {
					return new Setting(DurationStyle.detectAndParse(resolved.strip()),
							attributeName + " = \"" + attribute + "\"");
				}
				catch (IllegalArgumentException ex) {
					throw invalid(job + ": " + attributeName + " = \"" + attribute + "\""
							+ (resolved.equals(attribute) ? "" : " (resolved to \"" + resolved + "\")")
							+ " is not a duration; use a value such as \"30m\", \"PT30M\" or \"1500ms\"", ex);
				}
			}
		}
		return new Setting(fallback, fallbackName);
	}

	private @Nullable CronSlotSchedule cronSchedule(Method method, String job) {
		Set<Scheduled> annotations = AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class);
		if (annotations.isEmpty()) {
			return null;
		}
		List<CronSlotSchedule> schedules = new ArrayList<>();
		for (Scheduled scheduled : annotations) {
			String cron = resolve(scheduled.cron());
			if (!StringUtils.hasText(cron) || ScheduledTaskRegistrar.CRON_DISABLED.equals(cron)) {
				// a fixed-rate or fixed-delay trigger on the same method has no slot, and
				// the
				// engine cannot tell which trigger fired: no slot for any of them
				return null;
			}
			String zone = resolve(scheduled.zone());
			if (!StringUtils.hasText(zone) && this.zonelessJobsWarned.add(job)) {
				logger.warn(job + " has a cron trigger without a zone: its slots are the "
						+ "fire times in this JVM's default time zone (" + TimeZone.getDefault().getID() + "), so a "
						+ "node whose default time zone differs computes other slots, and the job can run twice or "
						+ "not at all around them. Set @Scheduled(zone = \"...\") on "
						+ method.getDeclaringClass().getSimpleName() + "." + method.getName());
			}
			ZoneId zoneId;
			try {
				zoneId = StringUtils.hasText(zone) ? ZoneId.of(zone) : TimeZone.getDefault().toZoneId();
			}
			catch (RuntimeException ex) {
				throw invalid(job + ": @Scheduled(zone = \"" + scheduled.zone() + "\") is not a time zone id", ex);
			}
			try {
				schedules.add(CronSlotSchedule.of(cron, zoneId));
			}
			catch (IllegalArgumentException ex) {
				throw invalid(job + ": @Scheduled(cron = \"" + scheduled.cron() + "\") is not a cron expression: "
						+ ex.getMessage(), ex);
			}
		}
		return (schedules.size() == 1) ? schedules.get(0) : CronSlotSchedule.union(schedules);
	}

	private String resolve(String value) {
		if (!StringUtils.hasText(value)) {
			return value;
		}
		String resolved = this.resolver.resolveStringValue(value);
		return (resolved != null) ? resolved.strip() : "";
	}

	static ClusterSingletonConfigurationException invalid(String message) {
		return new ClusterSingletonConfigurationException("Invalid " + message);
	}

	private static ClusterSingletonConfigurationException invalid(String message, Throwable cause) {
		return new ClusterSingletonConfigurationException("Invalid " + message, cause);
	}

	private record Setting(Duration value, String origin) {

	}

}
