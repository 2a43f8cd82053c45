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

package io.github.clustersingleton.metrics;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.clustersingleton.AcquireResult;
import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.HeldLease;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.jdbc.JdbcLeaseAutoConfiguration;
import io.github.clustersingleton.autoconfigure.metrics.ClusterSingletonMetricsAutoConfiguration;
import io.github.clustersingleton.lease.ClusterSingletonExecutor;
import io.github.clustersingleton.lease.ClusterSingletonListener.RunOutcome;
import io.github.clustersingleton.lease.JobDefinition;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alert rules in {@code docs/ops/prometheus-rule.yaml}, the Grafana dashboard in
 * {@code docs/ops/grafana-dashboard.json} and the PromQL of {@code docs/observability.md}
 * name only Prometheus series, labels and label values that a
 * {@link PrometheusMeterRegistry} really exports for cluster-singleton's meters, and the
 * alert rules are the queries of the page.
 * <p>
 * The series come from one application context (JDBC on H2, leader mode, a job with an
 * {@code alert-after}) whose {@link ClusterSingletonMetrics} is then told of every
 * acquisition outcome, run outcome and renewal outcome there is.
 *
 * @author cluster-singleton contributors
 */
class ObservabilityOpsDocumentationTests {

	private static final Path OPS = Path.of("..", "docs", "ops");

	private static final Path RULES = OPS.resolve("prometheus-rule.yaml");

	private static final Path DASHBOARD = OPS.resolve("grafana-dashboard.json");

	private static final Path PAGE = Path.of("..", "docs", "observability.md");

	/** Labels Prometheus adds from the scrape target, not from the meters. */
	private static final Set<String> TARGET_LABELS = Set.of("instance", "job", "namespace", "pod");

	private static final Pattern SERIES = Pattern.compile("\\bcluster_singleton_[a-z_]+");

	private static final Pattern SELECTOR = Pattern.compile("\\b(cluster_singleton_[a-z_]+)\\{([^}]*)\\}");

	private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");

	private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");

	private static final Pattern SCRAPE_LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

	/** Series name, label name, label values, as scraped. */
	private static final Map<String, Map<String, Set<String>>> scraped = new TreeMap<>();

