package dev.workqueue.benchmarks.report;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.util.ListStatistics;

/**
 * Joins JMH result files whose runs each measured some forks of the same benchmarks into one
 * file, as if one run had measured all the forks: the results with the same benchmark and params
 * become one, whose raw data are the forks of all of them (in the files' order) and whose score,
 * error and percentiles are computed again from those, as JMH computes them.
 *
 * <p><b>Why.</b> JMH runs all the forks of one contender before the next, and on the 2-vCPU
 * machines these run on the host's cross-core latency changes mode every few seconds to minutes
 * ({@code CrossCoreProbe}); so one contender may spend its forks in one mode and its baseline in
 * the other, and a bar judged within each mode is left undecided. {@code benchmarks/run.sh
 * interleaved} runs one fork of each contender in turn, round after round, and joins the rounds'
 * files with this, so each contender samples the same stretch of time.
 *
 * <p>Usage: {@code InterleavedForks OUT.json IN.json...}.
 */
public final class InterleavedForks {
  private static final double[] PERCENTILES = {
      0.0, 50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 100.0};
  private static final double CONFIDENCE = 0.999; // JMH's default for scoreError

  private InterleavedForks() {}

  public static void main(String[] args) throws IOException {
    String[] in = JmhFiles.inputs(args, "InterleavedForks OUT.json IN.json...");
    Files.writeString(Path.of(args[0]), join(in), StandardCharsets.UTF_8);
  }

  /** The results of {@code files} (JMH JSON arrays), joined by benchmark and params. */
  static String join(String... files) {
    Gson gson = new Gson();
    Map<String, JsonObject> joined = new LinkedHashMap<>();
    for (String file : files) {
      for (JsonElement e : gson.fromJson(file, JsonArray.class)) {
        JsonObject r = e.getAsJsonObject();
        String key = JmhFiles.key(r);
        JsonObject into = joined.get(key);
        if (into == null) {
          joined.put(key, r.deepCopy());
        } else {
          append(into.getAsJsonObject("primaryMetric"), r.getAsJsonObject("primaryMetric"));
          JsonObject from = r.getAsJsonObject("secondaryMetrics");
          JsonObject to = into.getAsJsonObject("secondaryMetrics");
          for (String name : from.keySet()) {
            if (to.has(name)) {
              append(to.getAsJsonObject(name), from.getAsJsonObject(name));
            } else {
              to.add(name, from.get(name).deepCopy());
            }
          }
        }
      }
    }
    JsonArray out = new JsonArray();
    for (JsonObject r : joined.values()) {
      JsonArray primaryForks = r.getAsJsonObject("primaryMetric").getAsJsonArray("rawData");
      r.addProperty("forks", primaryForks.size());
      restate(r.getAsJsonObject("primaryMetric"));
      JsonObject secondary = r.getAsJsonObject("secondaryMetrics");
      for (String name : secondary.keySet()) {
        restate(secondary.getAsJsonObject(name));
      }
      out.add(r);
    }
    return JmhFiles.json(out);
  }

  private static void append(JsonObject into, JsonObject from) {
    JsonArray forks = into.getAsJsonArray("rawData");
    for (JsonElement fork : from.getAsJsonArray("rawData")) {
      forks.add(fork.deepCopy());
    }
  }

  /** Score, error, confidence interval and percentiles from the metric's raw data. */
  private static void restate(JsonObject metric) {
    ListStatistics s = new ListStatistics();
    for (JsonElement fork : metric.getAsJsonArray("rawData")) {
      for (JsonElement v : fork.getAsJsonArray()) {
        s.addValue(v.getAsDouble());
      }
    }
    metric.addProperty("score", s.getMean());
    double error = s.getN() > 2 ? s.getMeanErrorAt(CONFIDENCE) : Double.NaN;
    metric.add("scoreError", Double.isNaN(error) ? new JsonPrimitive("NaN")
        : new JsonPrimitive(error));
    JsonArray interval = new JsonArray();
    interval.add(Double.isNaN(error) ? s.getMean() : s.getMean() - error);
    interval.add(Double.isNaN(error) ? s.getMean() : s.getMean() + error);
    metric.add("scoreConfidence", interval);
    JsonObject percentiles = new JsonObject();
    for (double p : PERCENTILES) {
      percentiles.addProperty(Double.toString(p), s.getPercentile(p));
    }
    metric.add("scorePercentiles", percentiles);
  }
}
