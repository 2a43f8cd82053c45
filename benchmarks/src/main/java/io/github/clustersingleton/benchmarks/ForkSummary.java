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

package io.github.clustersingleton.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;

/**
 * The benchmarks' results fork by fork: for each benchmark and parameter set, the median
 * of each fork's measurement iterations, their median and spread, and the ratios of ours
 * to the floor, to ShedLock and to Redisson computed fork by fork (fork <i>i</i> of one
 * benchmark against fork <i>i</i> of the other), so that a ratio target counts as met
 * only when it holds in every fork.
 *
 * @author cluster-singleton contributors
 */
final class ForkSummary {

	private static final String PACKAGE = ForkSummary.class.getPackageName() + ".";

	private final Map<String, Row> rows;

	private ForkSummary(Map<String, Row> rows) {
		this.rows = rows;
	}

	static ForkSummary of(Collection<RunResult> results) {
		Map<String, Row> rows = new LinkedHashMap<>();
		for (RunResult result : results) {
			BenchmarkParams params = result.getParams();
			String benchmark = params.getBenchmark().replace(PACKAGE, "");
			String parameters = params.getParamsKeys()
				.stream()
				.map((key) -> key + "=" + params.getParam(key))
				.collect(Collectors.joining(" "));
			List<Double> forks = new ArrayList<>();
			for (BenchmarkResult fork : result.getBenchmarkResults()) {
				List<Double> iterations = new ArrayList<>();
				for (IterationResult iteration : fork.getIterationResults()) {
					iterations.add(iteration.getPrimaryResult().getScore());
				}
				forks.add(median(iterations));
			}
			String unit = result.getPrimaryResult().getScoreUnit();
			rows.put(benchmark + " " + parameters, new Row(benchmark, parameters, unit, forks));
		}
		return new ForkSummary(rows);
	}

	String render() {
		StringBuilder out = new StringBuilder();
		out.append("| benchmark | parameters | unit | median per fork | median | spread (min–max) |\n");
		out.append("|---|---|---|---|---:|---|\n");
		for (Row row : this.rows.values()) {
			out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s–%s |%n", row.benchmark, row.parameters,
					row.unit, join(row.forks), number(median(row.forks)), number(min(row.forks)),
					number(max(row.forks))));
		}
		out.append("\nRatios fork by fork (fork i against fork i); `max` is the worst fork.\n\n");
		out.append("| ratio | parameters | per fork | max |\n|---|---|---|---:|\n");
		ratio(out, "UncontendedBenchmark.oursSpi", "UncontendedBenchmark.floor", "ours SPI / floor");
		ratio(out, "UncontendedBenchmark.oursEngine", "UncontendedBenchmark.floor", "ours engine / floor");
		ratio(out, "UncontendedBenchmark.oursSpi", "UncontendedBenchmark.shedLock", "ours SPI / ShedLock");
		ratio(out, "UncontendedBenchmark.oursSpi", "RedissonBenchmark.redissonLock", "ours SPI / Redisson");
		ratio(out, "RenewalBenchmark.batched", "RenewalBenchmark.floor", "renewal batched / floor");
		ratio(out, "RenewalBenchmark.oneByOne", "RenewalBenchmark.batched", "renewal one by one / batched");
		return out.toString();
	}

	private void ratio(StringBuilder out, String numerator, String denominator, String label) {
		for (Row top : this.rows.values()) {
			if (!top.benchmark.equals(numerator)) {
				continue;
			}
			Row bottom = this.rows.values()
				.stream()
				.filter((row) -> row.benchmark.equals(denominator) && sameStore(row, top))
				.filter((row) -> !row.parameters.contains("leases=") || row.parameters.equals(top.parameters))
				.findFirst()
				.orElse(null);
			if (bottom == null) {
				continue;
			}
			List<Double> ratios = new ArrayList<>();
			for (int i = 0; i < Math.min(top.forks.size(), bottom.forks.size()); i++) {
				ratios.add(top.forks.get(i) / bottom.forks.get(i));
			}
			out.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f× |%n", label, top.parameters,
					ratios.stream()
						.map((value) -> String.format(Locale.ROOT, "%.2f×", value))
						.collect(Collectors.joining(", ")),
					max(ratios)));
		}
	}

	private static boolean sameStore(Row a, Row b) {
		return store(a).equals(store(b));
	}

	private static String store(Row row) {
		for (String part : row.parameters.split(" ")) {
			if (part.startsWith("store=")) {
				return part;
			}
		}
		// Redisson runs on Redis only and has no store parameter
		return row.benchmark.startsWith("RedissonBenchmark.") ? "store=redis" : "";
	}

	private static String join(List<Double> values) {
		return values.stream().map(ForkSummary::number).collect(Collectors.joining(", "));
	}

	private static String number(double value) {
		return (value >= 100) ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.3g", value);
	}

	static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(null);
		int n = sorted.size();
		return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
	}

	private static double min(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
	}

	private static double max(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
	}

	private record Row(String benchmark, String parameters, String unit, List<Double> forks) {
	}

}
