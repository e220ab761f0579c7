package dev.workqueue.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The figures of one JMH JSON result file, looked up by benchmark, metric and parameter. Each
 * figure is the <em>median</em> over all measured iterations of all forks (PERF.md compares
 * medians), with JMH's 99.9% error of the mean and the spread (min and max over those
 * iterations) beside it.
 */
final class JmhResults {

  /** One figure: {@code bench} is "Class.method", {@code metric} "" for the primary one. */
  record Figure(String bench, String metric, Map<String, Object> params, double median,
      double error, String unit, int samples, double min, double max) {

    /** Whether this figure's spread over iterations overlaps {@code other}'s. */
    boolean overlaps(Figure other) {
      return min <= other.max && other.min <= max;
    }
  }

  /** The run's settings and JVM, from the first result. */
  record RunInfo(String jdk, String vm, String jmh, int forks, int warmupIterations,
      String warmupTime, int measurementIterations, String measurementTime) {}

  final List<Figure> figures = new ArrayList<>();
  final RunInfo run;

  @SuppressWarnings("unchecked")
  JmhResults(String json) {
    List<Object> results = (List<Object>) Json.parse(json);
    RunInfo info = null;
    for (Object o : results) {
      Map<String, Object> r = (Map<String, Object>) o;
      String full = (String) r.get("benchmark");
      String[] parts = full.split("\\.");
      String bench = parts[parts.length - 2] + "." + parts[parts.length - 1];
      Map<String, Object> params = (Map<String, Object>) r.getOrDefault("params", Map.of());
      figures.add(figure(bench, "", params, (Map<String, Object>) r.get("primaryMetric")));
      Map<String, Object> secondary =
          (Map<String, Object>) r.getOrDefault("secondaryMetrics", Map.of());
      for (Map.Entry<String, Object> e : secondary.entrySet()) {
        String name = e.getKey().replace("\u00b7", ""); // JMH prefixes profiler metrics with '·'
        figures.add(figure(bench, name, params, (Map<String, Object>) e.getValue()));
      }
      if (info == null) {
        info = new RunInfo(
            str(r.get("jdkVersion")), str(r.get("vmName")) + " " + str(r.get("vmVersion")),
            str(r.get("jmhVersion")), num(r.get("forks")), num(r.get("warmupIterations")),
            str(r.get("warmupTime")), num(r.get("measurementIterations")),
            str(r.get("measurementTime")));
      }
    }
    run = info;
  }

  static JmhResults read(Path file) throws IOException {
    return new JmhResults(Files.readString(file));
  }

  @SuppressWarnings("unchecked")
  private static Figure figure(String bench, String metric, Map<String, Object> params,
      Map<String, Object> m) {
    Map<String, Object> pct = (Map<String, Object>) m.getOrDefault("scorePercentiles", Map.of());
    Object median = pct.containsKey("50.0") ? pct.get("50.0") : m.get("score");
    List<Object> raw = (List<Object>) m.getOrDefault("rawData", List.of());
    int samples = 0;
    double min = Double.NaN;
    double max = Double.NaN;
    for (Object fork : raw) {
      for (Object v : (List<Object>) fork) {
        double x = dbl(v);
        samples++;
        if (!Double.isNaN(x)) {
          min = Double.isNaN(min) ? x : Math.min(min, x);
          max = Double.isNaN(max) ? x : Math.max(max, x);
        }
      }
    }
    return new Figure(bench, metric, params, dbl(median), dbl(m.get("scoreError")),
        str(m.get("scoreUnit")), samples, min, max);
  }

  /**
   * The figure of {@code bench} ("Class.method"), {@code metric} ("" for primary; a suffix
   * such as "gc.alloc.rate.norm" matches), whose {@code queue} param (if any) is {@code queue}
   * (null: any).
   */
  Optional<Figure> find(String bench, String metric, String queue) {
    for (Figure f : figures) {
      if (f.bench.equals(bench)
          && (metric.isEmpty() ? f.metric.isEmpty() : f.metric.endsWith(metric))
          && (queue == null || queue.equals(f.params.get("queue")))) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** Like {@link #find} but matching any parameter named {@code param} with value {@code v}. */
  Optional<Figure> findParam(String bench, String metric, String param, String v) {
    for (Figure f : figures) {
      if (f.bench.equals(bench)
          && (metric.isEmpty() ? f.metric.isEmpty() : f.metric.endsWith(metric))
          && v.equals(f.params.get(param))) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /**
   * The figure of {@code bench} and {@code metric} (as in {@link #find}) whose params have the
   * given values: {@code params} is name, value, name, value...
   */
  Optional<Figure> where(String bench, String metric, String... params) {
    search:
    for (Figure f : figures) {
      if (!f.bench.equals(bench)
          || !(metric.isEmpty() ? f.metric.isEmpty() : f.metric.endsWith(metric))) {
        continue;
      }
      for (int i = 0; i < params.length; i += 2) {
        if (!params[i + 1].equals(f.params.get(params[i]))) {
          continue search;
        }
      }
      return Optional.of(f);
    }
    return Optional.empty();
  }

  private static String str(Object o) {
    return o == null ? "?" : o.toString();
  }

  private static int num(Object o) {
    return o instanceof Double ? ((Double) o).intValue() : 0;
  }

  private static double dbl(Object o) {
    return o instanceof Double ? (Double) o : Double.NaN; // "NaN" arrives as a string
  }
}
