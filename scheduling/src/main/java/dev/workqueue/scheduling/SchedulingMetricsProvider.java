package dev.workqueue.scheduling;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;

/**
 * Creates the metrics of a named scheduling queue, in the style of
 * {@link dev.workqueue.metrics.MetricsProvider}. Each factory is called at most once per queue
 * and label combination, lazily, while the queue holds a lock: implementations must be
 * thread-safe, fast, and never call back into the queue.
 *
 * <table>
 *   <caption>Scheduling queue metrics (kube-scheduler's names in brackets)</caption>
 *   <tr><td>{@link #newPendingItemsMetric}</td><td>{@code pending_items{queue}}</td>
 *       <td>items in {@code active}, {@code backoff} (both back-off heaps),
 *       {@code unschedulable} (the pool, gated items excluded) and {@code gated}
 *       [{@code scheduler_pending_pods}]; set from the queue's state after every change</td></tr>
 *   <tr><td>{@link #newIncomingItemsMetric}</td><td>{@code queue_incoming_items_total{queue,
 *       event}}</td><td>items entering {@code active}, {@code backoff} or
 *       {@code unschedulable}, by the event that moved them
 *       [{@code scheduler_queue_incoming_pods_total}]</td></tr>
 *   <tr><td>{@link #newUnschedulableItemsMetric}</td><td>{@code unschedulable_items{rejector}}
 *       </td><td>pooled items each rejector rejected [{@code scheduler_unschedulable_pods}]
 *       </td></tr>
 *   <tr><td>{@link #newInFlightEventsMetric}</td><td>{@code in_flight_events}</td>
 *       <td>entries of the in-flight event log [{@code scheduler_inflight_events}]</td></tr>
 * </table>
 */
public interface SchedulingMetricsProvider {
  String PENDING_ITEMS = "pending_items";
  String INCOMING_ITEMS = "queue_incoming_items_total";
  String UNSCHEDULABLE_ITEMS = "unschedulable_items";
  String IN_FLIGHT_EVENTS = "in_flight_events";

  /** @param queueLabel {@code active}, {@code backoff}, {@code unschedulable} or {@code gated} */
  Gauge newPendingItemsMetric(String name, String queueLabel);

  /** @param queueLabel {@code active}, {@code backoff} or {@code unschedulable} */
  Counter newIncomingItemsMetric(String name, String queueLabel, String event);

  Gauge newUnschedulableItemsMetric(String name, String rejector);

  Gauge newInFlightEventsMetric(String name);

  /** A provider that records nothing; queues using it do no metrics work. */
  static SchedulingMetricsProvider noop() {
    return NoopSchedulingMetricsProvider.INSTANCE;
  }
}
