package dev.workqueue.benchmarks.report;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Puts the results of newer JMH runs into a report's JSON: a result with the same benchmark and
 * params as one already there replaces it (in its place), others are added at the end. This is
 * how a re-run of some benchmarks, plain or {@code interleaved}, reaches {@code
 * results/jmh-full.json}, from which {@code ResultsReport} then writes RESULTS.md (whose note row
 * says which run each row comes from).
 *
 * <p>Usage: {@code ReplaceResults FULL.json NEW.json...} (FULL.json is rewritten).
 */
public final class ReplaceResults {
  private ReplaceResults() {}

  public static void main(String[] args) throws IOException {
    String[] news = JmhFiles.inputs(args, "ReplaceResults FULL.json NEW.json...");
    Path full = Path.of(args[0]);
    Files.writeString(full, replace(Files.readString(full, StandardCharsets.UTF_8), news),
        StandardCharsets.UTF_8);
  }

  /** {@code full} with the results of {@code news} put in, later files winning. */
  static String replace(String full, String... news) {
    Gson gson = new Gson();
    Map<String, JsonElement> results = new LinkedHashMap<>();
    for (String file : Stream.concat(Stream.of(full), Stream.of(news)).toList()) {
      for (JsonElement e : gson.fromJson(file, JsonArray.class)) {
        JsonObject r = e.getAsJsonObject();
        results.put(JmhFiles.key(r), r);
      }
    }
    JsonArray out = new JsonArray();
    results.values().forEach(out::add);
    return JmhFiles.json(out);
  }
}
