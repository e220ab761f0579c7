package dev.workqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Checks that the harness runs: the annotation processor generated the benchmark list, the
 * adapters work, and a producer/consumer group ends its iteration instead of hanging. One
 * in-process iteration of ~100 ms each; it asserts that the run completed and that a figure came
 * out, never its size: on a loaded machine a 100 ms window may hold no completed round, no
 * delivered item, nothing on time, so no count or rate inside it is asserted to be positive.
 * (A benchmark that throws fails the run: {@code shouldFailOnError}.)
 */
class HarnessSmokeTest {

  private static Options tiny(String include, String queue) {
    return new OptionsBuilder().parent(tiny(include)).param("queue", queue).build();
  }

  private static Options tiny(String include) {
    return new OptionsBuilder()
        .include(include)
        .forks(0)
        .warmupIterations(0)
        .measurementIterations(1)
        .measurementTime(TimeValue.milliseconds(100))
        .shouldFailOnError(true)
        .output("target/jmh-smoke.log") // keep the build log readable
        .build();
  }

  private static Options tiny(String include, String queue, String param, String value) {
    return new OptionsBuilder().parent(tiny(include, queue)).param(param, value).build();
  }

  private static RunResult runOne(Options options) throws RunnerException {
    Collection<RunResult> results = new Runner(options).run();
    assertEquals(1, results.size(), "exactly one benchmark should match");
    return results.iterator().next();
  }

  /** A figure came out: a number, however small (zero included), never NaN nor negative. */
  private static void assertFigure(RunResult r, String secondary) {
    assertTrue(r.getSecondaryResults().containsKey(secondary),
        "no figure " + secondary + " in " + r.getSecondaryResults().keySet());
    assertFigure(r.getSecondaryResults().get(secondary).getScore(), secondary);
  }

  private static void assertFigure(double score, String what) {
    assertFalse(Double.isNaN(score), what + " is NaN");
    assertTrue(score >= 0, what + " " + score);
  }

  @Test
  void oneThreadRoundTrip_producesAFigure() throws RunnerException {
    RunResult r = runOne(tiny(OneThreadBenchmark.class.getName() + ".addGetDone", "toolkit"));
    assertFigure(r.getPrimaryResult().getScore(), "score");
  }

  @Test
  void handOffGroup_withAQueueThatOnlyBlocks_endsItsIteration() throws RunnerException {
    // The peer's get() has no timeout: the iteration must still end.
    RunResult r = runOne(new OptionsBuilder()
        .parent(tiny(HandOffBenchmark.class.getName() + ".p2c2", "peer"))
        .param("keys", "spread").build());
    assertFigure(r, "p2c2_consume");
  }

  @Test
  void delayedCpu_withConsumerThreadsOfItsOwn_stopsThemAndReportsCpuPerItem()
      throws RunnerException {
    RunResult r = runOne(tiny(DelayedCpuBenchmark.class.getName() + ".produce", "toolkit-named",
        "consumers", "4"));
    // The consumers were stopped: the trial's tear-down throws if one is still alive.
    assertFigure(r, "delivered");
    if (r.getSecondaryResults().get("delivered").getScore() > 0) { // none may fall due in 100 ms
      assertFigure(r, "cpu_ns_per_item");
    }
  }

  @Test
  void controller_thePeersWorkersRunAndStop_andEveryKeyIsReconciled() throws RunnerException {
    // The set-up fails unless 2 workers reconcile at once; the trial fails unless it stops.
    RunResult r = runOne(new OptionsBuilder()
        .parent(tiny(ControllerBenchmark.class.getName() + ".reconcileAll"))
        .param("controller", "peer").param("workers", "2").build());
    assertFigure(r.getPrimaryResult().getScore(), "score");
  }

  @Test
  void firstOfManyDue_roundsEndAndReportTheirFigures() throws RunnerException {
    // A round that does not end throws after 10 s (failing the run). "rounds" counts only the
    // rounds whose adds finished before the due time: on a loaded machine every round of the
    // 100 ms may be late (late_fills), so neither count is asserted positive.
    RunResult r = runOne(tiny(FirstOfManyDueBenchmark.class.getName() + ".round", "toolkit"));
    assertFigure(r, "rounds");
    assertFigure(r, "late_fills");
  }
}