	@BeforeAll
	static void scrapeEveryMeter() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, ClusterSingletonAutoConfiguration.class,
							JdbcLeaseAutoConfiguration.class, ClusterSingletonMetricsAutoConfiguration.class))
			.withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
			.withBean(Jobs.class)
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:ops-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"cluster-singleton.jdbc.initialize-schema=always", "cluster-singleton.leader.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
				// Boot's metrics auto-configuration binds MeterBinder beans; it is not
				// here
				context.getBeansOfType(MeterBinder.class).values().forEach((binder) -> binder.bindTo(registry));
				ClusterSingletonMetrics metrics = context.getBean(ClusterSingletonMetrics.class);
				metrics.bindJobs(context.getBean(ClusterSingletonExecutor.class));
				JobDefinition job = JobDefinition.of("billing", Duration.ofMinutes(1), Duration.ZERO);
				Duration duration = Duration.ofMillis(2);
				metrics.acquireAttempted(job, null, AcquireResult.acquired(1), duration);
				metrics.acquireAttempted(job, null, AcquireResult.held("other"), duration);
				metrics.acquireAttempted(job, null, AcquireResult.slotDone(null), duration);
				metrics.acquireAttempted(job, null, AcquireResult.clockSkew(null), duration);
				metrics.acquireAttempted(job, null, AcquireResult.notLeader(), duration);
				metrics.acquireFailed(job, null, new IllegalStateException("down"), duration);
				for (RunOutcome outcome : RunOutcome.values()) {
					metrics.runFinished(job, lease("run-" + outcome), outcome, Instant.now(), duration, null);
				}
				HeldLease lost = lease("lost");
				metrics.renewalAttempted(List.of(lease("kept")), 1, duration, null);
				metrics.leaseLost(job, lost, "test");
				metrics.renewalAttempted(List.of(lost), 0, duration, null);
				metrics.renewalAttempted(List.of(lost), 0, duration, new IllegalStateException("down"));
				parseScrape(registry.scrape());
			});
	}

	private static HeldLease lease(String token) {
		return new HeldLease("billing", "node", token, 1, null);
	}

	private static void parseScrape(String text) {
		for (String line : text.split("\n")) {
			if (line.isBlank() || line.startsWith("#") || !line.startsWith("cluster_singleton_")) {
				continue;
			}
			int brace = line.indexOf('{');
			int space = line.indexOf(' ');
			String name = line.substring(0, (brace >= 0 && brace < space) ? brace : space);
			Map<String, Set<String>> labels = scraped.computeIfAbsent(name, (key) -> new TreeMap<>());
			if (brace >= 0 && brace < space) {
				Matcher matcher = SCRAPE_LABEL.matcher(line.substring(brace, line.lastIndexOf('}')));
				while (matcher.find()) {
					labels.computeIfAbsent(matcher.group(1), (key) -> new TreeSet<>()).add(matcher.group(2));
				}
			}
		}
	}

	@Test
	void everyMeterOfClusterSingletonMetricsIsScraped() throws IllegalAccessException {
		for (Field field : ClusterSingletonMetrics.class.getFields()) {
			if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
				String prefix = ((String) field.get(null)).replace('.', '_');
				assertThat(scraped.keySet()).as("series of %s", field.get(null)).anyMatch((s) -> s.startsWith(prefix));
			}
		}
		assertThat(scraped.get("cluster_singleton_acquire_seconds_count").get("outcome"))
			.containsExactlyInAnyOrder("acquired", "held", "slot-done", "clock-skew", "not-leader", "error");
	}

	@Test
	void theAlertRulesAreTheQueriesOfTheObservabilityPage() throws IOException {
		Set<String> rules = new LinkedHashSet<>(ruleExpressions());
		Set<String> page = new LinkedHashSet<>(pageQueries());
		assertThat(page).as("queries of %s", PAGE).containsAll(rules);
		Set<String> notRules = new LinkedHashSet<>(page);
		notRules.removeAll(rules);
		// the node-local fallback is for a LeaseBackend of one's own without a run ledger
		assertThat(notRules).as("queries of %s that are not in %s", PAGE, RULES)
			.singleElement()
			.asString()
			.contains("scope=\"node\"", "max_over_time");
	}

	@Test
	void theAlertRulesNameOnlyExportedSeriesLabelsAndValues() throws IOException {
		List<String> rules = ruleExpressions();
		assertThat(rules).hasSizeGreaterThanOrEqualTo(10);
		rules.forEach(ObservabilityOpsDocumentationTests::checkQuery);
	}

	@Test
	void theDashboardNamesOnlyExportedSeriesLabelsAndValues() throws IOException {
		List<String> queries = new ArrayList<>();
		collectQueries(JsonParserFactory.getJsonParser().parseMap(Files.readString(DASHBOARD)), queries);
		assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
		queries.forEach(ObservabilityOpsDocumentationTests::checkQuery);
	}

	@Test
	void thePageNamesOnlyExportedSeriesLabelsAndValues() throws IOException {
		pageQueries().forEach(ObservabilityOpsDocumentationTests::checkQuery);
		// and the table of Prometheus names
		String page = Files.readString(PAGE);
		int start = page.indexOf("With the Prometheus registry, the names become:");
		assertThat(start).as("the table of Prometheus names in %s", PAGE).isNotNegative();
		Matcher series = SERIES.matcher(page.substring(start, page.indexOf("\n#", start)));
		int names = 0;
		while (series.find()) {
			assertThat(scraped).as("series %s named in %s", series.group(), PAGE).containsKey(series.group());
			names++;
		}
		assertThat(names).isGreaterThanOrEqualTo(7);
	}

	private static void checkQuery(String query) {
		Matcher series = SERIES.matcher(query);
		Set<String> labels = new TreeSet<>(TARGET_LABELS);
		boolean any = false;
		while (series.find()) {
			any = true;
			assertThat(scraped).as("series %s in query %s", series.group(), query).containsKey(series.group());
			labels.addAll(scraped.get(series.group()).keySet());
		}
		assertThat(any).as("a cluster-singleton series in %s", query).isTrue();
		Matcher selector = SELECTOR.matcher(query);
		while (selector.find()) {
			Map<String, Set<String>> exported = scraped.get(selector.group(1));
			Matcher matcher = MATCHER.matcher(selector.group(2));
			while (matcher.find()) {
				String label = matcher.group(1);
				String value = matcher.group(3);
				assertThat(exported).as("label %s of %s in %s", label, selector.group(1), query).containsKey(label);
				if (label.equals("name") || value.contains("$") || value.equals(".*")) {
					continue; // job names are the application's
				}
				List<String> values = matcher.group(2).contains("~") ? List.of(value.split("\\|")) : List.of(value);
				assertThat(exported.get(label)).as("values of %s on %s in %s", label, selector.group(1), query)
					.containsAll(values);
			}
		}
		Matcher grouping = GROUPING.matcher(query);
		while (grouping.find()) {
			for (String label : grouping.group(1).split(",")) {
				assertThat(labels).as("grouping label in %s", query).contains(label.strip());
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static List<String> ruleExpressions() throws IOException {
		Map<String, Object> rule = new Yaml().load(Files.readString(RULES));
		assertThat(rule).containsEntry("kind", "PrometheusRule");
		List<String> expressions = new ArrayList<>();
		Map<String, Object> spec = (Map<String, Object>) rule.get("spec");
		for (Map<String, Object> group : (List<Map<String, Object>>) spec.get("groups")) {
			for (Map<String, Object> each : (List<Map<String, Object>>) group.get("rules")) {
				assertThat(each).containsKeys("alert", "expr");
				expressions.add(normalize((String) each.get("expr")));
			}
		}
		return expressions;
	}

	/**
	 * The PromQL blocks of the page's "Alerts (PromQL)" section, one query per run of
	 * lines between comments and blank lines.
	 */
	private static List<String> pageQueries() throws IOException {
		String page = Files.readString(PAGE);
		int start = page.indexOf("### Alerts (PromQL)");
		assertThat(start).as("section 'Alerts (PromQL)' in %s", PAGE).isNotNegative();
		int end = page.indexOf("\n## ", start);
		String section = page.substring(start, (end >= 0) ? end : page.length());
		List<String> queries = new ArrayList<>();
		boolean inBlock = false;
		StringBuilder query = new StringBuilder();
		for (String line : section.split("\n")) {
			if (line.startsWith("```")) {
				inBlock = line.equals("```promql");
				flush(query, queries);
			}
			else if (inBlock) {
				if (line.isBlank() || line.strip().startsWith("#")) {
					flush(query, queries);
				}
				else {
					query.append(' ').append(line);
				}
			}
		}
		assertThat(queries).as("queries in %s", PAGE).hasSizeGreaterThanOrEqualTo(10);
		return queries;
	}

	private static void flush(StringBuilder query, List<String> queries) {
		if (!query.isEmpty()) {
			queries.add(normalize(query.toString()));
			query.setLength(0);
		}
	}

	private static String normalize(String query) {
		return query.strip().replaceAll("\\s+", " ");
	}

	@SuppressWarnings("unchecked")
	private static void collectQueries(Object node, List<String> queries) {
		if (node instanceof Map<?, ?> map) {
			for (Map.Entry<?, ?> entry : map.entrySet()) {
				if (("expr".equals(entry.getKey()) || "definition".equals(entry.getKey()))
						&& entry.getValue() instanceof String query) {
					queries.add(normalize(query));
				}
				else {
					collectQueries(entry.getValue(), queries);
				}
			}
		}
		else if (node instanceof List<?> list) {
			list.forEach((each) -> collectQueries(each, queries));
		}
	}

	static class Jobs {

		@ClusterSingleton(name = "billing", alertAfter = "1h")
		public void bill() {
		}

	}

}
