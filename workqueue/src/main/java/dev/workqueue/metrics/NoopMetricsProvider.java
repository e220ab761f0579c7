package dev.workqueue.metrics;

enum NoopMetricsProvider implements MetricsProvider, ControllerMetricsProvider {
  INSTANCE;

  static final ControllerMetricsProvider CONTROLLER = INSTANCE;

  @Override
  public Counter newReconcileTotal(String controller, String result) {
    return Counter.NOOP;
  }

  @Override
  public Counter newReconcileErrors(String controller) {
    return Counter.NOOP;
  }

  @Override
  public Counter newTerminalReconcileErrors(String controller) {
    return Counter.NOOP;
  }

  @Override
  public Counter newReconcilePanics(String controller) {
    return Counter.NOOP;
  }

  @Override
  public Histogram newReconcileTime(String controller) {
    return Histogram.NOOP;
  }

  @Override
  public Gauge newActiveWorkers(String controller) {
    return Gauge.NOOP;
  }

  @Override
  public Gauge newMaxConcurrentReconciles(String controller) {
    return Gauge.NOOP;
  }

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
