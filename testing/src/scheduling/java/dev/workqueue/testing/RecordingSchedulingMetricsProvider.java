package dev.workqueue.testing;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.scheduling.SchedulingMetricsProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A {@link SchedulingMetricsProvider} that keeps every value in memory so that a test (or a
 * demo's summary) can read it back exactly: the scheduling counterpart of {@link
 * RecordingMetricsProvider}, and stored in one. Each series is kept under its metric name with
 * its labels in braces, {@code pending_items{queue=active}} or {@code
 * queue_incoming_items_total{queue=backoff,event=NodeAdded}}; the readers below build those
 * names for you.
 *
 * <p>Thread-safe.
 */
public final class RecordingSchedulingMetricsProvider implements SchedulingMetricsProvider {
  private final RecordingMetricsProvider values;
  /** Every series created, by queue, then by metric name in name order: what snapshot lists. */
  private final Map<String, Map<String, Series>> series = new ConcurrentSkipListMap<>();

  /** A series: a gauge, or (with its labels) a {@code queue_incoming_items_total} counter. */
  private record Series(Incoming incoming) {
    static final Series GAUGE = new Series(null);

    boolean counter() {
      return incoming != null;
    }
  }

  /**
   * One series of {@code queue_incoming_items_total}: items that entered part {@code queueLabel}
   * ({@code active}, {@code backoff} or {@code unschedulable}) of a queue, moved by {@code event}.
   * Ordered by part, then event.
   *
   * @param queueLabel the part the items entered
   * @param event the label of the event that moved them
   */
  public record Incoming(String queueLabel, String event) implements Comparable<Incoming> {
    @Override
    public int compareTo(Incoming o) {
      int c = queueLabel.compareTo(o.queueLabel);
      return c != 0 ? c : event.compareTo(o.event);
    }
  }

  /** A provider with a store of its own. */
  public RecordingSchedulingMetricsProvider() {
    this(new RecordingMetricsProvider());
  }

  /**
   * A provider that records into {@code values}, for instance the store that also records a
   * work queue's metrics, so that one store holds them all.
   *
   * @param values the store; its readers ({@code value}, {@code count}) take the queue name
   *     and the series names this class builds, such as {@link #pendingItems}
   * @throws NullPointerException if {@code values} is null
   */
  public RecordingSchedulingMetricsProvider(RecordingMetricsProvider values) {
    this.values = Objects.requireNonNull(values, "values");
  }

  /**
   * The store the values are kept in.
   *
   * @return the store given to the constructor, or the provider's own
   */
  public RecordingMetricsProvider values() {
    return values;
  }

  @Override
  public Gauge newPendingItemsMetric(String name, String queueLabel) {
    return gauge(name, pendingItems(queueLabel));
  }

  @Override
  public Counter newIncomingItemsMetric(String name, String queueLabel, String event) {
    String metric = incomingItems(queueLabel, event);
    seriesOf(name).put(metric, new Series(new Incoming(queueLabel, event)));
    return values.counter(metric, name);
  }

  @Override
  public Gauge newUnschedulableItemsMetric(String name, String rejector) {
    return gauge(name, unschedulableItems(rejector));
  }

  @Override
  public Gauge newInFlightEventsMetric(String name) {
    return gauge(name, IN_FLIGHT_EVENTS);
  }

  /**
   * {@code pending_items{queue=QUEUE_LABEL}} of queue {@code name}; 0 until first set.
   *
   * @param name the queue's name
   * @param queueLabel {@code active}, {@code backoff}, {@code unschedulable} or {@code gated}
   * @return the number of items last published for that part
   */
  public double pending(String name, String queueLabel) {
    return values.value(name, pendingItems(queueLabel));
  }

