package dev.workqueue.benchmarks.report;

import dev.workqueue.benchmarks.report.JmhResults.Figure;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** A hand-written SVG grouped bar chart of hand-off throughput (consumer rate, M ops/s). */
final class HandOffChart {
  private static final String[] COLORS = {"#1b7837", "#d95f02", "#7570b3", "#a6761d", "#e7298a"};
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
    int height = 400;
    int left = 60;
    int right = 20;
    int plotTop = 50;
    int plotBottom = 300;
    double plotH = plotBottom - plotTop;
    StringBuilder s = new StringBuilder();
    s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
        .append("\" height=\"").append(height).append("\" font-family=\"sans-serif\" "
            + "font-size=\"12\">\n");
    s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    s.append(text(width / 2, 22, "Work-queue hand-off throughput, distinct keys (consumer "
        + "rate, M ops/s; median)", "middle", 15));
    s.append(text(width / 2, 38, profile + " profile: see RESULTS.md for the run's settings",
        "middle", 11));
    for (int t = 0; t <= 4; t++) {
      double v = top * t / 4;
      double y = plotBottom - plotH * t / 4;
      s.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
          left, y, width - right, y));
      s.append(text(left - 6, (int) y + 4, String.format(Locale.ROOT, "%.1f", v), "end", 11));
    }
    int groupW = (width - left - right) / GROUPS.length;
    int barW = Math.min(48, (groupW - 40) / queues.size());
    for (int g = 0; g < GROUPS.length; g++) {
      int x0 = left + g * groupW + (groupW - barW * queues.size()) / 2;
      for (int q = 0; q < queues.size(); q++) {
        Optional<Figure> f = results.find(GROUPS[g][1], GROUPS[g][2], queues.get(q)[0]);
        int x = x0 + q * barW;
        if (f.isEmpty()) {
          s.append(text(x + barW / 2, plotBottom - 4, "–", "middle", 11));
          continue;
        }
        double v = f.get().median() / 1e6;
        double h = plotH * v / top;
        s.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n",
            x + 3, plotBottom - h, barW - 6, h, COLORS[q % COLORS.length]));
        s.append(text(x + barW / 2, (int) (plotBottom - h) - 4,
            String.format(Locale.ROOT, "%.2f", v), "middle", 11));
      }
      s.append(text(left + g * groupW + groupW / 2, plotBottom + 18, GROUPS[g][0], "middle",
          12));
    }
    s.append(String.format(Locale.ROOT,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
        left, plotBottom, width - right, plotBottom));
    int lx = left;
    for (int q = 0; q < queues.size(); q++) {
      String label = queues.get(q)[1].replace("`", "");
      s.append(String.format(Locale.ROOT,
          "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
          lx, plotBottom + 40 + (q / 3) * 20, COLORS[q % COLORS.length]));
      s.append(text(lx + 16, plotBottom + 50 + (q / 3) * 20, label, "start", 11));
      lx = (q % 3 == 2) ? left : lx + 220;
    }
    s.append("</svg>\n");
    return s.toString();
  }

  private static String text(int x, int y, String t, String anchor, int size) {
    String esc = t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    return String.format(Locale.ROOT,
        "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" font-size=\"%d\">%s</text>\n",
        x, y, anchor, size, esc);
  }
}
