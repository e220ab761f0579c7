package dev.workqueue.metrics;

/** Records nothing: every factory's default. */
enum NoopMetricsProvider implements MetricsProvider, ControllerMetricsProvider {
  INSTANCE;

  static final ControllerMetricsProvider CONTROLLER = INSTANCE;
}
