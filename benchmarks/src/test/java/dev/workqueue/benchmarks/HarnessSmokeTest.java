package dev.workqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * in-process iteration of ~100 ms each; it asserts that a figure came out, never its size.
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

  @Test
  void oneThreadRoundTrip_producesAPositiveTime() throws RunnerException {
    RunResult r = runOne(tiny(OneThreadBenchmark.class.getName() + ".addGetDone", "toolkit"));
    assertTrue(r.getPrimaryResult().getScore() > 0, "score " + r.getPrimaryResult());
  }

  @Test
  void handOffGroup_withAQueueThatOnlyBlocks_endsItsIteration() throws RunnerException {
    // The peer's get() has no timeout: the iteration must still end.
    RunResult r = runOne(new OptionsBuilder()
        .parent(tiny(HandOffBenchmark.class.getName() + ".p2c2", "peer"))
        .param("keys", "spread").build());
    double consumed = r.getSecondaryResults().get("p2c2_consume").getScore();
    assertTrue(consumed > 0, "consumer rate " + consumed);
  }

  @Test
  void delayedCpu_withConsumerThreadsOfItsOwn_stopsThemAndReportsCpuPerItem()
      throws RunnerException {
    RunResult r = runOne(tiny(DelayedCpuBenchmark.class.getName() + ".produce", "toolkit-named",
        "consumers", "4"));
    assertTrue(r.getSecondaryResults().get("delivered").getScore() > 0, r.toString());
    assertTrue(r.getSecondaryResults().get("cpu_ns_per_item").getScore() > 0, r.toString());
  }

  @Test
  void controller_thePeersWorkersRunAndStop_andEveryKeyIsReconciled() throws RunnerException {
    // The set-up fails unless 2 workers reconcile at once; the trial fails unless it stops.
    RunResult r = runOne(new OptionsBuilder()
        .parent(tiny(ControllerBenchmark.class.getName() + ".reconcileAll"))
        .param("controller", "peer").param("workers", "2").build());
    assertTrue(r.getPrimaryResult().getScore() > 0, r.toString());
  }

  @Test
  void firstOfManyDue_roundsEndAndReportALateness() throws RunnerException {
    RunResult r = runOne(tiny(FirstOfManyDueBenchmark.class.getName() + ".round", "toolkit"));
    assertTrue(r.getSecondaryResults().get("rounds").getScore() > 0, r.toString());
  }
}
