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

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Run every benchmark, store by store so that ours, the floor and ShedLock on one store
 * run within the same minute or two (ratios of one store stay comparable even when the
 * load changes), then the takeover harness. Writes {@code results.json} (JMH's format,
 * all runs), {@code summary.md} (the median and spread of each benchmark per fork, and
 * the ratios of ours to the floor and to ShedLock in every fork), {@code load.txt} and
 * {@code takeover.json} into the directory given as the first argument (default
 * {@code docs/benchmarks}).
 * <p>
 * The second argument is the number of forks (default 3): each fork is a fresh JVM with
 * its own warm-up (2 &times; 1 s) and measurement (5 &times; 1 s), so that a target
 * counts as met only when it holds in every fork, not only on average.
 *
 * @author cluster-singleton
 */
public final class RunAll {

	private static final List<String> STORES = List.of("postgresql", "mariadb", "h2", "redis");

	private RunAll() {
	}

	public static void main(String[] args) throws Exception {
		Path directory = Path.of((args.length > 0) ? args[0] : "docs/benchmarks");
		int forks = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		Files.createDirectories(directory);
		long started = System.nanoTime();
		List<String> load = new ArrayList<>();
		List<RunResult> results = new ArrayList<>();
		for (String store : STORES) {
			load.add(Instant.now() + " before " + store + ": " + loadAverage());
			String includes = "redis".equals(store) ? "Uncontended|Redisson|Contended|Renewal"
					: "Uncontended|Contended|Renewal";
			ChainedOptionsBuilder options = new OptionsBuilder().param("store", store)
				.forks(forks)
				.warmupIterations(2)
				.warmupTime(TimeValue.seconds(1))
				.measurementIterations(5)
				.measurementTime(TimeValue.seconds(1));
			for (String include : includes.split("\\|")) {
				options.include(RunAll.class.getPackageName() + "\\." + include + "Benchmark\\.");
			}
			if ("mariadb".equals(store) || "h2".equals(store)) {
				options.exclude("Renewal");
			}
			results.addAll(new Runner(options.build()).run());
		}
		load.add(Instant.now() + " before takeover: " + loadAverage());
		TakeoverLatency.main(new String[] { directory.resolve("takeover.json").toString() });
		load.add(Instant.now() + " end: " + loadAverage());
		load.add("total seconds: " + (System.nanoTime() - started) / 1_000_000_000L);
		try (PrintStream out = new PrintStream(directory.resolve("results.json").toFile(), StandardCharsets.UTF_8)) {
			ResultFormatFactory.getInstance(ResultFormatType.JSON, out).writeOut(results);
		}
		Files.write(directory.resolve("load.txt"), load, StandardCharsets.UTF_8);
		Files.writeString(directory.resolve("summary.md"), ForkSummary.of(results).render(), StandardCharsets.UTF_8);
		load.forEach(System.out::println);
	}

	private static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).trim() + " (1/5/15 min load, runnable/threads, pid)";
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

}
