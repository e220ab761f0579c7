package dev.workqueue.benchmarks.report;

import dev.workqueue.benchmarks.report.JmhResults.Figure;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A hand-written SVG of delayed-item lateness: per scenario, a bar per queue up to its p50 and a
 * whisker from p50 to p99, on a log scale of microseconds (values below 1 µs are drawn at 1 µs
 * and labelled with their value).
 */
final class LatenessChart {
  /** Label, benchmark, {@code pending} param (null: the benchmark has none). */
  static final String[][] SCENARIOS = {
      {"sparse", "LatenessBenchmark.sparse", "0"},
      {"sparse, 1 M pending", "LatenessBenchmark.sparse", "1000000"},
      {"100 k/s", "LatenessBenchmark.rate100k", "0"},
      {"100 k/s, 1 M pending", "LatenessBenchmark.rate100k", "1000000"},
      {"saturated (1 M/s)", "SaturatedLatenessBenchmark.saturated", null}};

  private LatenessChart() {}

  static String svg(JmhResults results, String profile) {
    List<String[]> queues = ResultsReport.DELAYING;
    double max = 1;
    for (String[] sc : SCENARIOS) {
      for (String[] q : queues) {
        Optional<Figure> p99 = ResultsReport.latenessFigure(results, sc[1], "p99_us", q[0], sc[2]);
        if (p99.isPresent()) {
          max = Math.max(max, p99.get().median());
        }
      }
    }
    int decades = Math.max(1, (int) Math.ceil(Math.log10(max)));
    int width = 860;
    int left = 70;
    int right = 20;
    int plotTop = 50;
    int plotBottom = 320;
    double plotH = plotBottom - plotTop;
    Svg s = new Svg(width, 420, "Lateness of delayed items (delivery − due, µs, log scale): "
        + "bar p50, whisker to p99", profile + " profile: medians over iterations; see "
        + "RESULTS.md for the run's settings");
    for (int d = 0; d <= decades; d++) {
      double y = plotBottom - plotH * d / decades;
      s.line(left, y, width - right, y, "#ddd", 1)
          .text(left - 6, y + 4, label(Math.pow(10, d)), "end", 11);
    }
    int groupW = (width - left - right) / SCENARIOS.length;
    int barW = Math.min(40, (groupW - 20) / queues.size());
    for (int g = 0; g < SCENARIOS.length; g++) {
      String[] sc = SCENARIOS[g];
      int x0 = left + g * groupW + (groupW - barW * queues.size()) / 2;
      for (int q = 0; q < queues.size(); q++) {
        Optional<Figure> p50 = ResultsReport.latenessFigure(results, sc[1], "p50_us",
            queues.get(q)[0], sc[2]);
        Optional<Figure> p99 = ResultsReport.latenessFigure(results, sc[1], "p99_us",
            queues.get(q)[0], sc[2]);
        double x = x0 + q * barW;
        double mid = x + barW / 2.0;
        if (p50.isEmpty()) {
          s.text(mid, plotBottom - 4, "–", "middle", 11);
          continue;
        }
        double y50 = y(p50.get().median(), decades, plotBottom, plotH);
        s.rect(x + 3, y50, barW - 6, plotBottom - y50, Svg.COLORS[q % Svg.COLORS.length]);
        double top = y50;
        if (p99.isPresent()) {
          double y99 = y(p99.get().median(), decades, plotBottom, plotH);
          s.line(mid, y50, mid, y99, "#333", 1.5).line(mid - 5, y99, mid + 5, y99, "#333", 1.5);
          top = Math.min(top, y99);
        }
        s.text(mid, top - 4, label(p50.get().median()), "middle", 10);
      }
      s.text(left + g * groupW + groupW / 2.0, plotBottom + 18, sc[0], "middle", 12);
    }
    s.line(left, plotBottom, width - right, plotBottom, "#333", 1);
    s.legend(queues.stream().map(q -> q[1]).toList(), left, plotBottom + 40, 3, 250);
    return s.toString();
  }

  /** The y of {@code micros} on a log axis from 1 µs (bottom) to 10^decades µs (top). */
  private static double y(double micros, int decades, double bottom, double height) {
    double v = Math.log10(Math.max(1, micros));
    return bottom - height * Math.min(v, decades) / decades;
  }

  private static String label(double micros) {
    if (micros >= 1000) {
      return String.format(Locale.ROOT, "%.3g ms", micros / 1000);
    }
    return String.format(Locale.ROOT, micros >= 10 ? "%.0f µs" : "%.1f µs", micros);
  }
}
