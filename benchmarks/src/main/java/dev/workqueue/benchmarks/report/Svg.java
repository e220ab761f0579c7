package dev.workqueue.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** The few SVG pieces the report's hand-written charts share. */
final class Svg {
  static final String[] COLORS = {"#1b7837", "#d95f02", "#7570b3", "#a6761d", "#e7298a"};

  private final StringBuilder s = new StringBuilder();

  /** A white canvas with a title and a smaller subtitle centred at the top. */
  Svg(int width, int height, String title, String subtitle) {
    s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
        .append("\" height=\"").append(height).append("\" font-family=\"sans-serif\" "
            + "font-size=\"12\">\n");
    s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    text(width / 2, 22, title, "middle", 15);
    text(width / 2, 38, subtitle, "middle", 11);
  }

  Svg text(double x, double y, String t, String anchor, int size) {
    String esc = t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    s.append(String.format(Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>\n",
        x, y, anchor, size, esc));
    return this;
  }

  Svg line(double x1, double y1, double x2, double y2, String stroke, double width) {
    s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
        + "stroke=\"%s\" stroke-width=\"%.1f\"/>\n", x1, y1, x2, y2, stroke, width));
    return this;
  }

  Svg rect(double x, double y, double w, double h, String fill) {
    s.append(String.format(Locale.ROOT,
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
        x, y, w, h, fill));
    return this;
  }

  /** A colour key: one swatch and label per entry, {@code perRow} entries to a row. */
  Svg legend(List<String> labels, double left, double top, int perRow, double step) {
    for (int i = 0; i < labels.size(); i++) {
      double x = left + (i % perRow) * step;
      double y = top + (i / perRow) * 20;
      rect(x, y, 12, 12, COLORS[i % COLORS.length]);
      text(x + 16, y + 10, labels.get(i).replace("`", ""), "start", 11);
    }
    return this;
  }

  @Override
  public String toString() {
    return s + "</svg>\n";
  }
}
