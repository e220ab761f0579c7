package dev.workqueue.benchmarks;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.metrics.MetricsProvider;

/**
 * A metrics provider that records nothing but is not {@link MetricsProvider#noop()}: a queue
 * built with it and a name has live metrics as far as the queue can tell (it calls them, and a
 * delaying queue arms its metrics backstop timer), while the metrics themselves cost nothing.
 * So a benchmark of a named queue measures the queue's own metrics work, not a registry's.
 * Every metric is a fresh no-op object, never the {@code NOOP} constants, in case a queue ever
 * skips work for those.
 */
final class SilentMetricsProvider implements MetricsProvider {
  static final SilentMetricsProvider INSTANCE = new SilentMetricsProvider();

  private SilentMetricsProvider() {}

  private static Gauge gauge() {
    return v -> {};
  }

  private static Counter counter() {
    return () -> {};
  }

  private static Histogram histogram() {
    return v -> {};
  }

  @Override
  public Gauge newDepthMetric(String name) {
    return gauge();
  }

  @Override
  public Counter newAddsMetric(String name) {
    return counter();
  }

  @Override
  public Histogram newLatencyMetric(String name) {
    return histogram();
  }

  @Override
  public Histogram newWorkDurationMetric(String name) {
    return histogram();
  }

  @Override
  public Gauge newUnfinishedWorkSecondsMetric(String name) {
    return gauge();
  }

  @Override
  public Gauge newLongestRunningProcessorSecondsMetric(String name) {
    return gauge();
  }

  @Override
  public Counter newRetriesMetric(String name) {
    return counter();
  }

  @Override
  public Gauge newDepthWithPriorityMetric(String name, String priority) {
    return gauge();
  }
}
