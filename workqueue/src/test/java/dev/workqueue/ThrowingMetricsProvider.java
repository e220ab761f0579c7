package dev.workqueue;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.metrics.MetricsProvider;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * A metrics provider whose gauges, counters and histograms throw: always, never, or on chosen
 * calls. Every call of any of its metrics (all seven, and the depth by priority) is numbered
 * from 1 in one sequence, and the call whose number {@link #throwOn} accepts throws an
 * {@link IllegalStateException} that names it. Counting with {@code throwOn(never())} first
 * tells a test how many hook calls a scenario makes, so it can then make each one throw in
 * turn.
 */
final class ThrowingMetricsProvider implements MetricsProvider {
  private final AtomicInteger calls = new AtomicInteger();
  private volatile IntPredicate throwOn;

  ThrowingMetricsProvider(IntPredicate throwOn) {
    this.throwOn = throwOn;
  }

  static IntPredicate always() {
    return n -> true;
  }

  static IntPredicate never() {
    return n -> false;
  }

  static IntPredicate only(int call) {
    return n -> n == call;
  }

  /** From now on, calls whose number {@code predicate} accepts throw. */
  void throwOn(IntPredicate predicate) {
    this.throwOn = predicate;
  }

  /** The number of metric calls so far. */
  int calls() {
    return calls.get();
  }

  private void hook(String metric) {
    int n = calls.incrementAndGet();
    if (throwOn.test(n)) {
      throw new IllegalStateException("metrics hook " + metric + " failed (call #" + n + ")");
    }
  }

  private Gauge gauge(String metric) {
    return v -> hook(metric);
  }

  private Counter counter(String metric) {
    return () -> hook(metric);
  }

  private Histogram histogram(String metric) {
    return v -> hook(metric);
  }

  @Override
  public Gauge newDepthMetric(String name) {
    return gauge(DEPTH);
  }

  @Override
  public Counter newAddsMetric(String name) {
    return counter(ADDS);
  }

  @Override
  public Histogram newLatencyMetric(String name) {
    return histogram(QUEUE_DURATION);
  }

  @Override
  public Histogram newWorkDurationMetric(String name) {
    return histogram(WORK_DURATION);
  }

  @Override
  public Gauge newUnfinishedWorkSecondsMetric(String name) {
    return gauge(UNFINISHED_WORK);
  }

  @Override
  public Gauge newLongestRunningProcessorSecondsMetric(String name) {
    return gauge(LONGEST_RUNNING);
  }

  @Override
  public Counter newRetriesMetric(String name) {
    return counter(RETRIES);
  }

  @Override
  public Gauge newDepthWithPriorityMetric(String name, String priority) {
    return gauge(DEPTH + "{" + PRIORITY_LABEL + "=" + priority + "}");
  }
}
