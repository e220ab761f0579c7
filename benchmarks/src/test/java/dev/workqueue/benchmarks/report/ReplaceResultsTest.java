package dev.workqueue.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Newer results replace the ones with the same benchmark and params, in place. */
class ReplaceResultsTest {
  private static String result(String bench, String params, double score) {
    return "{\"benchmark\":\"" + bench + "\",\"params\":{" + params + "},"
        + "\"primaryMetric\":{\"score\":" + score + "}}";
  }

  private static List<String> scores(String json) {
    List<String> out = new ArrayList<>();
    new Gson().fromJson(json, JsonArray.class).forEach(e -> out.add(e.getAsJsonObject()
        .get("benchmark").getAsString() + "=" + e.getAsJsonObject()
        .getAsJsonObject("primaryMetric").get("score").getAsDouble()));
    return out;
  }

  @Test
  void aResultWithTheSameBenchmarkAndParams_isReplacedInPlace_othersAreAdded() {
    String full = "[" + result("A", "\"queue\":\"x\",\"keys\":\"spread\"", 1) + ","
        + result("A", "\"queue\":\"x\",\"keys\":\"sequential\"", 2) + ","
        + result("B", "\"queue\":\"x\"", 3) + "]";
    String newer = "[" + result("C", "\"queue\":\"x\"", 4) + ","
        + result("A", "\"keys\":\"spread\",\"queue\":\"x\"", 5) + "]";

    assertEquals(List.of("A=5.0", "A=2.0", "B=3.0", "C=4.0"),
        scores(ReplaceResults.replace(full, newer)));
  }
}
