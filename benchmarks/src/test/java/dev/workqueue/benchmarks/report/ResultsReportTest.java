package dev.workqueue.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report reads JMH's JSON shape and judges bars from same-run ratios. */
class ResultsReportTest {
  /**
   * One JMH result. {@code queue} is the {@code queue} param's value, optionally followed by other
   * params as {@code name=value} words ("toolkit keys=spread").
   */
  private static String result(String bench, String queue, String unit, double median,
      String secondary) {
    String[] words = queue.split(" ");
    StringBuilder params = new StringBuilder("\"queue\":\"" + words[0] + "\"");
    for (int i = 1; i < words.length; i++) {
      String[] kv = words[i].split("=", 2);
      params.append(",\"").append(kv[0]).append("\":\"").append(kv[1]).append("\"");
    }
    return "{\"jmhVersion\":\"1.37\",\"benchmark\":\"dev.workqueue.benchmarks." + bench + "\","
        + "\"mode\":\"avgt\",\"threads\":1,\"forks\":2,\"jdkVersion\":\"17\","
        + "\"vmName\":\"VM\",\"vmVersion\":\"1\",\"warmupIterations\":3,"
        + "\"warmupTime\":\"1 s\",\"measurementIterations\":5,\"measurementTime\":\"1 s\","
        + "\"params\":{" + params + "},"
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
        .markdown(FileTime.fromMillis(0), "results/handoff.png", "");
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
        .markdown(FileTime.fromMillis(0), "results/handoff.png", "");
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
        .markdown(FileTime.fromMillis(0), "results/handoff.png", "");
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

  /** A ControllerBenchmark result: reconciles/s per iteration (one fork) and B/reconcile. */
  private static String controller(String contender, String workers, double bytes,
      double... perIteration) {
    double[] sorted = perIteration.clone();
    java.util.Arrays.sort(sorted);
    String raw = java.util.Arrays.stream(perIteration).mapToObj(Double::toString)
        .collect(java.util.stream.Collectors.joining(","));
    return result("ControllerBenchmark.reconcileAll", "x", "ops/s", sorted[sorted.length / 2],
        alloc(bytes))
        .replace("{\"queue\":\"x\"}",
            "{\"controller\":\"" + contender + "\",\"workers\":\"" + workers + "\"}")
        .replace("\"rawData\":[[" + sorted[sorted.length / 2] + "]]}",
            "\"rawData\":[[" + raw + "]]}");
  }

  @Test
  void controllerFigures_showSpreadsAndRatios_andTheBarFlagsARangeAcrossItsThreshold()
      throws IOException {
    String json = "[" + String.join(",",
        controller("toolkit", "1", 200, 3.0e6, 3.2e6, 3.4e6),
        controller("peer", "1", 330, 1.5e6, 1.6e6, 1.7e6),
        controller("executor", "1", 24, 15e6, 16e6, 17e6),
        controller("toolkit", "2", 200, 2.6e6, 3.0e6, 3.2e6),
        controller("peer", "2", 330, 1.9e6, 2.0e6, 2.1e6),
        controller("executor", "2", 24, 9e6, 10e6, 11e6)) + "]";
    System.setProperty("report.controllerRun", "Measured at load 1.0.");
    String md;
    try {
      md = new ResultsReport(new JmhResults(json), "full")
          .markdown(FileTime.fromMillis(0), "results/handoff.png", "");
    } finally {
      System.clearProperty("report.controllerRun");
    }
    assertTrue(md.contains("\nMeasured at load 1.0.\n"), md);
    assertTrue(md.contains("| 1 | toolkit `Controller` | 3.20 [3.00–3.40] | 200 |  |"), md);
    assertTrue(md.contains("| 1 | peer `DefaultController` (client-java-extended) | "
        + "1.60 [1.50–1.70] | 330 | 2.00× |"), md);
    assertTrue(md.contains("| 2 | peer `DefaultController` (client-java-extended) | "
        + "2.00 [1.90–2.10] | 330 | 1.50× |"), md);
    assertTrue(md.contains("| 2 | `ExecutorService` (fixed pool, a task per key) | "
        + "10.00 [9.00–11.00] | 24 | 0.30× |"), md);
    // The worst worker count decides: 1.50× ≥ 1.5× holds, but 2 workers' range spans 1.5×.
    assertTrue(md.contains("| controller end-to-end: reconciles/s, no-op reconciler, 1/2/4 "
        + "workers | ≥ 1.5× client-java-extended's controller | ≥ 0.8× a plain ExecutorService | "
        + "toolkit ÷ peer: 1 worker 2.00× [1.76–2.27]; 2 workers 1.50× [1.24–1.68] (spans 1.5×)"
        + " (2 of 3 cases in this run); toolkit ÷ executor: 1 worker 0.20× [0.18–0.23]; "
        + "2 workers 0.30× [0.24–0.36] (2 of 3 cases in this run) | held | **missed** |"), md);
  }

  /**
   * A result tagged by HostModeProfiler: per iteration, {@code metric}'s value and the mode the
   * probe saw, {@code n} (near bursts only), {@code f} (far only) or {@code m} (both).
   */
  private static String tagged(String bench, String queue, String metric, String modes,
      double... values) {
    double[] near = modes.chars().mapToDouble(c -> c == 'f' ? 0 : 9).toArray();
    double[] far = modes.chars().mapToDouble(c -> c == 'n' ? 0 : 9).toArray();
    return result(bench, queue, "ops/s", 1, String.join(",", aux(metric, values),
        aux("\u00b7hostmode.near", near), aux("\u00b7hostmode.far", far)));
  }

  /**
   * Hand-off figures tagged by HostModeProfiler: each contender is compared with the other's
   * iterations in the same host mode, an iteration that saw both modes counts in neither, and the
   * worse mode decides.
   */
  @Test
  void handOffFigures_withHostModes_areJudgedWithinEachMode() throws IOException {
    String consume = "HandOffBenchmark.p2c2:p2c2_consume";
    String b = "HandOffBenchmark.p2c2";
    String json = "[" + String.join(",",
        tagged(b, "toolkit keys=spread", "p2c2_consume", "nnnnnmfffff",
            9, 9, 9, 9, 9, 50, 3, 3, 3, 3, 3),
        tagged(b, "naive keys=spread", "p2c2_consume", "nnnnnfffff", 8, 8, 8, 8, 8, 8, 8, 8, 8, 8),
        tagged(b, "lbq keys=spread", "p2c2_consume", "nnnfff", 4, 4, 4, 4, 4, 4)) + "]";
    JmhResults r = new JmhResults(json);
    assertTrue(r.fig(consume + "@near queue=toolkit").orElseThrow().iterations() == 5,
        "the mixed iteration is in neither mode");
    String md = new ResultsReport(r, "full").markdown(FileTime.fromMillis(0), "x.png", "");
    assertTrue(md.contains("| work queue hand-off, 2P+2C | ≥ 1.0× naive | ≥ 1.0× LBQ | "
        + "all iterations 1.13× ÷ naive, near: 1.13× ÷ naive (5 and 5 iterations), "
        + "far: 0.38× ÷ naive (5 and 5 iterations); all iterations 2.25× ÷ lbq, "
        + "near: 2.25× ÷ lbq (5 and 3 iterations, too few to judge), "
        + "far: 0.75× ÷ lbq (5 and 3 iterations, too few to judge) | **missed** | "
        + "not judged (too few iterations in any mode) |"), md);
  }

  /**
   * The hand-off's table, bars and peer row read the {@code keys=spread} figures, also where the
   * JSON lists the {@code keys=sequential} ones first.
   */
  @Test
  void handOffFigures_areTheSpreadKeysOnes_whicheverComesFirst() throws IOException {
    String b = "HandOffBenchmark.p1c1";
    String json = "[" + String.join(",",
        result(b, "toolkit keys=sequential", "ops/s", 1, aux("p1c1_consume", 1e6)),
        result(b, "naive keys=sequential", "ops/s", 1, aux("p1c1_consume", 4e6)),
        result(b, "peer keys=sequential", "ops/s", 1, aux("p1c1_consume", 8e6)),
        result(b, "toolkit keys=spread", "ops/s", 1, aux("p1c1_consume", 6e6)),
        result(b, "naive keys=spread", "ops/s", 1, aux("p1c1_consume", 4e6)),
        result(b, "peer keys=spread", "ops/s", 1, aux("p1c1_consume", 3e6))) + "]";
    String md = new ResultsReport(new JmhResults(json), "full")
        .markdown(FileTime.fromMillis(0), "x.png", "");
    assertTrue(md.contains("| work queue hand-off, 1P+1C | ≥ 1.0× naive | ≥ 1.0× LBQ | "
        + "1.50× ÷ naive | held |"), md);
    assertTrue(md.contains("hand-off 1P+1C 2.00×"), md);
    assertTrue(md.contains("| toolkit `WorkQueue` | 6.00"), md);
    assertTrue(!md.contains("| toolkit `WorkQueue` | 1.00"), md);
  }

  /**
   * A mode the toolkit ran enough iterations in but its baseline did not leaves a hold undecided
   * and is named in the verdict; a mode the toolkit barely ran in does not.
   */
  @Test
  void handOffFigures_withAModeOnlyTheToolkitSaw_areUndecided() throws IOException {
    String json = "[" + String.join(",",
        tagged("HandOffBenchmark.p1c1", "toolkit keys=spread", "p1c1_consume", "nnnnnfffff",
            9, 9, 9, 9, 9, 3, 3, 3, 3, 3),
        tagged("HandOffBenchmark.p1c1", "naive keys=spread", "p1c1_consume", "nnnnn",
            8, 8, 8, 8, 8),
        tagged("HandOffBenchmark.p2c2", "toolkit keys=spread", "p2c2_consume", "nnnnnf",
            9, 9, 9, 9, 9, 3),
        tagged("HandOffBenchmark.p2c2", "naive keys=spread", "p2c2_consume", "nnnnn",
            8, 8, 8, 8, 8)) + "]";
    String md = new ResultsReport(new JmhResults(json), "full")
        .markdown(FileTime.fromMillis(0), "x.png", "");
    String row = " | ≥ 1.0× naive | ≥ 1.0× LBQ | all iterations 1.13× ÷ naive, near: 1.13× ÷ "
        + "naive (5 and 5 iterations), far: no naive iteration; near: no lbq iteration, far: no "
        + "lbq iteration | ";
    assertTrue(md.contains("| work queue hand-off, 1P+1C" + row + "undecided (far mode not "
        + "judged) |"), md);
    assertTrue(md.contains("| work queue hand-off, 2P+2C" + row + "held |"), md);
    assertTrue(md.contains("### What limits the missed and undecided bars"), md);
  }

  /** A figure where less is better: the worse mode is the one with the larger ratio. */
  @Test
  void latenessUnderSaturation_withHostModes_isDecidedByItsWorseMode() throws IOException {
    String b = "SaturatedLatenessBenchmark.saturated";
    String json = "[" + String.join(",",
        tagged(b, "toolkit", "p50_us", "nnnnnfffff", 40, 40, 40, 40, 40, 100, 100, 100, 100, 100),
        tagged(b, "delayqueue", "p50_us", "nnnnnfffff", 50, 50, 50, 50, 50, 50, 50, 50, 50, 50))
        + "]";
    String md = new ResultsReport(new JmhResults(json), "full")
        .markdown(FileTime.fromMillis(0), "x.png", "");
    assertTrue(md.contains("near: 0.80× ÷ delayqueue (5 and 5 iterations), far: 2.00× ÷ "
        + "delayqueue (5 and 5 iterations) | **missed** | **missed** |"), md);
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

  /**
   * A report written again keeps the hand-written sections of the one it replaces (the sessions'
   * notes and measurements no JMH run writes), once, where they stood: before the tables.
   */
  @Test
  void aNewReport_keepsTheHandWrittenSectionsOfTheOldOne() throws IOException {
    String json = "[" + result("OneThreadBenchmark.addGetDone", "toolkit", "ns/op", 100,
        alloc(32)) + "]";
    ResultsReport report = new ResultsReport(new JmhResults(json), "full");
    String first = report.markdown(FileTime.fromMillis(0), "x.png", "");
    assertTrue(first.contains(KeptSections.START + "\n" + KeptSections.END), first);
    String notes = "## Session 99: measured by hand\n\n| what | figure |\n|---|---:|\n"
        + "| x | 1 |\n\n";
    String old = first.replace(KeptSections.START + "\n", KeptSections.START + "\n" + notes);
    String again = report.markdown(FileTime.fromMillis(0), "x.png", old);
    String twice = report.markdown(FileTime.fromMillis(0), "x.png", again);
    assertEquals(old, again);
    assertEquals(again, twice);
    assertTrue(again.indexOf(notes) < again.indexOf("## add + get + done, one thread"), again);
  }
}
