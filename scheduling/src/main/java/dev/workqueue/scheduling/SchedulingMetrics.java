package dev.workqueue.scheduling;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The queue's metrics. Gauges are only ever set to a size read from the structure they
 * measure, under that structure's lock, so they cannot drift or go negative (kube #113945,
 * #120395 came from increments and decrements that missed a path).
 */
final class SchedulingMetrics {
  static final String ACTIVE = "active";
  static final String BACKOFF = "backoff";
  static final String UNSCHEDULABLE = "unschedulable";
  static final String GATED = "gated";

  private static final SchedulingMetrics NOOP = new SchedulingMetrics(null, null);

  private final String name;
  private final SchedulingMetricsProvider provider;
  private final Gauge active;
  private final Gauge backoff;
  private final Gauge unschedulable;
  private final Gauge gated;
  private final Gauge inFlightEvents;
  private final Map<String, Counter> incoming = new ConcurrentHashMap<>();
  private final Map<String, Gauge> rejectors = new ConcurrentHashMap<>();

  private SchedulingMetrics(String name, SchedulingMetricsProvider provider) {
    this.name = name;
    this.provider = provider;
    boolean live = provider != null;
    this.active = live ? provider.newPendingItemsMetric(name, ACTIVE) : Gauge.NOOP;
    this.backoff = live ? provider.newPendingItemsMetric(name, BACKOFF) : Gauge.NOOP;
    this.unschedulable = live ? provider.newPendingItemsMetric(name, UNSCHEDULABLE) : Gauge.NOOP;
    this.gated = live ? provider.newPendingItemsMetric(name, GATED) : Gauge.NOOP;
    this.inFlightEvents = live ? provider.newInFlightEventsMetric(name) : Gauge.NOOP;
  }

  /** Live metrics for a named queue with a real provider, else a no-op. */
  static SchedulingMetrics create(String name, SchedulingMetricsProvider provider) {
    if (name == null || provider == SchedulingMetricsProvider.noop()) {
      return NOOP;
    }
    return new SchedulingMetrics(name, provider);
  }

  boolean isLive() {
    return provider != null;
  }

  void activeSize(int n) {
    active.set(n);
  }

  void backoffSize(int n) {
    backoff.set(n);
  }

  void poolSizes(int unschedulableItems, int gatedItems) {
    unschedulable.set(unschedulableItems);
    gated.set(gatedItems);
  }

  void inFlightEvents(int n) {
    inFlightEvents.set(n);
  }

  void incoming(String queueLabel, String event) {
    if (provider != null) {
      incoming.computeIfAbsent(queueLabel + '\u0000' + event,
          k -> provider.newIncomingItemsMetric(name, queueLabel, event)).inc();
    }
  }

  void rejector(String rejector, int count) {
    if (provider != null) {
      rejectors.computeIfAbsent(rejector,
          r -> provider.newUnschedulableItemsMetric(name, r)).set(count);
    }
  }
}
