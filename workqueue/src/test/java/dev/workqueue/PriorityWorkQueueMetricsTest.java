package dev.workqueue;

import static dev.workqueue.metrics.MetricsProvider.ADDS;
import static dev.workqueue.metrics.MetricsProvider.DEPTH;
import static dev.workqueue.metrics.MetricsProvider.LONGEST_RUNNING;
import static dev.workqueue.metrics.MetricsProvider.PRIORITY_OVERFLOW;
import static dev.workqueue.metrics.MetricsProvider.QUEUE_DURATION;
import static dev.workqueue.metrics.MetricsProvider.RETRIES;
import static dev.workqueue.metrics.MetricsProvider.UNFINISHED_WORK;
import static dev.workqueue.metrics.MetricsProvider.WORK_DURATION;
import static dev.workqueue.testing.RecordingMetricsProvider.depthWithPriority;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client-go metrics of a named priority queue, and its depth by priority. */
class PriorityWorkQueueMetricsTest {
  private static final double EPS = 1e-12;
  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();

  private PriorityWorkQueue<String> named(String name) {
    return WorkQueue.<String>builder().name(name).metricsProvider(metrics).clock(clock)
        .buildPriority(RateLimiters.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1)));
  }

  private double depth(String queue, int priority) {
    return metrics.value(queue, depthWithPriority(Integer.toString(priority)));
  }

  private static String take(PriorityWorkQueue<String> q) throws InterruptedException {
    return q.poll(Duration.ZERO).orElseThrow();
  }

  @Test
  void depthByPriority_followsAddsRisesTakesAndReAddsWhileProcessing() throws Exception {
    PriorityWorkQueue<String> q = named("q");
    q.add("a", AddOptions.ofPriority(1));
    q.add("b", AddOptions.ofPriority(1));
    q.add("c", AddOptions.ofPriority(-100));
    q.add("d", AddOptions.ofPriority(5).withAfter(Duration.ofSeconds(1))); // not dirty yet
    assertEquals(2.0, depth("q", 1));
    assertEquals(1.0, depth("q", -100));
    assertEquals(0.0, depth("q", 5));
    assertEquals(3.0, metrics.value("q", DEPTH), "the total");

    q.add("c", AddOptions.ofPriority(1)); // rises: moves from -100 to 1
    assertEquals(3.0, depth("q", 1));
    assertEquals(0.0, depth("q", -100));

    clock.stepMillis(1000); // d becomes ready
    assertEquals(1.0, depth("q", 5));
    assertEquals(4.0, metrics.value("q", DEPTH));
    assertEquals(4, metrics.count("q", ADDS), "the rise and the dedup are not adds");

    assertEquals("d", take(q));
    assertEquals(0.0, depth("q", 5));
    q.add("d", AddOptions.ofPriority(7)); // re-added while processing: dirty again at 7
    assertEquals(1.0, depth("q", 7));
    assertEquals(4.0, metrics.value("q", DEPTH));
    q.done("d"); // joins its line: still dirty, same depth
    assertEquals(1.0, depth("q", 7));

    for (int i = 0; i < 4; i++) {
      q.done(take(q));
    }
    for (int p : new int[] {-100, 1, 5, 7}) {
      assertEquals(0.0, depth("q", p), "priority " + p);
    }
    assertEquals(0.0, metrics.value("q", DEPTH));
  }

  @Test
  void depthByPriority_capsDistinctLabels_at25_thenOneOverflowLabel() throws Exception {
    PriorityWorkQueue<String> q = named("q");
    for (int p = 0; p < 30; p++) {
      q.add("i" + p, AddOptions.ofPriority(p));
    }
    for (int p = 0; p < 25; p++) {
      assertEquals(1.0, depth("q", p), "own label for priority " + p);
    }
    assertEquals(5.0, metrics.value("q", depthWithPriority(PRIORITY_OVERFLOW)));
    for (int p = 25; p < 30; p++) {
      assertEquals(0.0, depth("q", p), "no label of its own: " + p);
    }
    while (q.size() > 0) {
      q.done(take(q));
    }
    assertEquals(0.0, metrics.value("q", depthWithPriority(PRIORITY_OVERFLOW)));
    q.add("again", AddOptions.ofPriority(3)); // labelled priorities keep their label
    assertEquals(1.0, depth("q", 3));
  }

  @Test
  void clientGoMetrics_haveExactValuesOnTheFakeClock() throws Exception {
    PriorityWorkQueue<String> q = named("q");
    q.add("a", AddOptions.ofPriority(2));
    q.add("a"); // dedup: not an add
    q.addAfter("b", Duration.ofMillis(100)); // a retry; an add when ready
    q.add("c", AddOptions.ofPriority(1).withAfter(Duration.ofMillis(100))); // a retry
    q.add("c", AddOptions.ofPriority(1)); // ready now: an add, no retry
    q.addRateLimited("d"); // a retry, after 1 s
    assertEquals(3, metrics.count("q", RETRIES));
    assertEquals(2, metrics.count("q", ADDS));

    clock.stepMillis(100);
    assertEquals(3, metrics.count("q", ADDS));
    assertEquals("a", take(q));
    clock.stepMillis(200);
    assertEquals("c", take(q));
    assertEquals("b", take(q));
    assertEquals(List.of(0.1, 0.3, 0.2), metrics.observations("q", QUEUE_DURATION));

    clock.stepMillis(400); // t = 700 ms: the refresh due at 600 ms runs in this step
    assertEquals(0.6 + 0.4 + 0.4, metrics.value("q", UNFINISHED_WORK), EPS);
    assertEquals(0.6, metrics.value("q", LONGEST_RUNNING), EPS);
    q.done("a");
    q.done("b");
    q.done("c");
    List<Double> work = metrics.observations("q", WORK_DURATION);
    assertEquals(3, work.size());
    assertEquals(0.6, work.get(0), EPS);
    assertEquals(0.4, work.get(1), EPS);
    assertEquals(0.4, work.get(2), EPS);
    q.shutDown();
    assertEquals(0, clock.pendingWakeups(), "shutdown stops the refresh and the wake-up");
  }

  @Test
  void unnamedQueue_recordsNothing() throws Exception {
    PriorityWorkQueue<String> q = WorkQueue.<String>builder().metricsProvider(metrics)
        .clock(clock).buildPriority(RateLimiters.exponential(Duration.ZERO, Duration.ZERO));
    q.add("a", AddOptions.ofPriority(3));
    q.done(take(q));
    assertEquals(java.util.Set.of(), metrics.queues());
  }
}
