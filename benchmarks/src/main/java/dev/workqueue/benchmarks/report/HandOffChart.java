package dev.workqueue.benchmarks.report;

import dev.workqueue.benchmarks.report.JmhResults.Figure;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** A hand-written SVG grouped bar chart of hand-off throughput (consumer rate, M ops/s). */
final class HandOffChart {
  private static final String[][] GROUPS = {
      {"1 producer + 1 consumer", "HandOffBenchmark.p1c1", "p1c1_consume"},
      {"2 producers + 2 consumers", "HandOffBenchmark.p2c2", "p2c2_consume"}};

  private HandOffChart() {}

  static String svg(JmhResults results, String profile) {
    List<String[]> queues = ResultsReport.QUEUES;
    double max = 0;
    for (String[] g : GROUPS) {
      for (String[] q : queues) {
        Optional<Figure> f = results.find(g[1], g[2], q[0]);
        if (f.isPresent()) {
          max = Math.max(max, f.get().median() / 1e6);
        }
      }
    }
    double top = max <= 0 ? 1 : Math.ceil(max / 2) * 2; // axis to an even number of M/s
    int width = 720;
    int left = 60;
    int right = 20;
    int plotTop = 50;
    int plotBottom = 300;
    double plotH = plotBottom - plotTop;
    Svg s = new Svg(width, 400, "Work-queue hand-off throughput, distinct keys (consumer "
        + "rate, M ops/s; median)", profile + " profile: see RESULTS.md for the run's settings");
    for (int t = 0; t <= 4; t++) {
      double y = plotBottom - plotH * t / 4;
      s.line(left, y, width - right, y, "#ddd", 1)
          .text(left - 6, y + 4, String.format(Locale.ROOT, "%.1f", top * t / 4), "end", 11);
    }
    int groupW = (width - left - right) / GROUPS.length;
    int barW = Math.min(48, (groupW - 40) / queues.size());
    for (int g = 0; g < GROUPS.length; g++) {
      int x0 = left + g * groupW + (groupW - barW * queues.size()) / 2;
      for (int q = 0; q < queues.size(); q++) {
        Optional<Figure> f = results.find(GROUPS[g][1], GROUPS[g][2], queues.get(q)[0]);
        int x = x0 + q * barW;
        if (f.isEmpty()) {
          s.text(x + barW / 2.0, plotBottom - 4, "–", "middle", 11);
          continue;
        }
        double v = f.get().median() / 1e6;
        double h = plotH * v / top;
        s.rect(x + 3, plotBottom - h, barW - 6, h, Svg.COLORS[q % Svg.COLORS.length])
            .text(x + barW / 2.0, plotBottom - h - 4, String.format(Locale.ROOT, "%.2f", v),
                "middle", 11);
      }
      s.text(left + g * groupW + groupW / 2.0, plotBottom + 18, GROUPS[g][0], "middle", 12);
    }
    s.line(left, plotBottom, width - right, plotBottom, "#333", 1);
    s.legend(queues.stream().map(q -> q[1]).toList(), left, plotBottom + 40, 3, 220);
    return s.toString();
  }
}
