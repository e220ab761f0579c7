package dev.workqueue.examples;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.RecordingMetricsProvider;
import dev.workqueue.scheduling.SchedulingMetricsProvider;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * A {@link SchedulingMetricsProvider} that keeps the values in a
 * {@link RecordingMetricsProvider}, each metric under its name with its labels in braces
 * ({@code pending_items{queue=active}}), and remembers which metrics exist so that they can
 * all be printed. Thread-safe.
 */
final class RecordingSchedulingMetrics implements SchedulingMetricsProvider {
  private final RecordingMetricsProvider values = new RecordingMetricsProvider();
  private final ConcurrentSkipListSet<Key> gauges = new ConcurrentSkipListSet<>();
  private final ConcurrentSkipListSet<Key> counters = new ConcurrentSkipListSet<>();
  private final Map<Key, Incoming> incoming = new java.util.concurrent.ConcurrentHashMap<>();

  private record Key(String queue, String metric) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = queue.compareTo(o.queue);
      return c != 0 ? c : metric.compareTo(o.metric);
    }
  }

  @Override
  public Gauge newPendingItemsMetric(String name, String queueLabel) {
    return gauge(name, PENDING_ITEMS + "{queue=" + queueLabel + "}");
  }

  @Override
  public Counter newIncomingItemsMetric(String name, String queueLabel, String event) {
    Key key = new Key(name, INCOMING_ITEMS + "{queue=" + queueLabel + ",event=" + event + "}");
    incoming.put(key, new Incoming(queueLabel, event));
    return counter(key.queue, key.metric);
  }

  @Override
  public Gauge newUnschedulableItemsMetric(String name, String rejector) {
    return gauge(name, UNSCHEDULABLE_ITEMS + "{rejector=" + rejector + "}");
  }

  @Override
  public Gauge newInFlightEventsMetric(String name) {
    return gauge(name, IN_FLIGHT_EVENTS);
  }

  /** Gauge {@code pending_items{queue=...}} of {@code queue}: 0 until first set. */
  int pending(String queue, String queueLabel) {
    return (int) values.value(queue, PENDING_ITEMS + "{queue=" + queueLabel + "}");
  }

  /**
   * One series of {@code queue_incoming_items_total}: items that entered part
   * {@code queueLabel} of a queue, moved by {@code event}.
   */
  record Incoming(String queueLabel, String event) implements Comparable<Incoming> {
    @Override
    public int compareTo(Incoming o) {
      int c = queueLabel.compareTo(o.queueLabel);
      return c != 0 ? c : event.compareTo(o.event);
    }
  }

  /** Every series of {@code queue_incoming_items_total} of {@code queue} with its count. */
  SortedMap<Incoming, Long> incoming(String queue) {
    SortedMap<Incoming, Long> m = new TreeMap<>();
    for (Map.Entry<Key, Incoming> e : incoming.entrySet()) {
      if (e.getKey().queue.equals(queue)) {
        m.put(e.getValue(), values.count(queue, e.getKey().metric));
      }
    }
    return m;
  }

  /** Every metric of {@code queue} with its current value, gauges then counters, sorted. */
  Map<String, Double> snapshot(String queue) {
    Map<String, Double> m = new java.util.LinkedHashMap<>();
    for (Key k : gauges) {
      if (k.queue.equals(queue)) {
        m.put(k.metric, values.value(queue, k.metric));
      }
    }
    for (Key k : counters) {
      if (k.queue.equals(queue)) {
        m.put(k.metric, (double) values.count(queue, k.metric));
      }
    }
    return m;
  }

  private Gauge gauge(String queue, String metric) {
    gauges.add(new Key(queue, metric));
    return values.gauge(metric, queue);
  }

  private Counter counter(String queue, String metric) {
    counters.add(new Key(queue, metric));
    return values.counter(metric, queue);
  }
}
