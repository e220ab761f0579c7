package dev.workqueue.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report reads JMH's JSON shape and judges bars from same-run ratios. */
class ResultsReportTest {
  private static String result(String bench, String queue, String unit, double median,
      String secondary) {
    return "{\"jmhVersion\":\"1.37\",\"benchmark\":\"dev.workqueue.benchmarks." + bench + "\","
        + "\"mode\":\"avgt\",\"threads\":1,\"forks\":2,\"jdkVersion\":\"17\","
        + "\"vmName\":\"VM\",\"vmVersion\":\"1\",\"warmupIterations\":3,"
        + "\"warmupTime\":\"1 s\",\"measurementIterations\":5,\"measurementTime\":\"1 s\","
        + "\"params\":{\"queue\":\"" + queue + "\"},"
        + "\"primaryMetric\":{\"score\":" + median + ",\"scoreError\":\"NaN\","
        + "\"scorePercentiles\":{\"50.0\":" + median + "},\"scoreUnit\":\"" + unit + "\","
        + "\"rawData\":[[" + median + "]]},"
        + "\"secondaryMetrics\":{" + secondary + "}}";
  }

  private static String alloc(double bytes) {
    return "\"\u00b7gc.alloc.rate.norm\":{\"score\":" + bytes + ",\"scoreError\":0.1,"
        + "\"scorePercentiles\":{\"50.0\":" + bytes + "},\"scoreUnit\":\"B/op\","
        + "\"rawData\":[[" + bytes + "]]}";
  }

  @Test
  void oneThreadFigures_giveRatiosAndVerdicts() throws IOException {
    String json = "[" + String.join(",",
        result("OneThreadBenchmark.addGetDone", "toolkit", "ns/op", 100, alloc(32)),
        result("OneThreadBenchmark.addGetDone", "naive", "ns/op", 200, alloc(64)),
        result("OneThreadBenchmark.addGetDone", "abq", "ns/op", 40, alloc(0))) + "]";
    String md = new ResultsReport(new JmhResults(json), "full")
        .markdown(FileTime.fromMillis(0), "results/handoff.png");
    assertTrue(md.contains("| naive (client-go shape) | 200.0 | 0.50× | 64 |"), md);
    assertTrue(md.contains("| add+get+done, one thread | ≤ 1.0× naive time | ≤ 2× ABQ offer+poll"
        + " | 0.50× ÷ naive, 2.50× ÷ ABQ | held | **missed** |"), md);
    assertTrue(md.contains("| addAfter with 1 M pending |"), md);
    assertTrue(md.contains("not measured yet"), md);
  }

  @Test
  void priorityQueueFigures_standBesideThePbqBaseline_withTheirRatio() throws IOException {
    String json = "[" + String.join(",",
        result("PriorityQueueBenchmark.toolkitAddGetDone_1t", "x", "ns/op", 90, alloc(24))
            .replace("{\"queue\":\"x\"}", "{\"resident\":\"1000\"}"),
        result("PriorityQueueBenchmark.pbqPollOffer_1t", "x", "ns/op", 120, alloc(32))
            .replace("{\"queue\":\"x\"}", "{\"resident\":\"1000\"}")) + "]";
    String md = new ResultsReport(new JmhResults(json), "full")
        .markdown(FileTime.fromMillis(0), "results/handoff.png");
    assertTrue(md.contains("| add + get + done, 1 thread | 1000 | 90.0 | 120.0 | 0.75× | 24 / 32 |"),
        md);
    assertTrue(!md.contains("| add + poll + done, 2 threads |"), "absent figures: no row");
  }

  /** A secondary figure with one value per iteration, one fork. */
  private static String aux(String name, double... perIteration) {
    double[] sorted = perIteration.clone();
    java.util.Arrays.sort(sorted);
    String raw = java.util.Arrays.stream(perIteration).mapToObj(Double::toString)
        .collect(java.util.stream.Collectors.joining(","));
    return "\"" + name + "\":{\"score\":0,\"scoreError\":\"NaN\",\"scorePercentiles\":{"
        + "\"50.0\":" + sorted[sorted.length / 2] + "},\"scoreUnit\":\"#\",\"rawData\":[["
        + raw + "]]}";
  }

  @Test
  void delayCostFigures_showTheirSpreadAndFlagOverlappingRatios() throws IOException {
    String json = "[" + String.join(",",
        result("FirstOfManyDueBenchmark.round", "toolkit", "ops/s", 400,
            aux("first_p50_us", 140, 150, 160)),
        result("FirstOfManyDueBenchmark.round", "delayqueue", "ops/s", 400,
            aux("first_p50_us", 90, 100, 110)),
        result("MassDueAddBenchmark.massFallsDue", "toolkit", "ms/op", 300,
            aux("max_add_us", 900, 1000, 2000)),
        result("MassDueAddBenchmark.massFallsDue", "delayqueue", "ms/op", 300,
            aux("max_add_us", 500, 1500, 3000))) + "]";
    String md = new ResultsReport(new JmhResults(json), "full")
        .markdown(FileTime.fromMillis(0), "results/handoff.png");
    assertTrue(
        md.contains("| toolkit `DelayingQueue` | 150.0 [140.0–160.0] | – | – | 1.50× |"), md);
    assertTrue(md.contains("| toolkit `DelayingQueue` | 1000 [900–2000] | – | – | 0.67× "
        + "(spreads overlap) |"), md);
    assertTrue(md.contains("| lateness of the first of 1,000 items due together (p50) | "
        + "≤ 1.5× DelayQueue | ≤ 1.0× DelayQueue | toolkit ÷ DelayQueue: 1.50× | held | "
        + "**missed** |"), md);
    assertTrue(md.contains("| CPU per delivered delayed item, 1 and 4 consumers, named and "
        + "unnamed (process CPU time) | ≤ 1.1× DelayQueue | ≤ 1.0× DelayQueue | "
        + "not in this run"), md);
  }

  @Test
  void charts_areReadablePngsEvenWithoutFigures(@TempDir Path dir) throws IOException {
    Charts.write(new JmhResults("[]"), "quick", dir.resolve("handoff.png"),
        dir.resolve("lateness.png"));
    for (String name : new String[] {"handoff.png", "lateness.png"}) {
      java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(dir.resolve(name).toFile());
      assertTrue(image != null && image.getWidth() > 100 && image.getHeight() > 100, name);
    }
  }
}
