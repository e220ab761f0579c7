package dev.workqueue.metrics;

enum NoopMetricsProvider implements MetricsProvider {
  INSTANCE;

  @Override
  public Gauge newDepthMetric(String name) {
    return Gauge.NOOP;
  }

  @Override
  public Counter newAddsMetric(String name) {
    return Counter.NOOP;
  }

  @Override
  public Histogram newLatencyMetric(String name) {
    return Histogram.NOOP;
  }

  @Override
  public Histogram newWorkDurationMetric(String name) {
    return Histogram.NOOP;
  }

  @Override
  public Gauge newUnfinishedWorkSecondsMetric(String name) {
    return Gauge.NOOP;
  }

  @Override
  public Gauge newLongestRunningProcessorSecondsMetric(String name) {
    return Gauge.NOOP;
  }

  @Override
  public Counter newRetriesMetric(String name) {
    return Counter.NOOP;
  }
}
