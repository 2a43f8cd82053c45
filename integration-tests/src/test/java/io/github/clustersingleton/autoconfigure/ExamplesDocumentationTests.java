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

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every example a user would paste from {@code README.md} and {@code docs/} is checked:
 * each {@code cluster-singleton.*} key mentioned anywhere is a property of the
 * configuration metadata, each YAML and properties example binds to the properties
 * classes, and each Java example compiles against the project's API. An example that
 * cannot be checked is listed in {@link #NOT_CHECKED} with the reason.
 *
 * @author cluster-singleton contributors
 */
class ExamplesDocumentationTests {

	private static final Path ROOT = Path.of("..");

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\w*)\\s*$");

	private static final Pattern KEY = Pattern
		.compile("(?<![\\w/.-])cluster-singleton(?:\\.\\[[^\\]]*\\]|\\[[^\\]]*\\]|\\.[a-z0-9<>*\\-]+)+(?![\\w/])");

	/**
	 * Keys that name no property on purpose: system properties of this project's own test
	 * harness, mentioned where the docs say how to repeat a measurement.
	 */
	private static final List<String> NOT_PROPERTIES = List.of("cluster-singleton.test.", "cluster-singleton.failover.",
			"cluster-singleton.cluster.", "cluster-singleton.benchmark.", "cluster-singleton.leader-test.");

	/**
	 * Examples that are not compiled or bound, by the first line that tells them apart,
	 * and why.
	 */
	private static final Map<String, String> NOT_CHECKED = Map.of("@Override",
			"docs/testing.md: one more method of the contract test class shown just before it",
			"// in a @Configuration class of an application with spring-boot-starter-security",
			"docs/observability.md: a Spring Security configuration, which this module does not have on its "
					+ "class path; the dashboard module's DashboardSecurityTests run the same rules");

	/**
	 * Names in Java examples that stand for the reader's own code (their services,
	 * repositories and domain types); everything else must resolve against the project
	 * and its dependencies.
	 */
	private static final Set<String> USER_NAMES = Set.of("importer", "Report", "reports", "monthEnd", "client",
			"changesSince", "jdbc", "until", "transactionTemplate", "invoicesDue", "Invoice", "ledger", "log",
			"customers", "Customer", "payments", "Ledger", "invoice", "MutableClock", "ReportJob",
			"ReportJobConfiguration", "ReportRepository", "BillingJob", "MyLeaseBackend", "MyStore",
			"CountingConnectionFactory", "export", "template", "contextRunner");

	@Test
	void everyClusterSingletonKeyInTheDocsIsAProperty() throws IOException {
		Set<String> properties = metadataProperties().keySet();
		Set<String> jobKeys = jobKeys();
		List<String> problems = new ArrayList<>();
		for (Path doc : docs()) {
			List<String> lines = Files.readAllLines(doc);
			for (int i = 0; i < lines.size(); i++) {
				Matcher matcher = KEY.matcher(lines.get(i));
				while (matcher.find()) {
					String key = matcher.group();
					if (!isKnown(key, properties, jobKeys)) {
						problems.add(where(doc, i + 1) + ": " + key + " is no cluster-singleton property");
					}
				}
			}
		}
		assertThat(problems).isEmpty();
	}

	@Test
	void everyYamlAndPropertiesExampleBindsToThePropertiesClasses() throws Exception {
		Map<String, JsonNode> metadata = metadataProperties();
		Set<String> jobKeys = jobKeys();
		Map<String, Class<?>> groups = propertiesClasses();
		List<String> problems = new ArrayList<>();
		int checked = 0;
		for (Snippet snippet : snippets()) {
			if (!snippet.isConfiguration() || notChecked(snippet)) {
				continue;
			}
			List<PropertySource<?>> sources;
			try {
				sources = snippet.load();
			}
			catch (Exception ex) {
				problems.add(snippet.where() + ": does not parse as " + snippet.language() + ": " + ex.getMessage());
				continue;
			}
			checked++;
			for (PropertySource<?> source : sources) {
				if (source instanceof EnumerablePropertySource<?> enumerable) {
					for (String name : enumerable.getPropertyNames()) {
						if (name.startsWith("cluster-singleton") && !isKnown(name, metadata.keySet(), jobKeys)) {
							problems.add(snippet.where() + ": " + name + " is no cluster-singleton property");
						}
					}
				}
			}
			StandardEnvironment environment = new StandardEnvironment();
			sources.forEach(environment.getPropertySources()::addFirst);
			Binder binder = new Binder(ConfigurationPropertySources.get(environment));
			for (Map.Entry<String, Class<?>> group : groups.entrySet()) {
				try {
					binder.bind(group.getKey(), group.getValue());
				}
				catch (RuntimeException ex) {
					problems.add(snippet.where() + ": does not bind to " + group.getValue().getSimpleName() + ": "
							+ rootCause(ex));
				}
			}
		}
		assertThat(checked).as("YAML and properties examples found").isGreaterThan(10);
		assertThat(problems).isEmpty();
	}

	@Test
	void everyJavaExampleCompiles() throws IOException {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		assertThat(compiler).as("a JDK's compiler").isNotNull();
		List<String> options = List.of("-proc:none", "-classpath", classPath(), "-d",
				Files.createTempDirectory("doc-examples").toString());
		// one compilation for all examples, each in a package of its own
		Map<String, Snippet> units = new LinkedHashMap<>();
		for (Snippet snippet : snippets()) {
			if (snippet.language().equals("java") && !notChecked(snippet)) {
				units.put("example" + units.size(), snippet);
			}
		}
		List<JavaFileObject> sources = new ArrayList<>();
		units.forEach((pkg, snippet) -> sources.add(snippet.compilationUnit(pkg)));
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
				StandardCharsets.UTF_8)) {
			compiler.getTask(new StringWriter(), files, diagnostics, options, null, sources).call();
		}
		List<String> problems = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR && !isUserName(diagnostic)) {
				String pkg = (diagnostic.getSource() != null)
						? diagnostic.getSource().toUri().getPath().replaceAll("^/([^/]+)/.*$", "$1") : "";
				Snippet snippet = units.get(pkg);
				problems.add(((snippet != null) ? snippet.where() : "?") + ": "
						+ diagnostic.getMessage(Locale.ROOT).replace('\n', ' '));
			}
		}
		int checked = units.size();
		assertThat(checked).as("Java examples found").isGreaterThan(10);
		assertThat(problems).isEmpty();
	}

	@Test
	void everyLinkBetweenTheDocsFindsItsFileAndHeading() throws IOException {
		List<Path> docs = new ArrayList<>(docs());
		for (String file : List.of("CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md")) {
			docs.add(ROOT.resolve(file));
		}
		Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
		List<String> problems = new ArrayList<>();
		for (Path doc : docs) {
			List<String> lines = Files.readAllLines(doc);
			boolean fenced = false;
			for (int i = 0; i < lines.size(); i++) {
				if (lines.get(i).strip().startsWith("```")) {
					fenced = !fenced;
					continue;
				}
				Matcher matcher = link.matcher(lines.get(i));
				while (!fenced && matcher.find()) {
					String target = matcher.group(1);
					if (target.matches("^[a-z]+:.*")) {
						continue;
					}
					int hash = target.indexOf('#');
					String file = (hash >= 0) ? target.substring(0, hash) : target;
					Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
					if (!Files.exists(resolved)) {
						problems.add(where(doc, i + 1) + ": " + target + ": no such file");
					}
					else if (hash >= 0 && resolved.toString().endsWith(".md")
							&& !anchors(resolved).contains(target.substring(hash + 1))) {
						problems.add(where(doc, i + 1) + ": " + target + ": no such heading");
					}
				}
			}
		}
		assertThat(problems).isEmpty();
	}

	/**
	 * The anchors GitHub gives the headings of a Markdown file.
	 */
	private static Set<String> anchors(Path doc) throws IOException {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new LinkedHashMap<>();
		boolean fenced = false;
		for (String line : Files.readAllLines(doc)) {
			if (line.strip().startsWith("```")) {
				fenced = !fenced;
				continue;
			}
			Matcher heading = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$").matcher(line);
			if (!fenced && heading.matches()) {
				String text = heading.group(1).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
				String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
		}
		return anchors;
	}

	@Test
	void everyExampleNotCheckedIsStillInTheDocs() throws IOException {
		List<Snippet> snippets = snippets();
		assertThat(NOT_CHECKED.keySet())
			.allSatisfy((first) -> assertThat(snippets).as("an example starting with '%s'", first)
				.anyMatch((snippet) -> snippet.firstLine().equals(first)));
	}

	private static boolean isUserName(Diagnostic<? extends JavaFileObject> diagnostic) {
		if (!diagnostic.getCode().startsWith("compiler.err.cant.resolve")
				&& !diagnostic.getCode().equals("compiler.err.invalid.mref")) {
			return false;
		}
		Matcher symbol = Pattern.compile("symbol:\\s+\\w+\\s+(\\w+)").matcher(diagnostic.getMessage(Locale.ROOT));
		return symbol.find() && USER_NAMES.contains(symbol.group(1));
	}

	private static boolean notChecked(Snippet snippet) {
		return NOT_CHECKED.containsKey(snippet.firstLine());
	}

	private static boolean isKnown(String mention, Set<String> properties, Set<String> jobKeys) {
		// <name>, <setting>: a placeholder for any name
		String key = mention.replaceAll("[.]+$", "").replaceAll("<[^>]*>", "*");
		if (NOT_PROPERTIES.stream().anyMatch(key::startsWith) || key.matches(".*\\.(yaml|yml|xml|sql|json|txt)$")) {
			return true;
		}
		// a job entry: jobs.<name>.key, jobs[name].key, jobs."[a.b]".key
		Matcher job = Pattern
			.compile("^cluster-singleton\\.jobs(?:\\.\\[[^\\]]*\\]|\\[[^\\]]*\\]|\\.[^.]+)(?:\\.(.+))?$")
			.matcher(key);
		if (job.matches()) {
			String jobKey = job.group(1);
			return jobKey == null || jobKey.equals("*") || jobKeys.contains(jobKey);
		}
		if (key.equals("cluster-singleton.jobs") || properties.contains(key)) {
			return true;
		}
		// a group of properties, or a family: cluster-singleton.default-*
		String prefix = key.endsWith("*") ? key.substring(0, key.length() - 1) : key + ".";
		return properties.stream().anyMatch((property) -> property.startsWith(prefix));
	}

	private static String rootCause(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause.getMessage();
	}

	private static List<Path> docs() throws IOException {
		List<Path> docs = new ArrayList<>();
		docs.add(ROOT.resolve("README.md"));
		try (Stream<Path> files = Files.walk(ROOT.resolve("docs"))) {
			files.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(docs::add);
		}
		return docs;
	}

	private static List<Snippet> snippets() throws IOException {
		List<Snippet> snippets = new ArrayList<>();
		for (Path doc : docs()) {
			List<String> lines = Files.readAllLines(doc);
			for (int i = 0; i < lines.size(); i++) {
				Matcher open = FENCE.matcher(lines.get(i));
				if (!open.matches()) {
					continue;
				}
				int indent = open.group(1).length();
				List<String> body = new ArrayList<>();
				int j = i + 1;
				while (j < lines.size() && !lines.get(j).strip().equals("```")) {
					String line = lines.get(j);
					body.add(line.substring(Math.min(indent, line.length() - line.stripLeading().length())));
					j++;
				}
				snippets.add(new Snippet(doc, i + 1, open.group(2), String.join("\n", body)));
				i = j;
			}
		}
		return snippets;
	}

	private static String where(Path doc, int line) {
		return ROOT.relativize(doc) + ":" + line;
	}

	private static Map<String, JsonNode> metadataProperties() throws IOException {
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		for (JsonNode root : metadataFiles()) {
			for (JsonNode property : root.path("properties")) {
				String name = property.get("name").asString();
				if (name.startsWith("cluster-singleton.")) {
					properties.put(name, property);
				}
			}
		}
		return properties;
	}

	/**
	 * The {@code @ConfigurationProperties} classes by their prefix.
	 */
	private static Map<String, Class<?>> propertiesClasses() throws Exception {
		Map<String, Class<?>> classes = new LinkedHashMap<>();
		Set<String> seen = new LinkedHashSet<>();
		for (JsonNode root : metadataFiles()) {
			for (JsonNode group : root.path("groups")) {
				String name = group.get("name").asString();
				JsonNode type = group.get("type");
				if (name.startsWith("cluster-singleton") && type != null && group.get("sourceMethod") == null
						&& type.asString().equals(group.path("sourceType").asString()) && seen.add(type.asString())) {
					classes.put(name, Class.forName(type.asString()));
				}
			}
		}
		assertThat(classes).containsKey("cluster-singleton");
		return classes;
	}

	/**
	 * The keys of a {@code cluster-singleton.jobs.<name>} entry.
	 */
	private static Set<String> jobKeys() {
		Set<String> keys = new TreeSet<>();
		for (java.lang.reflect.Method method : JobProperties.class.getMethods()) {
			if (method.getName().startsWith("set") && method.getParameterCount() == 1) {
				String property = method.getName().substring(3);
				keys.add(property.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT));
			}
		}
		return keys;
	}

	private static List<JsonNode> metadataFiles() throws IOException {
		List<URL> files = Collections.list(ExamplesDocumentationTests.class.getClassLoader().getResources(METADATA));
		assertThat(files).as("%s on the class path (run the build once)", METADATA).isNotEmpty();
		List<JsonNode> roots = new ArrayList<>();
		for (URL file : files) {
			try (InputStream in = file.openStream()) {
				roots.add(JsonMapper.builder().build().readTree(in));
			}
		}
		return roots;
	}

	private static String classPath() {
		String classPath = System.getProperty("surefire.test.class.path");
		return (classPath != null && !classPath.isBlank()) ? classPath : System.getProperty("java.class.path");
	}

	/**
	 * A fenced block of a Markdown file.
	 */
	record Snippet(Path doc, int line, String language, String text) {

		private static final String IMPORTS = """
				import java.sql.*;
				import java.time.*;
				import java.util.*;
				import java.util.function.*;
				import javax.sql.DataSource;
				import io.fabric8.kubernetes.client.KubernetesClient;
				import io.github.clustersingleton.*;
				import io.github.clustersingleton.autoconfigure.*;
				import io.github.clustersingleton.jdbc.*;
				import io.github.clustersingleton.kubernetes.*;
				import io.github.clustersingleton.lease.*;
				import io.github.clustersingleton.test.*;
				import io.github.clustersingleton.contract.*;
				import org.junit.jupiter.api.*;
				import org.springframework.beans.factory.annotation.*;
				import org.springframework.boot.autoconfigure.*;
				import org.springframework.boot.sql.init.DatabaseInitializationMode;
				import org.springframework.boot.test.context.*;
				import org.springframework.boot.test.context.runner.*;
				import org.springframework.context.annotation.*;
				import org.springframework.context.event.EventListener;
				import org.springframework.scheduling.annotation.*;
				import org.springframework.stereotype.*;
				import reactor.core.publisher.*;
				import static org.assertj.core.api.Assertions.*;
				""";

		boolean isConfiguration() {
			return (this.language.equals("yaml") || this.language.equals("yml") || this.language.equals("properties"))
					&& this.text.contains("cluster-singleton");
		}

		String firstLine() {
			return this.text.lines().filter((line) -> !line.isBlank()).findFirst().orElse("").strip();
		}

		String where() {
			return ExamplesDocumentationTests.where(this.doc, this.line);
		}

		List<PropertySource<?>> load() throws IOException {
			ByteArrayResource resource = new ByteArrayResource(this.text.getBytes(StandardCharsets.UTF_8), where());
			return this.language.equals("properties") ? new PropertiesPropertySourceLoader().load(where(), resource)
					: new YamlPropertySourceLoader().load(where(), resource);
		}

		/**
		 * The example as a compilation unit: a whole class as it is, members inside a
		 * class, statements inside a method; {@code { ... }} stands for a body left out.
		 */
		JavaFileObject compilationUnit(String pkg) {
			String code = this.text.replace("{ ... }", "{ }");
			String first = firstLine();
			String source;
			if (Pattern.compile(
					"^(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:public\\s+|abstract\\s+|final\\s+)*(?:class|interface|record)\\s",
					Pattern.MULTILINE)
				.matcher(code)
				.find() && !first.startsWith("@Scheduled") && !first.startsWith("@Bean")
					&& !first.startsWith("@Override")) {
				source = code;
			}
			else if (first.startsWith("@") || first.matches("^(public|protected|private|static|void|boolean)\\b.*")) {
				source = "class Example {\n" + code + "\n}";
			}
			else {
				source = "class Example {\nvoid example() throws Throwable {\n" + code + "\n}\n}";
			}
			source = "package " + pkg + ";\n" + IMPORTS + source;
			String body = source;
			Matcher publicType = Pattern
				.compile("public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record)\\s+(\\w+)")
				.matcher(code);
			String name = publicType.find() ? publicType.group(1) : "Example";
			return new SimpleJavaFileObject(URI.create("string:///" + pkg + "/" + name + ".java"),
					JavaFileObject.Kind.SOURCE) {
				@Override
				public CharSequence getCharContent(boolean ignoreEncodingErrors) {
					return body;
				}
			};
		}

	}

}
