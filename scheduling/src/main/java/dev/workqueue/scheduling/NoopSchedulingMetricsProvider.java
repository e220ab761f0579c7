package dev.workqueue.scheduling;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;

enum NoopSchedulingMetricsProvider implements SchedulingMetricsProvider {
  INSTANCE;

  @Override
  public Gauge newPendingItemsMetric(String name, String queueLabel) {
    return Gauge.NOOP;
  }

  @Override
  public Counter newIncomingItemsMetric(String name, String queueLabel, String event) {
    return Counter.NOOP;
  }

  @Override
  public Gauge newUnschedulableItemsMetric(String name, String rejector) {
    return Gauge.NOOP;
  }

  @Override
  public Gauge newInFlightEventsMetric(String name) {
    return Gauge.NOOP;
  }
}
