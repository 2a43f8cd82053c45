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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart written as a stand-alone SVG file, so that the benchmark runners draw
 * their own plots and the documentation shows them without anything to run or install.
 * Either axis may be logarithmic (base 10); every series is a polyline with its points
 * marked, and the legend names the series in the order they were added.
 *
 * <pre class="code">
 * new SvgChart("Renewal cost", "held leases", "µs per round").logX().logY()
 *     .series("PostgreSQL", new double[] { 1, 10, 100 }, new double[] { 310, 420, 900 })
 *     .write(Path.of("docs/benchmarks/renewal.svg"));
 * </pre>
 *
 * @author cluster-singleton contributors
 */
public final class SvgChart {

	private static final String[] COLOURS = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
			"#e377c2", "#7f7f7f" };

	private static final int WIDTH = 720;

	private static final int HEIGHT = 440;

	private static final int LEFT = 80;

	private static final int RIGHT = 190;

	private static final int TOP = 40;

	private static final int BOTTOM = 60;

	private final String title;

	private final String xLabel;

	private final String yLabel;

	private final List<Series> series = new ArrayList<>();

	private boolean logX;

	private boolean logY;

	/**
	 * Create an empty chart.
	 * @param title the title above the plot
	 * @param xLabel the label of the horizontal axis, with its unit
	 * @param yLabel the label of the vertical axis, with its unit
	 */
	public SvgChart(String title, String xLabel, String yLabel) {
		this.title = title;
		this.xLabel = xLabel;
		this.yLabel = yLabel;
	}

	/**
	 * Use a base-10 logarithmic horizontal axis (every x must be positive).
	 * @return this chart
	 */
	public SvgChart logX() {
		this.logX = true;
		return this;
	}

	/**
	 * Use a base-10 logarithmic vertical axis (every y must be positive).
	 * @return this chart
	 */
	public SvgChart logY() {
		this.logY = true;
		return this;
	}

	/**
	 * Add a series.
	 * @param name its name in the legend
	 * @param x the horizontal values
	 * @param y the vertical values, as many as {@code x}
	 * @return this chart
	 */
	public SvgChart series(String name, double[] x, double[] y) {
		if (x.length != y.length || x.length == 0) {
			throw new IllegalArgumentException("Series '" + name + "' needs as many y as x values, and at least one");
		}
		this.series.add(new Series(name, x.clone(), y.clone()));
		return this;
	}

	/**
	 * Render the chart.
	 * @return the SVG document
	 */
	public String render() {
		if (this.series.isEmpty()) {
			throw new IllegalStateException("Chart '" + this.title + "' has no series");
		}
		Axis x = axis(this.logX, true);
		Axis y = axis(this.logY, false);
		int plotWidth = WIDTH - LEFT - RIGHT;
		int plotHeight = HEIGHT - TOP - BOTTOM;
		StringBuilder svg = new StringBuilder();
		svg.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
						+ "font-family=\"sans-serif\" font-size=\"12\">%n",
				WIDTH, HEIGHT, WIDTH, HEIGHT));
		svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
		svg.append(text(WIDTH / 2.0, 22, "middle", "font-size=\"15\" font-weight=\"bold\"", this.title));
		for (double tick : x.ticks()) {
			double px = LEFT + x.position(tick) * plotWidth;
			svg.append(line(px, TOP, px, TOP + plotHeight, "#e0e0e0"));
			svg.append(text(px, TOP + plotHeight + 16, "middle", "", format(tick)));
		}
		for (double tick : y.ticks()) {
			double py = TOP + plotHeight - y.position(tick) * plotHeight;
			svg.append(line(LEFT, py, LEFT + plotWidth, py, "#e0e0e0"));
			svg.append(text(LEFT - 6, py + 4, "end", "", format(tick)));
		}
		svg.append(String.format(Locale.ROOT,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>%n", LEFT, TOP,
				plotWidth, plotHeight));
		svg.append(text(LEFT + plotWidth / 2.0, HEIGHT - 18, "middle", "", this.xLabel + (this.logX ? " (log)" : "")));
		svg.append(String.format(Locale.ROOT,
				"<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" " + "transform=\"rotate(-90 18 %.1f)\">%s</text>%n",
				TOP + plotHeight / 2.0, TOP + plotHeight / 2.0, escape(this.yLabel + (this.logY ? " (log)" : ""))));
		for (int i = 0; i < this.series.size(); i++) {
			Series s = this.series.get(i);
			String colour = COLOURS[i % COLOURS.length];
			StringBuilder points = new StringBuilder();
			for (int p = 0; p < s.x.length; p++) {
				double px = LEFT + x.position(s.x[p]) * plotWidth;
				double py = TOP + plotHeight - y.position(s.y[p]) * plotHeight;
				points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
				svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", px, py,
						colour));
			}
			svg.append(String.format(Locale.ROOT,
					"<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
					points.toString().trim(), colour));
			double ly = TOP + 10 + i * 20;
			svg.append(line(WIDTH - RIGHT + 12, ly, WIDTH - RIGHT + 36, ly, colour));
			svg.append(text(WIDTH - RIGHT + 42, ly + 4, "start", "", s.name));
		}
		svg.append("</svg>\n");
		return svg.toString();
	}

	/**
	 * Render the chart into a file, creating its directory.
	 * @param file where to write the SVG document
	 * @throws IOException if the file cannot be written
	 */
	public void write(Path file) throws IOException {
		Path directory = file.toAbsolutePath().getParent();
		if (directory != null) {
			Files.createDirectories(directory);
		}
		Files.writeString(file, render(), StandardCharsets.UTF_8);
	}

	private Axis axis(boolean log, boolean horizontal) {
		double min = Double.POSITIVE_INFINITY;
		double max = Double.NEGATIVE_INFINITY;
		for (Series s : this.series) {
			for (double value : horizontal ? s.x : s.y) {
				if (log && value <= 0) {
					throw new IllegalArgumentException(
							"Series '" + s.name + "' has " + value + " on a log axis of '" + this.title + "'");
				}
				min = Math.min(min, value);
				max = Math.max(max, value);
			}
		}
		if (log) {
			return new Axis(true, Math.floor(Math.log10(min)),
					Math.max(Math.ceil(Math.log10(max)), Math.floor(Math.log10(min)) + 1));
		}
		double low = horizontal ? min : Math.min(0, min);
		double step = niceStep((max - low) / 5);
		double high = Math.max(Math.ceil(max / step) * step, low + step);
		return new Axis(false, Math.floor(low / step) * step, high, step);
	}

	private static double niceStep(double rough) {
		if (rough <= 0) {
			return 1;
		}
		double magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
		for (double nice : new double[] { 1, 2, 2.5, 5, 10 }) {
			if (nice * magnitude >= rough) {
				return nice * magnitude;
			}
		}
		return 10 * magnitude;
	}

	private static String format(double value) {
		if (value == Math.rint(value) && Math.abs(value) < 1e15) {
			return String.format(Locale.ROOT, "%,d", (long) value);
		}
		return String.format(Locale.ROOT, "%.3g", value);
	}

	private static String line(double x1, double y1, double x2, double y2, String colour) {
		return String.format(Locale.ROOT,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>%n", x1, y1,
				x2, y2, colour);
	}

	private static String text(double x, double y, String anchor, String attributes, String content) {
		return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>%s</text>%n", x, y, anchor,
				attributes, escape(content));
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

	private record Series(String name, double[] x, double[] y) {
	}

	/**
	 * An axis: linear from {@code low} to {@code high} with ticks every {@code step}, or
	 * logarithmic from 10^low to 10^high with a tick at each power of ten.
	 */
	private record Axis(boolean log, double low, double high, double step) {

		Axis(boolean log, double low, double high) {
			this(log, low, high, 1);
		}

		double position(double value) {
			double v = this.log ? Math.log10(value) : value;
			return (v - this.low) / (this.high - this.low);
		}

		List<Double> ticks() {
			List<Double> ticks = new ArrayList<>();
			for (double t = this.low; t <= this.high + this.step / 1000; t += this.step) {
				ticks.add(this.log ? Math.pow(10, Math.rint(t)) : t);
			}
			return ticks;
		}

	}

}
