package dev.workqueue.benchmarks.report;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** What {@link InterleavedForks} and {@link ReplaceResults} share: JMH JSON files in and out. */
final class JmhFiles {
  private JmhFiles() {}

  /**
   * The files {@code args[1..]} (the first argument is the output), read; with fewer than two
   * arguments, prints {@code usage} and exits.
   */
  static String[] inputs(String[] args, String usage) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: " + usage);
      System.exit(2);
    }
    String[] in = new String[args.length - 1];
    for (int i = 1; i < args.length; i++) {
      in[i - 1] = Files.readString(Path.of(args[i]), StandardCharsets.UTF_8);
    }
    return in;
  }

  /** What identifies a result: its benchmark and its params (in name order). */
  static String key(JsonObject result) {
    Map<String, String> params = new TreeMap<>();
    JsonObject p = result.getAsJsonObject("params");
    if (p != null) {
      p.entrySet().forEach(e -> params.put(e.getKey(), e.getValue().getAsString()));
    }
    return result.get("benchmark").getAsString() + " " + params;
  }

  /** {@code results} as JMH writes them (NaN and infinities as numbers JMH's readers accept). */
  static String json(JsonArray results) {
    return new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create()
        .toJson(results);
  }
}
