package dev.workqueue.benchmarks.report;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The figures of one JMH JSON result file, read by Gson. Each figure is the <em>median</em> over
 * all measured iterations of all forks (PERF.md compares medians), with JMH's 99.9% error of the
 * mean and the spread (min and max over those iterations).
 *
 * <p><b>Host modes.</b> A result measured with {@code HostModeProfiler} also yields, for each of
 * its metrics, the figure over its <em>near</em> iterations (metric name + {@value #NEAR}: the
 * probe saw only near bursts) and over its <em>far</em> ones ({@value #FAR}); an iteration that
 * saw both, or neither, is in neither.
 */
final class JmhResults {
  /** What the report reads of one result in the file. */
  record Result(String benchmark, Map<String, String> params, Metric primaryMetric,
      Map<String, Metric> secondaryMetrics) {}

  /** One metric; JMH writes a NaN error as the string "NaN", which Gson reads as a double. */
  record Metric(double score, double scoreError, String scoreUnit,
      Map<String, Double> scorePercentiles, List<List<Double>> rawData) {}

  /** One figure: {@code bench} is "Class.method", {@code metric} "" for the primary one. */
  record Figure(String bench, String metric, Map<String, String> params, double median,
      double error, double min, double max, String unit, int iterations) {
    boolean overlaps(Figure other) {
      return min <= other.max && other.min <= max;
    }
  }

  static final String NEAR = "@near";
  static final String FAR = "@far";
  private static final String NEAR_BURSTS = "hostmode.near";
  private static final String FAR_BURSTS = "hostmode.far";

  /** The run's settings and JVM: the first result's plain fields ("forks", "jdkVersion"...). */
  final Map<String, String> run = new HashMap<>();
  private final List<Figure> figures = new ArrayList<>();

  JmhResults(String json) {
    Gson gson = new Gson();
    JsonArray all = gson.fromJson(json, JsonArray.class);
    if (!all.isEmpty()) {
      all.get(0).getAsJsonObject().entrySet().stream().filter(e -> e.getValue().isJsonPrimitive())
          .forEach(e -> run.put(e.getKey(), e.getValue().getAsString()));
    }
    for (JsonElement e : all) {
      Result r = gson.fromJson(e, Result.class);
      String[] name = r.benchmark().split("\\.");
      String bench = name[name.length - 2] + "." + name[name.length - 1];
      Map<String, String> params = r.params() == null ? Map.of() : r.params();
      figures.add(figure(bench, "", params, r.primaryMetric()));
      Map<String, Metric> secondary = new LinkedHashMap<>(); // the file's order, for fig()
      if (r.secondaryMetrics() != null) { // older JMH prefixes profiler metrics with '·'
        r.secondaryMetrics().forEach((k, m) -> secondary.put(k.replace("\u00b7", ""), m));
      }
      secondary.forEach((k, m) -> figures.add(figure(bench, k, params, m)));
      Metric near = secondary.get(NEAR_BURSTS);
      Metric far = secondary.get(FAR_BURSTS);
      if (near != null && far != null) {
        Map<String, Metric> metrics = new LinkedHashMap<>();
        metrics.put("", r.primaryMetric());
        metrics.putAll(secondary);
        metrics.forEach((k, m) -> {
          if (!k.startsWith("hostmode.")) {
            inMode(m, near, far).ifPresent(x -> figures.add(figure(bench, k + NEAR, params, x)));
            inMode(m, far, near).ifPresent(x -> figures.add(figure(bench, k + FAR, params, x)));
          }
        });
      }
    }
  }

  /**
   * {@code m} over the iterations in which {@code mode} counted bursts and {@code other} none;
   * empty if {@code m} has no per-iteration data of the same shape, or no such iteration.
   */
  private static Optional<Metric> inMode(Metric m, Metric mode, Metric other) {
    List<List<Double>> raw = m.rawData();
    if (raw == null || mode.rawData() == null || other.rawData() == null
        || raw.size() != mode.rawData().size() || raw.size() != other.rawData().size()) {
      return Optional.empty();
    }
    List<List<Double>> kept = new ArrayList<>();
    for (int fork = 0; fork < raw.size(); fork++) {
      List<Double> values = raw.get(fork);
      List<Double> in = mode.rawData().get(fork);
      List<Double> out = other.rawData().get(fork);
      if (values.size() != in.size() || values.size() != out.size()) {
        return Optional.empty();
      }
      List<Double> forkKept = new ArrayList<>();
      for (int i = 0; i < values.size(); i++) {
        if (in.get(i) > 0 && out.get(i) == 0 && !Double.isNaN(values.get(i))) {
          forkKept.add(values.get(i));
        }
      }
      kept.add(forkKept);
    }
    if (kept.stream().allMatch(List::isEmpty)) {
      return Optional.empty();
    }
    List<Double> sorted = kept.stream().flatMap(List::stream).sorted().toList();
    int n = sorted.size();
    double median =
        n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return Optional.of(
        new Metric(median, Double.NaN, m.scoreUnit(), Map.of("50.0", median), kept));
  }

  static JmhResults read(Path file) throws IOException {
    return new JmhResults(Files.readString(file));
  }

  private static Figure figure(String bench, String metric, Map<String, String> params,
      Metric m) {
    Double p50 = m.scorePercentiles() == null ? null : m.scorePercentiles().get("50.0");
    DoubleSummaryStatistics raw = (m.rawData() == null ? List.<List<Double>>of() : m.rawData())
        .stream().flatMap(List::stream).mapToDouble(Double::doubleValue)
        .filter(x -> !Double.isNaN(x)).summaryStatistics();
    boolean none = raw.getCount() == 0;
    return new Figure(bench, metric, params, p50 == null ? m.score() : p50, m.scoreError(),
        none ? Double.NaN : raw.getMin(), none ? Double.NaN : raw.getMax(),
        m.scoreUnit() == null ? "" : m.scoreUnit(), (int) raw.getCount());
  }

  /**
   * The figure {@code ref} names: "Class.method[:metric] [param=value]...". No metric: the
   * primary one; a metric matches any that ends so ("gc.alloc.rate.norm"); params not named may
   * have any value.
   */
  Optional<Figure> fig(String ref) {
    String[] words = ref.split(" ");
    String[] name = (words[0] + ":").split(":");
    String metric = name.length > 1 ? name[1] : "";
    return figures.stream().filter(f -> f.bench.equals(name[0])
        && (metric.isEmpty() ? f.metric.isEmpty() : f.metric.endsWith(metric))
        && List.of(words).subList(1, words.length).stream().allMatch(p -> {
          String[] kv = p.split("=", 2);
          return kv[1].equals(f.params.get(kv[0]));
        })).findFirst();
  }

  /** {@code a ÷ b} of the medians of two figures, if both were measured. */
  Optional<Double> ratio(String a, String b) {
    return fig(a).flatMap(x -> fig(b).map(y -> x.median / y.median));
  }
}
