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
  /** The name of the gauge of waiting items per part of the queue. */
  String PENDING_ITEMS = "pending_items";
  /** The name of the counter of items entering a part of the queue, by event. */
  String INCOMING_ITEMS = "queue_incoming_items_total";
  /** The name of the gauge of pooled items per rejector. */
  String UNSCHEDULABLE_ITEMS = "unschedulable_items";
  /** The name of the gauge of entries of the in-flight event log. */
  String IN_FLIGHT_EVENTS = "in_flight_events";

  /**
   * The gauge of the items waiting in one part of the queue; set to the part's size after
   * every change. Created once per part when the queue is built.
   *
   * @param name the queue's name ({@link SchedulingQueueBuilder#name})
   * @param queueLabel {@code active}, {@code backoff}, {@code unschedulable} or {@code gated}
   * @return the gauge, set to a count of items
   */
  Gauge newPendingItemsMetric(String name, String queueLabel);

  /**
   * The counter of items entering one part of the queue, moved by one event. Created lazily,
   * the first time that part and event occur together.
   *
   * @param name the queue's name ({@link SchedulingQueueBuilder#name})
   * @param queueLabel {@code active}, {@code backoff} or {@code unschedulable}
   * @param event the label of the event that moved the items: a {@link ClusterEvent#label},
   *     {@link ClusterEvent#ITEM_ADD}, {@link ClusterEvent#BACKOFF_COMPLETE},
   *     {@link ClusterEvent#POP_FROM_BACKOFF} (queue {@code active}: a {@code pop} that took
   *     the item from backoffQ) or {@code ScheduleAttemptFailure}
   * @return the counter, incremented once per item
   */
  Counter newIncomingItemsMetric(String name, String queueLabel, String event);

  /**
   * The gauge of the pooled items that one rejector rejected (or, for gated items, that one
   * gate holds). Created lazily, the first time the rejector's count changes.
   *
   * @param name the queue's name ({@link SchedulingQueueBuilder#name})
   * @param rejector the rejector's or the gate's name
   * @return the gauge, set to a count of items; it stays at 0 once the rejector's items left
   */
  Gauge newUnschedulableItemsMetric(String name, String rejector);

  /**
   * The gauge of the events kept for attempts in flight, at most the builder's
   * {@link SchedulingQueueBuilder#maxInFlightEvents}. Created when the queue is built.
   *
   * @param name the queue's name ({@link SchedulingQueueBuilder#name})
   * @return the gauge, set to a count of events
   */
  Gauge newInFlightEventsMetric(String name);

  /**
   * A provider that records nothing; queues using it do no metrics work.
   *
   * @return the shared no-op provider, the builder's default
   */
  static SchedulingMetricsProvider noop() {
    return NoopSchedulingMetricsProvider.INSTANCE;
  }
}
