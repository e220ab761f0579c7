package dev.workqueue;

import static dev.workqueue.metrics.MetricsProvider.ADDS;
import static dev.workqueue.metrics.MetricsProvider.DEPTH;
import static dev.workqueue.metrics.MetricsProvider.LONGEST_RUNNING;
import static dev.workqueue.metrics.MetricsProvider.QUEUE_DURATION;
import static dev.workqueue.metrics.MetricsProvider.UNFINISHED_WORK;
import static dev.workqueue.metrics.MetricsProvider.WORK_DURATION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.QueueThreads.Running;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkQueueMetricsTest {
  private static final double EPS = 1e-12;
  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();

  private WorkQueue<String> named(String name) {
    return WorkQueue.<String>builder().name(name).metricsProvider(metrics).clock(clock).build();
  }

  private static String take(WorkQueue<String> q) throws InterruptedException {
    return q.poll(Duration.ZERO).orElseThrow();
  }

  private void assertSeconds(List<Double> expected, List<Double> actual) {
    assertEquals(expected.size(), actual.size(), "observations " + actual);
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), actual.get(i), EPS, "observation " + i + " of " + actual);
    }
  }

  @Test
  void fakeClockScenario_givesExactValues() throws Exception {
    WorkQueue<String> q = named("q");
    q.add("a");
    q.add("b");
    q.add("a"); // deduplicated: not an add
    assertEquals(2, metrics.count("q", ADDS));
    assertEquals(2.0, metrics.value("q", DEPTH));

    clock.stepMillis(100);
    assertEquals("a", take(q));
    assertEquals(1.0, metrics.value("q", DEPTH));
    clock.stepMillis(200);
    assertEquals("b", take(q));
    assertEquals(0.0, metrics.value("q", DEPTH));
    assertSeconds(List.of(0.1, 0.3), metrics.observations("q", QUEUE_DURATION));

    clock.stepMillis(300); // t = 600 ms: the first refresh, 500 ms after the first get
    assertEquals(0.5 + 0.3, metrics.value("q", UNFINISHED_WORK), EPS);
    assertEquals(0.5, metrics.value("q", LONGEST_RUNNING), EPS);

    q.add("a"); // re-added while processing: dirty again, an add
    assertEquals(3, metrics.count("q", ADDS));
    assertEquals(1.0, metrics.value("q", DEPTH));
    clock.stepMillis(100); // t = 700 ms
    q.done("a");
    assertEquals(1.0, metrics.value("q", DEPTH), "a is queued again");
    assertEquals("a", take(q));
    assertEquals(0.0, metrics.value("q", DEPTH));
    q.done("b");
    q.done("a");
    assertSeconds(List.of(0.1, 0.3, 0.1), metrics.observations("q", QUEUE_DURATION));
    assertSeconds(List.of(0.6, 0.4, 0.0), metrics.observations("q", WORK_DURATION));

    clock.stepMillis(400); // t = 1100 ms: refresh sees nothing processing
    assertEquals(0.0, metrics.value("q", UNFINISHED_WORK));
    assertEquals(0.0, metrics.value("q", LONGEST_RUNNING));
    assertFalse(clock.hasWaiters(), "an idle queue keeps nothing scheduled");
  }

  /**
   * After a shutdown the refresh stops (as client-go's), but the gauges of work in progress
   * must not stay frozen at their last non-zero values once the last item is done: a dashboard
   * would show work running on a queue that has finished.
   */
  @Test
  void workInProgressGauges_readZero_onceTheLastItemIsDone_afterShutdown() throws Exception {
    WorkQueue<String> q = named("q");
    q.add("a");
    assertEquals("a", take(q));
    clock.stepMillis(500); // the first refresh: a has run for 0.5 s
    assertEquals(0.5, metrics.value("q", UNFINISHED_WORK), EPS);
    q.shutDown();
    clock.stepMillis(500);
    q.done("a");
    clock.stepMillis(500);
    assertEquals(0.0, metrics.value("q", UNFINISHED_WORK), "nothing is processing");
    assertEquals(0.0, metrics.value("q", LONGEST_RUNNING), "nothing is processing");
  }

  @Test
  void refresh_runsEveryPeriodWhileProcessing() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder()
        .name("p").metricsProvider(metrics).clock(clock)
        .metricsUpdatePeriod(Duration.ofSeconds(1)).build();
    q.add("a");
    take(q);
    for (int s = 1; s <= 3; s++) {
      clock.step(Duration.ofSeconds(1));
      assertEquals(s, metrics.value("p", LONGEST_RUNNING), EPS);
    }
  }

  @Test
  void refresh_stopsAtShutdown() throws Exception {
    WorkQueue<String> q = named("s");
    q.add("a");
    take(q);
    assertTrue(clock.hasWaiters());
    q.shutDown();
    assertFalse(clock.hasWaiters(), "the refresh is cancelled at shutdown");
  }

  @Test
  void unnamedQueue_recordsNothingAndSchedulesNothing() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().metricsProvider(metrics).clock(clock).build();
    q.add("a");
    take(q);
    q.done("a");
    assertEquals(java.util.Set.of(), metrics.queues());
    assertFalse(clock.hasWaiters());
  }

  @Test
  void depth_neverNegative_underUnpairedDones() throws Exception {
    WorkQueue<String> q = named("d");
    for (int i = 0; i < 5; i++) {
      q.done("x" + i);
    }
    q.add("a");
    take(q);
    q.done("a");
    q.done("a");
    assertEquals(0.0, metrics.value("d", DEPTH));
    assertEquals(1, metrics.observations("d", WORK_DURATION).size());
  }

  /**
   * A hook that throws a {@link VirtualMachineError} is rethrown (the JVM may be broken), but
   * only after the state change it reports is complete: here the adds counter of an item handed
   * out straight from the waiting room. Were it called while that item's entry was still
   * unpublished, the entry would stay so, and every later add of the item would wait for it
   * for ever.
   */
  @Test
  void addsHookThrowingAVirtualMachineError_leavesNoEntryThatLaterAddsWaitFor() throws Exception {
    boolean[] armed = {false};
    MetricsProvider failing = new MetricsProvider() {
      @Override
      public Counter newAddsMetric(String name) {
        return () -> {
          if (armed[0]) {
            armed[0] = false;
            throw new StackOverflowError("test: adds hook");
          }
        };
      }
    };
    DelayingQueue<String> q = WorkQueue.<String>builder().name("vme").metricsProvider(failing)
        .clock(clock).buildDelaying();
    try (QueueThreads threads = new QueueThreads()) {
      // a consumer waits first, so it leads for "a" and hands it out from the waiting room
      // (no metrics wake-up is armed while a consumer waits)
      Running<Optional<String>> got = threads.parked("getter", q::get);
      armed[0] = true;
      q.addAfter("a", Duration.ofMillis(1));
      QueueThreads.awaitParked(got.thread());
      clock.stepMillis(1);
      ExecutionException failed =
          assertThrows(ExecutionException.class, () -> got.result().get(10, TimeUnit.SECONDS));
      assertTrue(failed.getCause() instanceof StackOverflowError, "the hook's error: " + failed);
    }
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> q.add("a"),
        "an add of the item must not wait for an entry the failed take left unpublished");
  }
}