  /**
   * {@code queue_incoming_items_total{queue=QUEUE_LABEL,event=EVENT}} of queue {@code name}.
   *
   * @param name the queue's name
   * @param queueLabel {@code active}, {@code backoff} or {@code unschedulable}
   * @param event the event label, such as {@code ItemAdd} or {@code BackoffComplete}
   * @return how many items entered that part moved by that event; 0 if none did
   */
  public long incoming(String name, String queueLabel, String event) {
    return values.count(name, incomingItems(queueLabel, event));
  }

  /**
   * {@code unschedulable_items{rejector=REJECTOR}} of queue {@code name}: the pooled items that
   * {@code rejector} rejected (or, gated, that gate holds); 0 until first set.
   *
   * @param name the queue's name
   * @param rejector the rejector's or the gate's name
   * @return the number of pooled items counted under {@code rejector}
   */
  public double rejectedBy(String name, String rejector) {
    return values.value(name, unschedulableItems(rejector));
  }

  /**
   * {@code in_flight_events} of queue {@code name}; 0 until first set.
   *
   * @param name the queue's name
   * @return the number of events the in-flight log held at its last change
   */
  public double inFlightEvents(String name) {
    return values.value(name, IN_FLIGHT_EVENTS);
  }

  /**
   * Every series of {@code queue_incoming_items_total} of queue {@code name} with its count.
   *
   * @param name the queue's name
   * @return a new map from part and event to count, ordered as {@link Incoming}; empty for
   *     an unknown queue
   */
  public SortedMap<Incoming, Long> incoming(String name) {
    SortedMap<Incoming, Long> m = new TreeMap<>();
    series.getOrDefault(name, Map.of()).forEach((metric, s) -> {
      if (s.counter()) {
        m.put(s.incoming, values.count(name, metric));
      }
    });
    return m;
  }

  /**
   * Every series of queue {@code name} created so far with its value, gauges first then
   * counters, each group in name order.
   *
   * @param name the queue's name
   * @return a new map from series name (such as {@code pending_items{queue=active}}) to value;
   *     empty for an unknown queue
   */
  public Map<String, Double> snapshot(String name) {
    Map<String, Double> m = new LinkedHashMap<>();
    Map<String, Series> all = series.getOrDefault(name, Map.of());
    all.forEach((metric, s) -> {
      if (!s.counter()) {
        m.put(metric, values.value(name, metric));
      }
    });
    all.forEach((metric, s) -> {
      if (s.counter()) {
        m.put(metric, (double) values.count(name, metric));
      }
    });
    return m;
  }

  /**
   * The name a {@link #newPendingItemsMetric} series is kept under.
   *
   * @param queueLabel {@code active}, {@code backoff}, {@code unschedulable} or {@code gated}
   * @return {@code pending_items{queue=QUEUE_LABEL}}
   */
  public static String pendingItems(String queueLabel) {
    return PENDING_ITEMS + "{queue=" + queueLabel + "}";
  }

  /**
   * The name a {@link #newIncomingItemsMetric} series is kept under.
   *
   * @param queueLabel {@code active}, {@code backoff} or {@code unschedulable}
   * @param event the event label
   * @return {@code queue_incoming_items_total{queue=QUEUE_LABEL,event=EVENT}}
   */
  public static String incomingItems(String queueLabel, String event) {
    return INCOMING_ITEMS + "{queue=" + queueLabel + ",event=" + event + "}";
  }

  /**
   * The name a {@link #newUnschedulableItemsMetric} series is kept under.
   *
   * @param rejector the rejector's or the gate's name
   * @return {@code unschedulable_items{rejector=REJECTOR}}
   */
  public static String unschedulableItems(String rejector) {
    return UNSCHEDULABLE_ITEMS + "{rejector=" + rejector + "}";
  }

  private Gauge gauge(String name, String metric) {
    seriesOf(name).put(metric, Series.GAUGE);
    return values.gauge(metric, name);
  }

  private Map<String, Series> seriesOf(String name) {
    return series.computeIfAbsent(name, n -> new ConcurrentSkipListMap<>());
  }
}
