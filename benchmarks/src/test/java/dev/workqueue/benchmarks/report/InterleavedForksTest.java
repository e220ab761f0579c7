package dev.workqueue.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import org.junit.jupiter.api.Test;

/** Forks measured by separate JMH runs are joined into one result per benchmark and params. */
class InterleavedForksTest {
  private static String result(String queue, String primaryForks, String secondaryForks) {
    return "{\"benchmark\":\"dev.workqueue.benchmarks.HandOffBenchmark.p1c1\",\"mode\":\"thrpt\","
        + "\"forks\":1,\"params\":{\"queue\":\"" + queue + "\"},"
        + "\"primaryMetric\":{\"score\":0,\"scoreError\":\"NaN\",\"scorePercentiles\":{},"
        + "\"scoreUnit\":\"ops/s\",\"rawData\":" + primaryForks + "},"
        + "\"secondaryMetrics\":{\"p1c1_consume\":{\"score\":0,\"scoreError\":\"NaN\","
        + "\"scorePercentiles\":{},\"scoreUnit\":\"ops/s\",\"rawData\":" + secondaryForks
        + "}}}";
  }

  @Test
  void forksOfTheSameBenchmarkAndParams_becomeOneResult_withItsFiguresComputedAgain() {
    String round1 = "[" + result("toolkit", "[[1,2,3]]", "[[10,20,30]]") + ","
        + result("naive", "[[7,7,7]]", "[[70,70,70]]") + "]";
    String round2 = "[" + result("toolkit", "[[4,5,6]]", "[[40,50,60]]") + "]";

    JsonArray joined = new Gson().fromJson(InterleavedForks.join(round1, round2), JsonArray.class);

    assertEquals(2, joined.size(), "one result per benchmark and params");
    JsonObject toolkit = joined.get(0).getAsJsonObject();
    assertEquals(2, toolkit.get("forks").getAsInt());
    JsonObject primary = toolkit.getAsJsonObject("primaryMetric");
    assertEquals("[[1,2,3],[4,5,6]]", primary.get("rawData").toString());
    assertEquals(3.5, primary.get("score").getAsDouble(), 1e-9);
    assertEquals(3.5, primary.getAsJsonObject("scorePercentiles").get("50.0").getAsDouble(), 1e-9);
    assertEquals(1, primary.getAsJsonObject("scorePercentiles").get("0.0").getAsDouble(), 1e-9);
    assertEquals(6, primary.getAsJsonObject("scorePercentiles").get("100.0").getAsDouble(), 1e-9);
    JsonObject naive = joined.get(1).getAsJsonObject();
    assertEquals(1, naive.get("forks").getAsInt(), "a result in one file only stays as it was");

    JmhResults r = new JmhResults(InterleavedForks.join(round1, round2));
    JmhResults.Figure f = r.fig("HandOffBenchmark.p1c1:p1c1_consume queue=toolkit").orElseThrow();
    assertEquals(35, f.median(), 1e-9);
    assertEquals(6, f.iterations());
    assertEquals(10, f.min(), 1e-9);
    assertEquals(60, f.max(), 1e-9);
  }
}
