package dev.workqueue.kubernetes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names and label names that one PromQL query (as dashboards write them) asks for:
 * the selectors' metrics and matchers, the {@code by}/{@code without} groupings, Grafana's
 * {@code label_values(metric, label)}. Not a PromQL parser: enough of the language to check a
 * dashboard against a scrape, and strict where it reads (a name it cannot place is a metric).
 */
record PromQuery(String query, Map<String, Set<String>> selected, Set<String> grouped) {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*(" + NAME + ")\\s*,\\s*(\\w+)\\s*\\)");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
  private static final Pattern SELECTOR = Pattern.compile("(" + NAME + ")\\s*\\{([^}]*)\\}");
  private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(?:=~|!~|!=|=)");
  /** A name not followed by a parenthesis (a function's): possessive, so it cannot back off. */
  private static final Pattern BARE =
      Pattern.compile("(?<![\\w.])([a-zA-Z_:][a-zA-Z0-9_:]*+)(?!\\s*\\()");
  private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "offset", "bool",
      "on", "ignoring", "group_left", "group_right");

  static PromQuery parse(String query) {
    Map<String, Set<String>> selected = new LinkedHashMap<>();
    Set<String> grouped = new LinkedHashSet<>();
    String rest = query.replaceAll("\"[^\"]*\"", "\"\"").replaceAll("\\[[^\\]]*\\]", "");
    Matcher m = LABEL_VALUES.matcher(rest);
    while (m.find()) {
      selected.computeIfAbsent(m.group(1), k -> new LinkedHashSet<>()).add(m.group(2));
    }
    rest = m.replaceAll("");
    m = GROUPING.matcher(rest);
    while (m.find()) {
      for (String label : m.group(1).split(",")) {
        if (!label.isBlank()) {
          grouped.add(label.strip());
        }
      }
    }
    rest = m.replaceAll("");
    m = SELECTOR.matcher(rest);
    while (m.find()) {
      Set<String> labels = selected.computeIfAbsent(m.group(1), k -> new LinkedHashSet<>());
      Matcher l = MATCHER.matcher(m.group(2));
      while (l.find()) {
        labels.add(l.group(1));
      }
    }
    m = BARE.matcher(m.replaceAll("$1"));
    while (m.find()) {
      if (!KEYWORDS.contains(m.group(1))) {
        selected.computeIfAbsent(m.group(1), k -> new LinkedHashSet<>());
      }
    }
    return new PromQuery(query, selected, grouped);
  }

  Set<String> metrics() {
    return selected.keySet();
  }

  /**
   * What this query asks for that {@code scraped} (each sample name and its labels) lacks: a
   * metric, a label a selector matches on, a label it groups by that none of its metrics has.
   * {@code serverLabels} are the ones the Prometheus server adds, never in the text.
   */
  List<String> problemsAgainst(Map<String, Set<String>> scraped, Set<String> serverLabels) {
    List<String> problems = new ArrayList<>();
    Set<String> anyMetricsLabels = new LinkedHashSet<>(serverLabels);
    selected.forEach((metric, labels) -> {
      Set<String> has = scraped.get(metric);
      if (has == null) {
        problems.add(metric + " is not published (in: " + query + ")");
        return;
      }
      anyMetricsLabels.addAll(has);
      for (String label : labels) {
        if (!has.contains(label) && !serverLabels.contains(label)) {
          problems.add(metric + " has no label " + label + " (in: " + query + ")");
        }
      }
    });
    for (String label : grouped) {
      if (!anyMetricsLabels.contains(label)) {
        problems.add("no metric has the label " + label + " (in: " + query + ")");
      }
    }
    return problems;
  }
}
