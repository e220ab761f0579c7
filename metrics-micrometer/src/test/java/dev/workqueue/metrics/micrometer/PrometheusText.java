package dev.workqueue.metrics.micrometer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape in the Prometheus text format (0.0.4), parsed: the family types from the
 * {@code # TYPE} lines and every sample with its labels. Just enough of the format for the
 * registry's own output (label values without escaped quotes).
 */
final class PrometheusText {
  private static final Pattern TYPE = Pattern.compile("# TYPE (\\S+) (\\S+)");
  private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"");

  record Sample(String name, Map<String, String> labels, double value) {}

  final Map<String, String> types = new LinkedHashMap<>();
  final List<Sample> samples = new ArrayList<>();

  PrometheusText(String text) {
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      Matcher t = TYPE.matcher(line);
      if (t.matches()) {
        types.put(t.group(1), t.group(2));
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      Matcher s = SAMPLE.matcher(line);
      if (!s.matches()) {
        throw new IllegalArgumentException("not a sample line: " + line);
      }
      Map<String, String> labels = new TreeMap<>();
      if (s.group(2) != null) {
        Matcher l = LABEL.matcher(s.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      samples.add(new Sample(s.group(1), labels, Double.parseDouble(s.group(3))));
    }
  }

  /**
   * The value of the one sample {@code name} whose labels include the given pairs
   * ({@code "name", "jobs", "le", "0.1"}).
   *
   * @throws AssertionError if no sample or more than one matches
   */
  double value(String name, String... labelPairs) {
    List<Sample> found = find(name, labelPairs);
    if (found.size() != 1) {
      throw new AssertionError("expected one sample " + name + " " + List.of(labelPairs)
          + ", found " + found);
    }
    return found.get(0).value();
  }

  /** The samples {@code name} whose labels include the given pairs. */
  List<Sample> find(String name, String... labelPairs) {
    List<Sample> found = new ArrayList<>();
    for (Sample s : samples) {
      if (s.name().equals(name) && includes(s.labels(), labelPairs)) {
        found.add(s);
      }
    }
    return found;
  }

  private static boolean includes(Map<String, String> labels, String... pairs) {
    for (int i = 0; i < pairs.length; i += 2) {
      if (!pairs[i + 1].equals(labels.get(pairs[i]))) {
        return false;
      }
    }
    return true;
  }
}
