package dev.workqueue.benchmarks.report;

import static java.util.Locale.ROOT;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.general.DatasetUtils;

/**
 * The report's two charts, laid out by JFreeChart and written as PNG by JFreeChart: hand-off
 * throughput, and delayed-item lateness (p50 bars, lighter up to p99, on a log scale).
 */
final class Charts {
  private static final int[] COLORS = {0x1b7837, 0xd95f02, 0x7570b3, 0xa6761d, 0xe7298a};
  private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 15);
  private static final Font SMALL = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

  private Charts() {}

  static void write(JmhResults r, String profile, Path handOff, Path lateness)
      throws IOException {
    DefaultCategoryDataset rate = new DefaultCategoryDataset();
    for (String[] g : new String[][] {
        {"1 producer + 1 consumer", "p1c1"}, {"2 producers + 2 consumers", "p2c2"}}) {
      for (String[] q : ResultsReport.QUEUES) {
        r.fig(ResultsReport.handOff(g[1]) + " queue=" + q[0])
            .ifPresent(f -> rate.addValue(f.median() / 1e6, plain(q[1]), g[0]));
      }
    }
    CategoryPlot plot = plot(rate, bars(1, "0.00"), new NumberAxis("M ops/s"));
    png(chart("Work-queue hand-off throughput, distinct keys (consumer rate, M ops/s; median)",
        profile + " profile: see RESULTS.md for the run's settings", plot), 720, 400, handOff);

    DefaultCategoryDataset p50 = new DefaultCategoryDataset();
    DefaultCategoryDataset p99 = new DefaultCategoryDataset();
    for (String[] sc : ResultsReport.LATENESS) {
      for (String[] q : ResultsReport.DELAYING) {
        String ref = sc[2] + ":%s queue=" + q[0] + sc[3];
        r.fig(ref.formatted("p50_us")).ifPresent(f -> p50.addValue(f.median(), plain(q[1]), sc[1]));
        r.fig(ref.formatted("p99_us")).ifPresent(f -> p99.addValue(f.median(), plain(q[1]), sc[1]));
      }
    }
    Number max = DatasetUtils.findMaximumRangeValue(p99); // up to the next power of 10 µs
    LogarithmicAxis axis = new LogarithmicAxis("µs late (log scale)"); // labels as plain text
    axis.setRange(1, Math.pow(10, Math.max(1, Math.ceil(Math.log10(
        max == null ? 1 : max.doubleValue())))));
    axis.setNumberFormatOverride(new DecimalFormat("0", DecimalFormatSymbols.getInstance(ROOT)));
    BarRenderer upTo99 = bars(0.35, null);
    upTo99.setDefaultSeriesVisibleInLegend(false);
    plot = plot(p99, upTo99, axis);
    plot.setDataset(1, p50);
    plot.setRenderer(1, bars(1, "0.#"));
    plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD); // p50 in front of p99
    png(chart("Lateness of delayed items (delivery − due, µs, log scale): bar p50, lighter "
        + "to p99", profile + " profile: medians over iterations; see RESULTS.md for the run's "
        + "settings", plot), 860, 420, lateness);
  }

  /** Bars in the queues' colours ({@code alpha} of them), labelled in {@code format} if any. */
  private static BarRenderer bars(double alpha, String format) {
    BarRenderer bars = new BarRenderer();
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    for (int i = 0; i < COLORS.length; i++) {
      bars.setSeriesPaint(i, new Color(COLORS[i] | (int) (255 * alpha) << 24, true));
    }
    if (format != null) {
      bars.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}",
          new DecimalFormat(format, DecimalFormatSymbols.getInstance(ROOT))));
      bars.setDefaultItemLabelsVisible(true);
      bars.setDefaultItemLabelFont(SMALL);
    }
    return bars;
  }

  private static CategoryPlot plot(DefaultCategoryDataset data, BarRenderer bars,
      ValueAxis axis) {
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(), axis, bars);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlineStroke(new BasicStroke(0.5f));
    return plot;
  }

  private static JFreeChart chart(String title, String subtitle, CategoryPlot plot) {
    JFreeChart chart = new JFreeChart(title, TITLE, plot, true);
    chart.addSubtitle(new TextTitle(subtitle, SMALL));
    chart.setBackgroundPaint(Color.WHITE);
    return chart;
  }

  /** Writes the chart as a PNG (JFreeChart's own encoder: no SVG library, no GPL). */
  private static void png(JFreeChart chart, int width, int height, Path file)
      throws IOException {
    ChartUtils.saveChartAsPNG(file.toFile(), chart, width, height);
  }

  private static String plain(String markdown) {
    return markdown.replace("`", "");
  }
}
